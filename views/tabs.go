package views

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// Tabs are tmux's windows: a set of panes in their own layout, one tab shown at a time. Programs
// in hidden tabs keep running. Everything here runs on the UI goroutine.

// tabIndex is the shown tab's place in the list.
func (a *App) tabIndex() int { return slices.Index(a.tabs, a.tab) }

// showTab shows tab t. The focus moves without telling programs; switchTab does.
func (a *App) showTab(t *tab) {
	a.tab = t
	a.full = true
	a.panel.focused = false
}

// switchTab shows tab i.
func (a *App) switchTab(i int) {
	if i < 0 || i >= len(a.tabs) {
		a.say(fmt.Sprintf("no tab %d", i))
		return
	}
	if a.tabs[i] == a.tab {
		return
	}
	old := a.tab.focus
	a.showTab(a.tabs[i])
	a.focusMoved(old)
}

// focusMoved tells the programs that asked (DEC 1004) that the focus moved from old.
func (a *App) focusMoved(old string) {
	if old == a.tab.focus {
		return
	}
	if p := a.panes[old]; p != nil {
		p.term.FocusChanged(false)
		a.lastPane = old
	}
	if p := a.panes[a.tab.focus]; p != nil {
		p.term.FocusChanged(true)
	}
}

// newTab opens a tab with a shell in the focused pane's directory, as tmux's new-window does.
func (a *App) newTab() {
	dir := ""
	if p := a.focusedPane(); p != nil {
		dir = p.inst.Process().ForegroundCwd()
	}
	old, back := a.tab.focus, a.tab
	a.tabs = append(a.tabs, &tab{})
	a.showTab(a.tabs[len(a.tabs)-1])
	if p := a.panes[old]; p != nil {
		p.term.FocusChanged(false)
	}
	if _, err := a.OpenBeside(host.OpenSpec{Shell: true, Dir: dir}, "", SideBySide); err != nil {
		a.tabs = a.tabs[:len(a.tabs)-1]
		a.showTab(back)
		if p := a.panes[a.tab.focus]; p != nil {
			p.term.FocusChanged(true)
		}
		a.say(err.Error())
		return
	}
	a.lastPane = old
}

// tabOf is the tab holding pane id, nil when none does.
func (a *App) tabOf(id string) *tab {
	for _, t := range a.tabs {
		if t.layout.Has(id) || t.floatID == id {
			return t
		}
	}
	return nil
}

// showTabOf shows the tab holding pane id, if it is hidden, with no pane focused: the caller
// focuses id (moveFocus tells the programs).
func (a *App) showTabOf(id string) {
	if t := a.tabOf(id); t != nil && t != a.tab {
		old := a.tab.focus
		a.showTab(t)
		a.tab.focus = ""
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
		if t == a.tab {
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
	if len(a.tabs) < 2 || !a.tab.layout.Empty() || a.tab.floatID != "" {
		return
	}
	gone := a.tabIndex()
	a.tabs = append(a.tabs[:gone], a.tabs[gone+1:]...)
	a.showTab(a.tabs[max(0, gone-1)])
	if p := a.panes[a.tab.focus]; p != nil {
		p.term.FocusChanged(true)
	}
}

// tabName is what the status bar calls tab i.
func (a *App) tabName(i int) string {
	t := a.tabs[i]
	if t.name != "" {
		return t.name
	}
	if p := a.panes[t.focus]; p != nil {
		return a.paneTitle(p.inst)
	}
	return "empty"
}

// tabItems lists the tabs for the status bar.
func (a *App) tabItems() []tabItem {
	a.remotePanesDue() // the other hosts' tabs may have changed (remotepanes.go)
	out := make([]tabItem, 0, len(a.tabs))
	for i, t := range a.tabs {
		out = append(out, tabItem{index: i, name: a.tabName(i), current: t == a.tab, zoomed: t.layout.Zoomed() != ""})
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
	t, i := a.tab, a.tabIndex()
	a.ask1("rename tab "+fmt.Sprint(i)+": ", a.tabName(i), func(name string) {
		t.name = strings.TrimSpace(name)
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
	if _, ok := a.panes[id]; !ok || id == a.tab.focus {
		a.say("no last pane")
		return
	}
	a.setFocus(id)
	if a.tab.floatID == id {
		a.tab.floatShown = true
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
	ids := a.tab.layout.IDs()
	if n := int(ev.Rune() - '0'); n < len(ids) {
		if a.tab.floatShown && a.tab.focus == a.tab.floatID {
			a.tab.floatShown = false
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
	for n, id := range a.tab.layout.IDs() {
		r, ok := rects[id]
		if !ok {
			continue
		}
		st := a.theme.Badge
		if id == a.tab.focus {
			st = a.theme.StatusAccent
		}
		label := fmt.Sprintf(" %d ", n)
		drawText(screen, r.X+max(0, (r.W-len(label))/2), r.Y+r.H/2, min(len(label), r.W), plain(label, st), st)
	}
}

// respawn starts an ended pane's program again in the same place (tmux's respawn-pane); plain
// runs a program that failed as a Tick as a plain program instead (run-plain), and nothing else.
func (a *App) respawn(plain bool) {
	p := a.focusedPane()
	if p == nil {
		return
	}
	old := p.inst
	if old.Status() != host.StatusEnded {
		a.say(old.ID() + " still runs: only an ended pane can be started again")
		return
	}
	if plain && !failedAsTick(old) {
		return // only a program that failed as a Tick is run again as a plain one
	}
	cols, rows := 0, 0
	if r, ok := a.paneRects()[old.ID()]; ok {
		cols, rows = max(10, r.W-2), max(3, r.H-2)
	}
	// A sandboxed pane comes back sandboxed, whatever the policy says of a pane opened this way.
	in, err := a.host.Open(host.OpenSpec{Argv: old.Argv(), Dir: old.Dir(), Shell: !old.IsTick() || plain, Cols: cols, Rows: rows, Sandbox: old.Sandboxed()})
	if err != nil {
		a.say(err.Error())
		return
	}
	np := a.makePane(in)
	np.name = p.name
	if a.tab.floatID == old.ID() {
		a.tab.floatID = in.ID()
		np.float = true
	} else {
		a.tab.layout.Rename(old.ID(), in.ID())
	}
	p.term.Close()
	delete(a.panes, old.ID())
	a.tab.focus = in.ID()
	np.term.FocusChanged(true)
	a.full = true
	go func() { // owner: the host; Remove returns once the ended instance is released
		_ = a.host.Remove(old.ID())
	}()
}

// pasteBuffer types what copy mode copied last (the newest paste buffer) into the focused pane,
// as a paste.
func (a *App) pasteBuffer() {
	if a.pasteBuf == "" {
		a.say("nothing copied yet: copy in scroll mode first")
		return
	}
	a.pasteText(a.pasteBuf)
}

// makePane makes the pane showing in, with its terminal view.
func (a *App) makePane(in *host.Instance) *Pane {
	p := newPane(in, nil, a.theme)
	p.plainKeys = plainKeysOf(a.keys)
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
