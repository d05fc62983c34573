package views

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/host"
	"tickmux/host/snapshot"
	"tickmux/keymap"
	"tickmux/themes"
)

// Pane frames one instance's terminal: a border with the instance id, its title and its status,
// and a badge when an approval waits for it. An ended pane stays, saying why, until closed.
type Pane struct {
	*tview.Box
	inst    *host.Instance
	term    paneTerm
	theme   *themes.Theme
	focused bool
	alert   bool   // an approval card waits for this instance
	agent   string // the agent session in the pane and its state ("Claude Code working 12s")
	float   bool
	zoomed  bool // shown alone (prefix z): the frame says so, as tmux's Z flag
	// shared: tmux's borders (one line between panes): the title on a line at the pane's top and,
	// when sepRight, a line at its right; no box (borders.go)
	shared, sepRight bool
	name             string // given by the person (prefix T); "" shows the program's title
	offer            *offer // a restored pane's offer (restore.go), until the next key
	// snapped is the pane as the last snapshot found it while it ran (restore.go).
	snapped *snapshot.Pane
	// plainKeys run a Tick that failed its initialization as a plain program, for the hint on
	// its ended pane: it may be no Tick (top, vim).
	plainKeys plainKeys
	// dirty is set by the terminal's draw request when the program drew; a frame that redraws
	// nothing else redraws only dirty panes.
	dirty atomic.Bool
	// typed counts the keys that went to the program and whose echo was not drawn yet: each
	// allows one draw of the program's output at once, ahead of the frame pacing (keys first),
	// so keys typed together (a shell echoes them one write at a time) are all drawn at once.
	typed atomic.Int32
	drawn Rect      // where the pane was last drawn
	at    time.Time // when its content was last drawn
	// The frame as last drawn, while nothing drew over it (invalidate): a frame that would show
	// the same is not drawn again, so an echo frame touches the rows that changed, not every row
	// the border crosses.
	frame   frameKey
	frameOK bool
	// The program's title as the frame last read it. A key's echo frame draws with it
	// (keepTitle) and the title is read again once that frame is out (App.checkTitles): the
	// read is an ioctl and a read of /proc, 10-15 µs of the echo's path.
	title     string
	titleOK   bool
	keepTitle bool // set by the frame being drawn: an echo's
	titleKept bool // the frame drew with the kept title: checkTitles reads it again
	retitled  bool // the title read was another than before: the status bar takes it (retitleStatus)
}

// frameKey is what a pane's frame shows.
type frameKey struct {
	rect                          Rect
	focused, alert, float, zoomed bool
	shared, sepRight              bool
	name, title, exit             string
	agent                         string
	status                        host.Status
	unguarded                     bool
}

// paneTerm is what a pane needs from the terminal widget inside it.
type paneTerm interface {
	SetRect(x, y, w, h int)
	Draw(screen tcell.Screen)
	// PlaceCursor shows the program's cursor on screen (the pane has the focus).
	PlaceCursor(screen tcell.Screen)
	// Key, Paste and Mouse encode input as xterm would and send it to the program; Mouse
	// forwards only what the program asked for.
	Key(ev *tcell.EventKey)
	Paste(text string)
	// startPaste begins a paste streamed into the program (paste.go); dropped is told why,
	// should the rest of it be dropped (on the view's reader goroutine).
	startPaste(dropped func(error)) pasteSink
	Mouse(action tview.MouseAction, ev *tcell.EventMouse)
	// Scroll mode over the scrollback: search, select, copy.
	StartScroll()
	StopScroll()
	Scrolling() bool
	// Live reports that it shows the program's screen as it is: not scrolled back (the wheel)
	// nor in scroll mode, so that a typed key changes nothing of its own (lane.go).
	Live() bool
	// Searching reports whether a search query is being typed: then every key is the query's.
	Searching() bool
	// Selection is the text copy would copy now ("" outside scroll mode).
	Selection() string
	ScrollKey(ev *tcell.EventKey)
	ScrollAction(act keymap.Action)
	// FocusChanged tells the program it gained or lost the focus, if it asked (DEC 1004).
	FocusChanged(focused bool)
	// Close stops the widget's goroutine; idempotent.
	Close()
}

func newPane(inst *host.Instance, term paneTerm, th *themes.Theme) *Pane {
	return &Pane{Box: tview.NewBox(), inst: inst, term: term, theme: th}
}

// ID is the instance's id.
func (p *Pane) ID() string { return p.inst.ID() }

// Draw draws the frame and the terminal inside it.
func (p *Pane) Draw(screen tcell.Screen) {
	p.drawFrame(screen)
	p.drawContent(screen)
}

// drawFrame draws the border with the id, title, status and badges, unless it is on screen
// already.
func (p *Pane) drawFrame(screen tcell.Screen) {
	x, y, w, h := p.GetRect()
	if w < 2 || h < 2 {
		return
	}
	progTitle, keep := p.title, p.keepTitle
	p.keepTitle = false // for this frame only
	if keep && p.titleOK {
		p.titleKept = true
	} else {
		progTitle = programTitle(p.inst) // read once a frame: for a shell, a syscall or two
		p.retitled = p.retitled || (p.titleOK && progTitle != p.title)
		p.title, p.titleOK = progTitle, true
	}
	key := frameKey{rect: Rect{x, y, w, h}, focused: p.focused, alert: p.alert, float: p.float, zoomed: p.zoomed, shared: p.shared, sepRight: p.sepRight, name: p.name,
		title: progTitle, status: p.inst.Status(), unguarded: p.inst.GuardError() != "", agent: p.agent}
	if e := p.inst.EndInfo(); e != nil {
		key.exit = e.ExitStatus
	}
	if p.frameOK && key == p.frame {
		return
	}
	p.frame, p.frameOK = key, true
	th := p.theme
	border := th.Border
	switch {
	case p.alert:
		border = th.BorderAlert
	case p.focused:
		border = th.BorderFocused
	}
	h1, v1, tl, tr, bl, br := '─', '│', '┌', '┐', '└', '┘'
	if p.focused {
		h1, v1, tl, tr, bl, br = '━', '┃', '┏', '┓', '┗', '┛'
	}
	if p.shared {
		p.drawSharedLines(screen, border, h1)
	} else {
		p.drawBox(screen, border, h1, v1, tl, tr, bl, br)
	}
	p.drawTitle(screen, key, progTitle, border)
}

// drawBox draws the pane's own box.
func (p *Pane) drawBox(screen tcell.Screen, border tcell.Style, h1, v1, tl, tr, bl, br rune) {
	x, y, w, h := p.GetRect()
	for i := x + 1; i < x+w-1; i++ {
		screen.SetContent(i, y, h1, nil, border)
		screen.SetContent(i, y+h-1, h1, nil, border)
	}
	for j := y + 1; j < y+h-1; j++ {
		screen.SetContent(x, j, v1, nil, border)
		screen.SetContent(x+w-1, j, v1, nil, border)
	}
	screen.SetContent(x, y, tl, nil, border)
	screen.SetContent(x+w-1, y, tr, nil, border)
	screen.SetContent(x, y+h-1, bl, nil, border)
	screen.SetContent(x+w-1, y+h-1, br, nil, border)
}

// drawTitle draws the title on the frame's top line.
func (p *Pane) drawTitle(screen tcell.Screen, key frameKey, progTitle string, border tcell.Style) {
	x, y, w, _ := p.GetRect()
	th := p.theme
	// Title: " hosted:3 Counter · ready " on the top border; " shell:2 [sandboxed] bash · ready "
	// for a sandboxed pane, the badge in its own style.
	title := th.Title
	if p.focused {
		title = th.TitleFocused
	}
	name := p.name
	if name == "" {
		name = capText(progTitle, 200)
	}
	l := line{{" " + p.inst.ID() + " ", title}}
	if p.inst.Sandboxed() {
		// Its program runs under bubblewrap (host/sandbox.go), ended or not. A badge after the
		// id, before any text the program chose: a title can neither push it off a narrow border
		// nor draw one (its text is never in this style).
		l = append(l, seg{" sandboxed ", th.Sandboxed}, seg{" ", title})
	}
	if p.agent != "" { // before the title, which a long one would push off the border
		l = append(l, untrusted(p.agent, title.Bold(true)), seg{" · ", title})
	}
	var stat line // " · ready", " · ended (exit status 3)", and a missing guardian
	status := p.inst.Status()
	switch status {
	case host.StatusEnded:
		stat = line{{" · ", title}, {"ended", th.StatusEnded}}
		if e := p.inst.EndInfo(); e != nil && e.ExitStatus != "" {
			stat = append(stat, seg{" (" + e.ExitStatus + ")", th.StatusEnded})
		}
	default:
		stat = line{{" · ", title}, statusSeg(th, status)}
	}
	if key.unguarded && status != host.StatusEnded {
		// No guardian watches its processes: a kill -9 of tickmux would leave them (the panel
		// and the log say why).
		stat = append(stat, seg{" · ", title}, seg{"⚠ unguarded", th.StatusEnded})
	}
	var badges line
	badge := func(text string, st tcell.Style) { badges = append(badges, seg{" ", title}, seg{text, st}) }
	if p.alert {
		badge(" ⚑ approval ", th.Badge)
	}
	if p.float {
		badges = append(badges, seg{" · floating", title})
	}
	if p.zoomed {
		badge(" Z zoomed ", th.StatusAccent)
	}
	// A narrow border keeps its badges whole (it drew "⚑ approva"): "· ready" goes first, then
	// the title is cut, then the badges shrink to their marks.
	room := w - 4
	if p.shared {
		room = w - 2
	}
	over := func(name string) bool {
		return lineWidth(l)+width(name)+lineWidth(stat)+lineWidth(badges)+1 > room
	}
	if len(badges) > 0 && over(name) {
		if status == host.StatusReady && !key.unguarded {
			stat = nil
		}
		nameRoom := func() int { return room - lineWidth(l) - lineWidth(stat) - lineWidth(badges) - 1 }
		if over(name) && nameRoom() < 6 {
			for i := range badges {
				switch badges[i].text {
				case " ⚑ approval ":
					badges[i].text = " ⚑ "
				case " Z zoomed ":
					badges[i].text = " Z "
				}
			}
		}
		if over(name) {
			name = shorten(name, max(1, nameRoom())) // "…" at the least: the badge matters more
		}
	}
	l = append(l, untrusted(name, title))
	l = append(append(append(l, stat...), badges...), seg{" ", title})
	at, room2 := x+2, w-4
	if p.shared {
		at, room2 = x+1, w-2
	}
	if room2 > 0 {
		drawText(screen, at, y, min(room2, lineWidth(l)), l, border)
	}
}

// drawContent draws the terminal inside the frame, and why the instance ended if it did.
func (p *Pane) drawContent(screen tcell.Screen) {
	x, y, w, h := p.GetRect()
	if w < 2 || h < 2 {
		return
	}
	th := p.theme
	inner := p.inner(Rect{x, y, w, h})
	p.term.SetRect(inner.X, inner.Y, inner.W, inner.H)
	e := p.inst.EndInfo()
	if e != nil {
		p.invalidate() // the row under the message is drawn whole each time
	}
	p.term.Draw(screen)

	if p.offer != nil && e == nil && inner.H > 0 {
		p.invalidate() // the row under the offer is drawn whole each time
		drawText(screen, inner.X, inner.Y+inner.H-1, inner.W, line{untrusted(p.offer.text, th.Badge)}, th.StatusBar)
	}
	// An ended pane says why at its bottom, over the last screen it had; above it, for a Tick
	// that failed its initialization, how to open it as a plain program.
	if e != nil && inner.H > 0 {
		msg := "ended: " + e.Reason
		if e.ExitStatus != "" && !strings.Contains(e.Reason, e.ExitStatus) {
			msg += fmt.Sprintf(" (%s)", e.ExitStatus)
		}
		drawText(screen, inner.X, inner.Y+inner.H-1, inner.W, line{untrusted(msg, th.StatusBar.Foreground(tcell.ColorRed))}, th.StatusBar)
		if hint := plainHint(p.inst, e, p.plainKeys); hint != "" && inner.H > 1 {
			drawText(screen, inner.X, inner.Y+inner.H-2, inner.W, line{untrusted(hint, th.StatusBar)}, th.StatusBar)
		}
	}
}

// failedAsTick: in was opened as a Tick and ended before it was ready (it never answered
// tick/describe, or wrote what is not the protocol to its stdout, as top does): it may be no
// Tick at all, and the ended pane offers to run it as a plain program (run-plain).
func failedAsTick(in *host.Instance) bool {
	e := in.EndInfo()
	return in.IsTick() && e != nil && e.DuringInit
}

// plainKeys are the keys that run a program that failed as a Tick as a plain program: the ended
// mode's run-plain ("Enter"), else the prompt's ("C-b :", then !CMD).
type plainKeys struct{ run, prompt string }

func plainKeysOf(km *keymap.Keymap) plainKeys {
	k := plainKeys{prompt: prefixKeys(km, keymap.Prompt)}
	if keys := km.KeysFor(keymap.ModeEnded, keymap.RunPlain); len(keys) > 0 {
		k.run = keys[0].String()
	}
	return k
}

// plainHint is, for a Tick whose initialization failed, how to run its command as a plain
// program instead: the key on its ended pane, else the prompt's ! form; "" otherwise.
func plainHint(in *host.Instance, e *host.EndInfo, k plainKeys) string {
	if !in.IsTick() || !e.DuringInit {
		return ""
	}
	switch {
	case k.run != "":
		return "not a Tick? " + k.run + " runs it again as a plain program: " + shellJoin(in.Argv())
	case k.prompt != "":
		return "not a Tick? open it as a plain program: " + k.prompt + " then !" + shellJoin(in.Argv())
	}
	return ""
}

// prefixKeys names the keys that do action after the prefix ("C-b :"), "" when none does.
func prefixKeys(km *keymap.Keymap, action keymap.Action) string {
	keys := km.KeysFor(keymap.ModePrefix, action)
	if len(keys) == 0 {
		return ""
	}
	return km.Prefix.String() + " " + keys[0].String()
}

// shellJoin writes argv as a shell command line, quoting the words that need it.
func shellJoin(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
		}) < 0 {
			words[i] = w
			continue
		}
		words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}

// invalidate makes the next draw draw the frame and every row of the terminal (something may
// have drawn over it).
func (p *Pane) invalidate() {
	p.frameOK = false
	if t, ok := p.term.(interface{ Invalidate() }); ok {
		t.Invalidate()
	}
}

func lineWidth(l line) int {
	n := 0
	for _, s := range l {
		n += width(s.text)
	}
	return n
}

// takeTyped takes one of the typed keys' draws at once, if one is left. Draw requests come from
// the PTY reader and from a resize on the UI goroutine, maybe at the same time.
func (p *Pane) takeTyped() bool {
	for {
		n := p.typed.Load()
		if n <= 0 {
			return false
		}
		if p.typed.CompareAndSwap(n, n-1) {
			return true
		}
	}
}
