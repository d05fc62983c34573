package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
)

// Tabs are tmux's windows: a set of panes in their own layout, one tab shown at a time. Programs
// in hidden tabs keep running. Everything here runs on the UI goroutine.

// ensureTabs makes the implicit first tab explicit.
func (a *App) ensureTabs() {
	if len(a.tabs) == 0 {
		a.tabs, a.cur = []*tab{{}}, 0
	}
}

// saveTab stores the shown tab's state in its entry.
func (a *App) saveTab() {
	a.ensureTabs()
	t := a.tabs[a.cur]
	name := t.name
	*t = tab{name: name, layout: a.layout, focus: a.focus, floatID: a.floatID, floatShown: a.floatShown,
		lastTiled: a.lastTiled, floatPlace: a.floatPlace}
}

// loadTab shows tab i: its state becomes the App's. The focus moves without telling programs;
// switchTab does.
func (a *App) loadTab(i int) {
	t := a.tabs[i]
	a.cur = i
	a.layout, a.focus, a.floatID, a.floatShown = t.layout, t.focus, t.floatID, t.floatShown
	a.lastTiled, a.floatPlace = t.lastTiled, t.floatPlace
	a.full = true
	a.panel.focused = false
}

// switchTab shows tab i.
func (a *App) switchTab(i int) {
	a.ensureTabs()
	if i < 0 || i >= len(a.tabs) {
		a.say(fmt.Sprintf("no tab %d", i))
		return
	}
	if i == a.cur {
		return
	}
	old := a.focus
	a.saveTab()
	a.loadTab(i)
	a.focusMoved(old)
}

// focusMoved tells the programs that asked (DEC 1004) that the focus moved from old.
func (a *App) focusMoved(old string) {
	if old == a.focus {
		return
	}
	if p := a.panes[old]; p != nil {
		p.term.FocusChanged(false)
		a.lastPane = old
	}
	if p := a.panes[a.focus]; p != nil {
		p.term.FocusChanged(true)
	}
}

// newTab opens a tab with a shell in the focused pane's directory, as tmux's new-window does.
func (a *App) newTab() {
	dir := ""
	if p := a.focusedPane(); p != nil {
		dir = p.inst.Process().ForegroundCwd()
	}
	a.ensureTabs()
	old, back := a.focus, a.cur
	a.saveTab()
	a.tabs = append(a.tabs, &tab{})
	a.loadTab(len(a.tabs) - 1)
	if p := a.panes[old]; p != nil {
		p.term.FocusChanged(false)
	}
	if _, err := a.OpenBeside(host.OpenSpec{Shell: true, Dir: dir}, "", SideBySide); err != nil {
		a.tabs = a.tabs[:len(a.tabs)-1]
		a.loadTab(back)
		if p := a.panes[a.focus]; p != nil {
			p.term.FocusChanged(true)
		}
		a.say(err.Error())
		return
	}
	a.lastPane = old
}

// tabOf is the tab holding pane id, -1 when none does.
func (a *App) tabOf(id string) int {
	if len(a.tabs) == 0 {
		return 0
	}
	if a.layout.Has(id) || a.floatID == id {
		return a.cur
	}
	for i, t := range a.tabs {
		if i != a.cur && (t.layout.Has(id) || t.floatID == id) {
			return i
		}
	}
	return -1
}

// showTabOf shows the tab holding pane id, if it is hidden, with no pane focused: the caller
// focuses id (moveFocus tells the programs).
func (a *App) showTabOf(id string) {
	if i := a.tabOf(id); i >= 0 && i != a.cur {
		old := a.focus
		a.saveTab()
		a.loadTab(i)
		a.focus = ""
		if p := a.panes[old]; p != nil {
			p.term.FocusChanged(false)
			a.lastPane = old
		}
	}
}

// tabForget takes pane id out of the hidden tabs (its program ended or was closed), and drops
// a hidden tab left empty.
func (a *App) tabForget(id string) {
	for i := 0; i < len(a.tabs); i++ {
		t := a.tabs[i]
		if i == a.cur {
			continue
		}
		t.layout.Remove(id)
		if t.floatID == id {
			t.floatID, t.floatShown = "", false
		}
		if t.focus == id {
			t.focus = ""
			if ids := t.layout.IDs(); len(ids) > 0 {
				t.focus = ids[len(ids)-1]
			}
		}
		if t.layout.Empty() && t.floatID == "" {
			a.tabs = append(a.tabs[:i], a.tabs[i+1:]...)
			if a.cur > i {
				a.cur--
			}
			i--
		}
	}
	if a.lastPane == id {
		a.lastPane = ""
	}
}

// closeEmptyTab drops the shown tab once its last pane has gone, as tmux closes a window, and
// shows the one before it.
func (a *App) closeEmptyTab() {
	if len(a.tabs) < 2 || !a.layout.Empty() || a.floatID != "" {
		return
	}
	gone := a.cur
	a.tabs = append(a.tabs[:gone], a.tabs[gone+1:]...)
	a.loadTab(max(0, gone-1))
	if p := a.panes[a.focus]; p != nil {
		p.term.FocusChanged(true)
	}
}

// tabName is what the status bar calls tab i.
func (a *App) tabName(i int) string {
	t := a.tabs[i]
	if t.name != "" {
		return t.name
	}
	focus := t.focus
	if i == a.cur {
		focus = a.focus
	}
	if p := a.panes[focus]; p != nil {
		return a.paneTitle(p.inst)
	}
	return "empty"
}

// tabItems lists the tabs for the status bar.
func (a *App) tabItems() []tabItem {
	out := make([]tabItem, 0, len(a.tabs))
	for i := range a.tabs {
		lay := a.tabs[i].layout
		if i == a.cur {
			lay = a.layout
		}
		out = append(out, tabItem{index: i, name: a.tabName(i), current: i == a.cur, zoomed: lay.Zoomed() != ""})
	}
	return out
}

// paneTitle is the pane's name if the person gave it one, else its program's title.
func (a *App) paneTitle(in *host.Instance) string {
	if p := a.panes[in.ID()]; p != nil && p.name != "" {
		return p.name
	}
	return programTitle(in)
}

// programTitle is what a pane is called when the person did not name it: a Tick's title; for a
// plain program that runs, the title it set (OSC 0 or 2), else the name of the command in its
// terminal's foreground (tmux's automatic-rename: "sh", then "top" while top runs); else its
// command line.
func programTitle(in *host.Instance) string {
	if in.IsTick() || in.Status() == host.StatusEnded {
		return in.Title()
	}
	if t := in.Process().Terminal().Title(); t != "" {
		return t
	}
	if n := in.Process().ForegroundName(); n != "" {
		return n
	}
	return in.Title()
}

// renameTab asks for the shown tab's name.
func (a *App) renameTab() {
	a.ensureTabs()
	i := a.cur
	a.ask1("rename tab "+fmt.Sprint(i)+": ", a.tabName(i), func(name string) {
		if i < len(a.tabs) {
			a.tabs[i].name = strings.TrimSpace(name)
		}
	})
}

// renamePane asks for the focused pane's name; an empty name gives back the program's title.
func (a *App) renamePane() {
	p := a.focusedPane()
	if p == nil {
		return
	}
	id := p.ID()
	a.ask1("rename "+id+": ", a.paneTitle(p.inst), func(name string) {
		if p := a.panes[id]; p != nil {
			p.name = strings.TrimSpace(name)
		}
	})
}

// NamePane gives pane id a name, as the person does with prefix T ("" gives back the program's
// title).
func (a *App) NamePane(id, name string) {
	if p := a.panes[id]; p != nil {
		p.name = strings.TrimSpace(name)
	}
}

// goLastPane focuses the pane focused before, in whichever tab it is.
func (a *App) goLastPane() {
	id := a.lastPane
	if _, ok := a.panes[id]; !ok || id == a.focus {
		a.say("no last pane")
		return
	}
	a.setFocus(id)
	if a.floatID == id {
		a.floatShown = true
	}
}

// showPaneNumbers shows each pane's number over it until the next key, or for a few seconds; a
// digit then focuses that pane (tmux's display-panes).
func (a *App) showPaneNumbers() {
	a.numbersUntil = time.Now().Add(paneNumbersFor)
	a.full = true
	time.AfterFunc(paneNumbersFor, a.requestDraw) // runs once on the timer's goroutine; only posts
}

const paneNumbersFor = 3 * time.Second

// paneNumbersShown reports whether pane numbers are up.
func (a *App) paneNumbersShown() bool { return !a.numbersUntil.IsZero() }

// paneNumberKey takes the key typed while pane numbers show: a digit focuses that pane; any key
// hides the numbers.
func (a *App) paneNumberKey(ev *tcell.EventKey) {
	a.numbersUntil = time.Time{}
	a.full = true
	if ev.Key() != tcell.KeyRune || ev.Rune() < '0' || ev.Rune() > '9' {
		return
	}
	ids := a.layout.IDs()
	if n := int(ev.Rune() - '0'); n < len(ids) {
		if a.floatShown && a.focus == a.floatID {
			a.floatShown = false
		}
		a.setFocus(ids[n])
	}
}

// drawPaneNumbers draws the numbers in the middle of each tile (UI goroutine, during a draw).
func (a *App) drawPaneNumbers(screen tcell.Screen, rects map[string]Rect) {
	if !a.paneNumbersShown() {
		return
	}
	if time.Now().After(a.numbersUntil) {
		a.numbersUntil = time.Time{}
		a.full = true
		a.requestDraw()
		return
	}
	for n, id := range a.layout.IDs() {
		r, ok := rects[id]
		if !ok {
			continue
		}
		st := a.theme.Badge
		if id == a.focus {
			st = a.theme.StatusAccent
		}
		label := fmt.Sprintf(" %d ", n)
		drawText(screen, r.X+max(0, (r.W-len(label))/2), r.Y+r.H/2, min(len(label), r.W), plain(label, st), st)
	}
}

// respawn starts an ended pane's program again in the same place (tmux's respawn-pane).
func (a *App) respawn() {
	p := a.focusedPane()
	if p == nil {
		return
	}
	old := p.inst
	if old.Status() != host.StatusEnded {
		a.say(old.ID() + " still runs: only an ended pane can be started again")
		return
	}
	cols, rows := 0, 0
	if r, ok := a.paneRects()[old.ID()]; ok {
		cols, rows = max(10, r.W-2), max(3, r.H-2)
	}
	in, err := a.host.Open(host.OpenSpec{Argv: old.Argv(), Dir: old.Dir(), Shell: !old.IsTick(), Cols: cols, Rows: rows})
	if err != nil {
		a.say(err.Error())
		return
	}
	np := a.makePane(in)
	np.name = p.name
	if a.floatID == old.ID() {
		a.floatID = in.ID()
		np.float = true
	} else {
		a.layout.Rename(old.ID(), in.ID())
	}
	p.term.Close()
	delete(a.panes, old.ID())
	a.focus = in.ID()
	np.term.FocusChanged(true)
	a.full = true
	go func() { // owner: the host; Remove returns once the ended instance is released
		_ = a.host.Remove(old.ID())
	}()
}

// pasteBuffer types what copy mode copied last into the focused pane, as a paste.
func (a *App) pasteBuffer() {
	p := a.focusedPane()
	switch {
	case p == nil:
	case a.pasteBuf == "":
		a.say("nothing copied yet: copy in scroll mode first")
	case p.inst.Status() == host.StatusEnded:
		a.say(p.ID() + " has ended")
	default:
		p.term.Paste(a.pasteBuf)
	}
}

// makePane makes the pane showing in, with its terminal view.
func (a *App) makePane(in *host.Instance) *Pane {
	p := newPane(in, nil, a.theme)
	p.promptKeys = prefixKeys(a.keys, keymap.Prompt)
	// The draw request may come at once (the program drew before the pane existed): the pane it
	// marks must exist first.
	p.term = NewTerminalView(in.Process(), TerminalOptions{Theme: a.theme, ProgramClipboard: a.cfg.ProgramClipboard, RequestDraw: func() {
		p.dirty.Store(true)
		if p.takeTyped() {
			a.requestEcho()
			return
		}
		a.requestDraw()
	}})
	a.panes[in.ID()] = p
	return p
}
