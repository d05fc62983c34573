package views

import (
	"fmt"
	"slices"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/themes"
)

// StatusBar is the bottom line: the mode, every instance with its live update count, the
// pending-approval badge, a message, the prefix hint and the time.
type StatusBar struct {
	*tview.Box
	theme *themes.Theme
	keys  *keymap.Keymap

	mode    keymap.Mode
	items   []statusItem
	pending int
	message line
	now     time.Time
	spans   []itemSpan // where each instance was drawn, for mouse clicks
	// tabSpans is where each tab was drawn, from the bar's left edge, for mouse clicks.
	tabSpans []tabSpan
	buf      line      // the line being drawn, kept between draws
	tabs     []tabItem // the tabs, listed before the instances when there are two or more

	// What the last draw showed, to skip one that would change nothing; drawnOK is cleared
	// when something may have drawn over the bar.
	drawn   line
	drawnAt [4]int
	drawnR  string
	drawnOK bool
}

// Invalidate makes the next draw draw everything: something drew over the bar.
func (b *StatusBar) Invalidate() { b.drawnOK = false }

// itemSpan is the columns an instance's entry took on the bar.
type itemSpan struct {
	id       string
	from, to int
}

// At returns the instance whose entry is at column x, or "".
func (b *StatusBar) At(x int) string {
	for _, s := range b.spans {
		if x >= s.from && x < s.to {
			return s.id
		}
	}
	return ""
}

// tabSpan is the columns a tab's entry took on the bar, from its left edge.
type tabSpan struct {
	index    int
	from, to int
}

// TabAt returns the tab whose entry is at column x, if one is.
func (b *StatusBar) TabAt(x int) (int, bool) {
	bx, _, _, _ := b.GetRect()
	for _, s := range b.tabSpans {
		if x-bx >= s.from && x-bx < s.to {
			return s.index, true
		}
	}
	return 0, false
}

type statusItem struct {
	id, title string
	updates   uint64
	status    host.Status
	focused   bool
	alert     bool   // a card waits for this instance
	agent     string // the state of the agent session in its pane ("" when none)
	zoomed    bool   // shown alone (prefix z)
}

// NewStatusBar makes the bar.
func NewStatusBar(th *themes.Theme, keys *keymap.Keymap) *StatusBar {
	return &StatusBar{Box: tview.NewBox(), theme: th, keys: keys, mode: keymap.ModeRoot}
}

// Draw draws the bar on its one row. It measures each piece once as it goes and stops at the
// edge: the cost is linear in what fits on the bar, whatever the number of instances.
func (b *StatusBar) Draw(screen tcell.Screen) {
	x, y, w, _ := b.GetRect()
	th := b.theme
	right := ""
	if keys := b.keys.KeysFor(keymap.ModePrefix, keymap.Help); len(keys) > 0 {
		right = b.keys.Prefix.String() + " " + keys[0].String() + " help  "
	}
	right += b.now.Format("15:04") + " "
	rw := min(width(right), w)
	avail := max(0, w-rw-1) // one blank column always parts the items from the hint

	l := b.buf[:0]
	used := 0
	add := func(text string, st tcell.Style) {
		l = append(l, seg{text, st})
		used += width(text)
	}
	switch b.mode {
	case keymap.ModePrefix:
		add(" "+b.keys.Prefix.String()+" ", th.StatusAccent)
		add(" ", th.StatusBar)
	case keymap.ModeCard:
		add(" APPROVE ", th.Badge)
		add(" ", th.StatusBar)
	case keymap.ModeScroll:
		add(" SCROLL ", th.StatusAccent)
		add(" ", th.StatusBar)
	case keymap.ModeLocked:
		add(" LOCKED ", th.StatusAccent)
		add(" ", th.StatusBar)
	}
	if b.pending > 0 {
		hint := ""
		if keys := b.keys.KeysFor(keymap.ModePrefix, keymap.Approvals); len(keys) > 0 {
			hint = " " + b.keys.Prefix.String() + " " + keys[0].String()
		}
		add(fmt.Sprintf(" ⚑ %d pending%s ", b.pending, hint), th.Badge)
		add(" ", th.StatusBar)
	}
	for _, s := range b.message {
		add(s.text, s.style)
	}
	if len(b.message) > 0 {
		add("  ", th.StatusBar)
	}
	l = b.tabSegs(l, &used, avail)
	b.spans = b.spans[:0]
	for _, it := range b.items {
		if used >= avail {
			used++ // the rest would not show (not even measured): an ellipsis says so
			break
		}
		from := used
		st := th.StatusBar
		if it.focused {
			st = st.Bold(true).Reverse(true)
		}
		add(" "+it.id+" ", st)
		t := untrusted(shorten(it.title, 18), th.StatusBar)
		add(t.text, t.style)
		if it.zoomed {
			add(" Z", th.StatusAccent) // tmux's zoomed-window flag
		}
		switch {
		case it.alert:
			add(" ⚑", th.Badge)
		case it.status == host.StatusEnded:
			add(" ✗", th.StatusBar.Foreground(tcell.ColorRed))
		case it.status == host.StatusStarting:
			add(" …", th.StatusBar)
		}
		if it.updates > 0 {
			add(" ·"+countString(it.updates), th.StatusBar.Dim(true))
		}
		if it.agent != "" {
			add(" · ", th.StatusBar)
			t := untrusted(it.agent, th.StatusBar.Bold(true))
			add(t.text, t.style)
		}
		b.spans = append(b.spans, itemSpan{it.id, x + from, x + min(used, avail)})
		add(" ", th.StatusBar)
	}
	b.buf = l
	at := [4]int{x, y, w, used}
	if b.drawnOK && at == b.drawnAt && right == b.drawnR && slices.Equal(l, b.drawn) {
		return // what is on the bar already
	}
	b.drawn, b.drawnAt, b.drawnR, b.drawnOK = append(b.drawn[:0], l...), at, right, true
	drawText(screen, x, y, avail, l, th.StatusBar)
	if used > avail && avail > 0 {
		screen.SetContent(x+avail-1, y, '…', nil, th.StatusBar) // cut: say so
	}
	drawText(screen, x+avail, y, w-avail-rw, nil, th.StatusBar)
	drawText(screen, x+w-rw, y, rw, plain(right, th.StatusBar), th.StatusBar)
}

// countString writes a count compactly: 999, 1.2k, 34k, 1.2M.
func countString(n uint64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
