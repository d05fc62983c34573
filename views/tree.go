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

func (t *treeView) draw(screen tcell.Screen, w, h int) {
	th := t.a.theme
	bw, bh := min(w-4, 80), max(6, h-4)
	x, y := (w-bw)/2, 1
	if w < 100 {
		bw, bh, x, y = w, max(6, h-1), 0, 0
	}
	for j := y; j < y+bh; j++ {
		for i := x; i < x+bw; i++ {
			screen.SetContent(i, j, ' ', nil, th.Prompt)
		}
	}
	drawText(screen, x+1, y, bw-2, line{{"choose a tab or a pane", th.PanelHeading}}, th.Prompt)
	rows := t.rows()
	view := bh - 3
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
		drawText(screen, x+1, y+2+i, bw-2, l, th.Prompt)
	}
	drawText(screen, x+1, y+bh-1, bw-2, line{{"↑↓ or j k move · Enter go there · Esc close", th.PanelMuted}}, th.Prompt)
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
