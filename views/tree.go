package views

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
)

// treeView is tmux's choose-tree (prefix w): every tab and, under it, its panes; Up and Down (or
// k and j) move, Enter goes to the tab or pane chosen, Esc or q closes.
type treeView struct {
	a      *App
	open   bool
	cursor int
}

// treeRow is one line of the tree: a tab, or a pane of it (id set).
type treeRow struct {
	tab int
	id  string
}

func newTreeView(a *App) *treeView { return &treeView{a: a} }

// show opens the tree with the cursor on the focused pane.
func (t *treeView) show() {
	t.open, t.cursor = true, 0
	cur := t.a.tabIndex()
	for i, r := range t.rows() {
		if r.tab == cur && r.id == t.a.tab.focus {
			t.cursor = i
		}
	}
}

// rows lists the tabs in order, each followed by its panes in reading order (the float last).
func (t *treeView) rows() []treeRow {
	a := t.a
	var out []treeRow
	for i, tb := range a.tabs {
		out = append(out, treeRow{tab: i})
		for _, id := range tb.layout.IDs() {
			out = append(out, treeRow{tab: i, id: id})
		}
		if tb.floatID != "" {
			out = append(out, treeRow{tab: i, id: tb.floatID})
		}
	}
	return out
}

func (t *treeView) handle(ev *tcell.EventKey) {
	rows := t.rows()
	switch {
	case ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyRune && ev.Rune() == 'q':
		t.open = false
	case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyRune && ev.Rune() == 'k':
		t.cursor = max(0, t.cursor-1)
	case ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyRune && ev.Rune() == 'j':
		t.cursor = min(len(rows)-1, t.cursor+1)
	case ev.Key() == tcell.KeyEnter:
		t.open = false
		if t.cursor < len(rows) {
			t.choose(rows[t.cursor])
		}
	}
}

// choose shows the row's tab, and focuses its pane.
func (t *treeView) choose(r treeRow) {
	a := t.a
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

// draw shows the tree in a box inside the workspace: the rows around the cursor and a footer
// (dropped in a short box).
func (t *treeView) draw(screen tcell.Screen, w, h int) {
	th := t.a.theme
	in := drawBox(screen, t.a.overlayRect(w, h, 82), th.CardBorder, th.Prompt, line{{" choose a tab or a pane ", th.CardBorder}})
	if in.W < 3 || in.H < 1 {
		return
	}
	x, cw := in.X+1, in.W-2
	foot := in.H
	if in.H >= 4 {
		foot = in.H - 1
		drawText(screen, x, in.Y+foot, cw, line{{"↑↓ or j k move · Enter go there · Esc close", th.PanelMuted}}, th.Prompt)
	}
	rows := t.rows()
	view := foot
	top := max(0, min(t.cursor-view/2, len(rows)-view))
	for i := 0; i < view && top+i < len(rows); i++ {
		r := rows[top+i]
		st := th.Prompt
		if top+i == t.cursor {
			st = st.Reverse(true)
		}
		var l line
		if r.id == "" {
			mark := ""
			if t.a.tabs[r.tab] == t.a.tab {
				mark = "*"
			}
			l = line{{fmt.Sprintf("(%d) %d:", r.tab, r.tab), st}, untrusted(t.a.tabName(r.tab)+mark, st)}
		} else if p := t.a.panes[r.id]; p != nil {
			l = line{{"      " + r.id + " ", st}, untrusted(t.a.paneTitle(p.inst), st)}
			if r.id == t.a.tab.focus {
				l = append(l, seg{" (focused)", st})
			}
		}
		drawText(screen, x, in.Y+i, cw, l, th.Prompt)
	}
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
