package views

import (
	"github.com/gdamore/tcell/v2"

	"tickmux/config"
)

// Shared borders (issue 42 item 21), as tmux draws them: one line between panes instead of a box
// around each, the pane's title on the line at its top, a line at its right where another pane is
// beside it. A pane then gives up one row and at most one column to its frame instead of two of
// each: at 80x24, the demo's small panes show their content, not only their footers. The
// floating pane keeps its box: it floats over the others.

// sharedBorders reports whether the tiled panes draw shared borders on a w x h screen: always,
// never, or (auto, the default) on a terminal under 100x30.
func (a *App) sharedBorders(w, h int) bool {
	switch a.cfg.PaneBorders {
	case config.BordersShared:
		return true
	case config.BordersBoxed:
		return false
	}
	return w < 100 || h < 30
}

// inner is where the pane's terminal goes inside r: within its box, or below its title line and
// left of its right line.
func (p *Pane) inner(r Rect) Rect {
	if !p.shared || p.float {
		return Rect{r.X + 1, r.Y + 1, r.W - 2, r.H - 2}
	}
	in := Rect{r.X, r.Y + 1, r.W, r.H - 1}
	if p.sepRight {
		in.W--
	}
	return in
}

// drawSharedLines draws the title line across the pane's top and its line at the right.
func (p *Pane) drawSharedLines(screen tcell.Screen, border tcell.Style, h1 rune) {
	x, y, w, h := p.GetRect()
	for i := x; i < x+w; i++ {
		screen.SetContent(i, y, h1, nil, border)
	}
	if !p.sepRight {
		return
	}
	v1, tee := '│', '┬'
	if p.focused {
		v1, tee = '┃', '┳'
	}
	screen.SetContent(x+w-1, y, tee, nil, border)
	for j := y + 1; j < y+h; j++ {
		screen.SetContent(x+w-1, j, v1, nil, border)
	}
}
