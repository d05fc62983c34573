package views

import (
	"fmt"
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
}

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

type statusItem struct {
	id, title string
	updates   uint64
	status    host.Status
	focused   bool
	alert     bool // a card waits for this instance
}

// NewStatusBar makes the bar.
func NewStatusBar(th *themes.Theme, keys *keymap.Keymap) *StatusBar {
	return &StatusBar{Box: tview.NewBox(), theme: th, keys: keys, mode: keymap.ModeRoot}
}

// Draw draws the bar on its one row.
func (b *StatusBar) Draw(screen tcell.Screen) {
	x, y, w, _ := b.GetRect()
	th := b.theme
	var l line
	switch b.mode {
	case keymap.ModePrefix:
		l = append(l, seg{" " + b.keys.Prefix.String() + " ", th.StatusAccent}, seg{" ", th.StatusBar})
	case keymap.ModeCard:
		l = append(l, seg{" APPROVE ", th.Badge}, seg{" ", th.StatusBar})
	case keymap.ModeScroll:
		l = append(l, seg{" SCROLL ", th.StatusAccent}, seg{" ", th.StatusBar})
	case keymap.ModeLocked:
		l = append(l, seg{" LOCKED ", th.StatusAccent}, seg{" ", th.StatusBar})
	}
	if b.pending > 0 {
		hint := ""
		if keys := b.keys.KeysFor(keymap.ModePrefix, keymap.Approvals); len(keys) > 0 {
			hint = " " + b.keys.Prefix.String() + " " + keys[0].String()
		}
		l = append(l, seg{fmt.Sprintf(" ⚑ %d pending%s ", b.pending, hint), th.Badge}, seg{" ", th.StatusBar})
	}
	if len(b.message) > 0 {
		l = append(l, b.message...)
		l = append(l, seg{"  ", th.StatusBar})
	}
	b.spans = b.spans[:0]
	for _, it := range b.items {
		from := lineWidth(l)
		st := th.StatusBar
		if it.focused {
			st = st.Bold(true).Reverse(true)
		}
		l = append(l, seg{" " + it.id + " ", st})
		l = append(l, untrusted(shorten(it.title, 18), th.StatusBar))
		switch {
		case it.alert:
			l = append(l, seg{" ⚑", th.Badge})
		case it.status == host.StatusEnded:
			l = append(l, seg{" ✗", th.StatusBar.Foreground(tcell.ColorRed)})
		case it.status == host.StatusStarting:
			l = append(l, seg{" …", th.StatusBar})
		}
		if it.updates > 0 {
			l = append(l, seg{" ·" + countString(it.updates), th.StatusBar.Dim(true)})
		}
		b.spans = append(b.spans, itemSpan{it.id, x + from, x + lineWidth(l)})
		l = append(l, seg{" ", th.StatusBar})
	}
	right := ""
	if keys := b.keys.KeysFor(keymap.ModePrefix, keymap.Help); len(keys) > 0 {
		right = b.keys.Prefix.String() + " " + keys[0].String() + " help  "
	}
	right += b.now.Format("15:04") + " "
	rw := width(right)
	used := drawText(screen, x, y, max(0, w-rw), l, th.StatusBar)
	_ = used
	drawText(screen, x+max(0, w-rw), y, min(rw, w), plain(right, th.StatusBar), th.StatusBar)
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
