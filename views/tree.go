package views

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"

	"tickmux/remote"
)

// treeView is tmux's choose-tree (prefix w): every tab and, under it, its panes; Up and Down (or
// k and j) move, Enter goes to the tab or pane chosen, Esc or q closes. Opened on the paste
// buffers (prefix =), it is tmux's choose-buffer: the last copies, newest first, each by its
// size and first line; Enter pastes the one chosen into the focused pane.
type treeView struct {
	a       *App
	open    bool
	buffers bool // the paste buffers, not the tabs and panes
	cursor  int
}

// treeRow is one line of the tree: a tab, a pane of it (id set), or the heading of another
// host's tabs (heading set; tab is the host's first tab, -1 when none shows here).
type treeRow struct {
	tab     int
	id      string
	host    string
	heading bool
}

func newTreeView(a *App) *treeView { return &treeView{a: a} }

// show opens the tree with the cursor on the focused pane.
func (t *treeView) show() {
	t.open, t.buffers, t.cursor = true, false, 0
	cur := t.a.tabIndex()
	for i, r := range t.rows() {
		if !r.heading && r.tab == cur && r.id == t.a.tab.focus {
			t.cursor = i
		}
	}
}

// showBuffers opens the paste buffers with the cursor on the newest; with none, it says so.
func (t *treeView) showBuffers() {
	if len(t.a.pasteBuffers()) == 0 {
		t.a.say("no paste buffers: copy in scroll mode first")
		return
	}
	t.open, t.buffers, t.cursor = true, true, 0
}

// rows lists this host's tabs in order, then each other host's (issue 40) under its heading,
// in the config's order: each tab followed by its panes in reading order (the float last).
func (t *treeView) rows() []treeRow {
	a := t.a
	var out []treeRow
	add := func(i int, tb *tab, host string) {
		out = append(out, treeRow{tab: i, host: host})
		for _, id := range tb.layout.IDs() {
			out = append(out, treeRow{tab: i, id: id, host: host})
		}
		if tb.floatID != "" {
			out = append(out, treeRow{tab: i, id: tb.floatID, host: host})
		}
	}
	byHost := map[string][]int{}
	var order []string
	if a.remote.q != nil {
		for _, st := range a.remote.q.States() {
			order = append(order, st.Name)
		}
	}
	for i, tb := range a.tabs {
		h := a.tabHost(tb)
		if h == "" {
			add(i, tb, "")
			continue
		}
		if _, ok := byHost[h]; !ok && !slices.Contains(order, h) {
			order = append(order, h) // a host the config no longer names
		}
		byHost[h] = append(byHost[h], i)
	}
	for _, h := range order {
		first := -1
		if tabs := byHost[h]; len(tabs) > 0 {
			first = tabs[0]
		}
		out = append(out, treeRow{tab: first, host: h, heading: true})
		for _, i := range byHost[h] {
			add(i, a.tabs[i], h)
		}
	}
	return out
}

// tabHost is the other host whose tab tb shows ("" for this host's): the host of its panes when
// every one is another host's (a tab the person put a pane of this host into is this host's).
func (a *App) tabHost(tb *tab) string {
	ids := tb.layout.IDs()
	if tb.floatID != "" {
		ids = append(ids, tb.floatID)
	}
	h := ""
	for _, id := range ids {
		p := a.panes[id]
		if p == nil || p.inst.Remote() == nil {
			return ""
		}
		if h == "" {
			h = paneHost(a, id)
		}
	}
	return h
}

// paneHost is the host of the pane of another host shown as id ("b:shell:1": "b"), as the sync
// that showed it knows it, else from the id: the host's name, a colon, the host's own id (KIND:N).
func paneHost(a *App, id string) string {
	if v, ok := remoteState.Load(a); ok {
		if p := v.(*remotePanes).panes[id]; p != nil {
			return p.host
		}
	}
	if i := strings.LastIndex(id, ":"); i > 0 {
		if j := strings.LastIndex(id[:i], ":"); j > 0 {
			return id[:j]
		}
	}
	return id
}

// hostHeading is a host's heading in the tree: its name and state ("up", "unreachable since
// 23:05", "connecting").
func (a *App) hostHeading(name string) string {
	state := ""
	if a.remote.q != nil {
		for _, st := range a.remote.q.States() {
			if st.Name != name {
				continue
			}
			switch {
			case st.State == remote.Up:
				state = "up"
			case st.State == remote.Unreachable || !st.Down.IsZero():
				since := st.Down
				if since.IsZero() {
					since = st.Since
				}
				state = "unreachable since " + since.Local().Format("15:04")
			default:
				state = string(st.State)
			}
		}
	}
	if state == "" {
		return "host " + name
	}
	return "host " + name + ": " + state
}

// count is how many rows the list has.
func (t *treeView) count() int {
	if t.buffers {
		return len(t.a.pasteBufs)
	}
	return len(t.rows())
}

func (t *treeView) handle(ev *tcell.EventKey) {
	n := t.count()
	switch {
	case ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyRune && ev.Rune() == 'q':
		t.open = false
	case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyRune && ev.Rune() == 'k':
		t.cursor = max(0, t.cursor-1)
	case ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyRune && ev.Rune() == 'j':
		t.cursor = max(0, min(n-1, t.cursor+1))
	case ev.Key() == tcell.KeyEnter:
		t.open = false
		switch {
		case t.cursor >= n:
		case t.buffers:
			t.a.pasteText(t.a.pasteBufs[t.cursor])
		default:
			t.choose(t.rows()[t.cursor])
		}
	}
}

// choose shows the row's tab, and focuses its pane.
func (t *treeView) choose(r treeRow) {
	a := t.a
	if r.heading { // the host's first tab
		if r.tab >= 0 {
			a.switchTab(r.tab)
		}
		return
	}
	if r.id == "" {
		a.switchTab(r.tab)
		return
	}
	if a.panes[r.id] == nil {
		return
	}
	a.showTabOf(r.id)
	a.setFocus(r.id)
}

// draw shows the tree (or the paste buffers) in a box inside the workspace: the rows around the
// cursor and a footer (dropped in a short box).
func (t *treeView) draw(screen tcell.Screen, w, h int) {
	th := t.a.theme
	title, hint := " choose a tab or a pane ", "↑↓ or j k move · Enter go there · Esc close"
	if t.buffers {
		title, hint = " choose a paste buffer ", "↑↓ or j k move · Enter paste · Esc close"
	}
	in := drawBox(screen, t.a.overlayRect(w, h, 82), th.CardBorder, th.Prompt, line{{title, th.CardBorder}})
	if in.W < 3 || in.H < 1 {
		return
	}
	x, cw := in.X+1, in.W-2
	foot := in.H
	if in.H >= 4 {
		foot = in.H - 1
		drawText(screen, x, in.Y+foot, cw, line{{hint, th.PanelMuted}}, th.Prompt)
	}
	var rows []treeRow
	n := len(t.a.pasteBufs)
	if !t.buffers {
		rows = t.rows()
		n = len(rows)
	}
	view := foot
	top := max(0, min(t.cursor-view/2, n-view))
	for i := 0; i < view && top+i < n; i++ {
		st := th.Prompt
		if top+i == t.cursor {
			st = st.Reverse(true)
		}
		var l line
		if t.buffers {
			l = bufferLine(top+i, t.a.pasteBufs[top+i], st)
		} else {
			l = t.rowLine(rows[top+i], st)
		}
		drawText(screen, x, in.Y+i, cw, l, th.Prompt)
	}
}

// rowLine is a tab's or a pane's row of the tree.
func (t *treeView) rowLine(r treeRow, st tcell.Style) line {
	indent := ""
	if r.host != "" {
		indent = "  " // under its host's heading
	}
	if r.heading {
		l := line{untrusted(t.a.hostHeading(r.host), st.Bold(true))}
		if r.tab < 0 {
			l = append(l, seg{" (no panes shown here)", st})
		}
		return l
	}
	if r.id == "" {
		mark := ""
		if t.a.tabs[r.tab] == t.a.tab {
			mark = "*"
		}
		return line{{fmt.Sprintf("%s(%d) %d:", indent, r.tab, r.tab), st}, untrusted(t.a.tabName(r.tab)+mark, st)}
	}
	p := t.a.panes[r.id]
	if p == nil {
		return nil
	}
	l := line{{indent + "      " + r.id + " ", st}, untrusted(t.a.paneTitle(p.inst), st)}
	if r.id == t.a.tab.focus {
		l = append(l, seg{" (focused)", st})
	}
	return l
}

// bufferLine is paste buffer i's row, as tmux's choose-buffer shows it: its size, then its first
// line (and how many more it has).
func bufferLine(i int, text string, st tcell.Style) line {
	first, rest, more := strings.Cut(strings.TrimRight(text, "\n"), "\n")
	l := line{{fmt.Sprintf("(%d) %d bytes: ", i, len(text)), st}, untrusted(first, st)}
	if more {
		l = append(l, seg{fmt.Sprintf(" (+%d lines)", strings.Count(rest, "\n")+1), st})
	}
	return l
}

// breakPane moves the focused pane to a tab of its own, as tmux's break-pane (prefix !).
func (a *App) breakPane() {
	id := a.tab.focus
	if id == "" || id == a.tab.floatID || !a.tab.layout.Has(id) || len(a.tab.layout.IDs()) < 2 {
		a.say("the pane is alone in its tab: nothing to break off")
		return
	}
	rects := a.paneRects()
	next := ""
	for _, d := range []Direction{Left, Up, Right, Down} {
		if n := a.tab.layout.Neighbor(id, d, rects); n != "" {
			next = n
			break
		}
	}
	a.tab.layout.Remove(id)
	if next == "" {
		ids := a.tab.layout.IDs()
		next = ids[len(ids)-1]
	}
	a.tab.focus = next
	a.tabs = append(a.tabs, &tab{})
	a.showTab(a.tabs[len(a.tabs)-1])
	a.tab.layout.Add("", id, SideBySide)
	a.tab.focus, a.lastPane = id, next
	a.full = true
}

// killTab closes tab t (the shown one) and ends every program in it, as tmux's kill-window
// (prefix &, after a yes).
func (a *App) killTab(t *tab) {
	if t != a.tab {
		return // another tab is shown now: the question was about the one shown then
	}
	ids := a.tab.layout.IDs()
	if a.tab.floatID != "" {
		ids = append(ids, a.tab.floatID)
	}
	for _, id := range ids {
		a.closePane(id)
	}
}
