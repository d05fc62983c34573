package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// frameCells draws a frame and returns what the screen shows then, cell by cell.
func (hs *harness) frameCells() (cells []tcell.SimCell, w, h int) {
	hs.onUI(func() {}) // a frame
	return onUIValue(hs, func() []tcell.SimCell {
		c, cw, ch := hs.screen.GetContents()
		w, h = cw, ch
		return append([]tcell.SimCell(nil), c...)
	}), w, h
}

// resize gives the terminal a new size, as a view's terminal resized does.
func (hs *harness) resize(w, h int) {
	hs.screen.SetSize(w, h)
	hs.screen.PostEvent(tcell.NewEventResize(w, h))
	hs.sync()
}

func overlayCellText(c tcell.SimCell) string {
	if len(c.Runes) == 0 {
		return " "
	}
	return string(c.Runes)
}

// Issue 42 item 9: the help (prefix ?) and the tree (prefix w) are boxes with a border in the
// theme's colours, drawn inside the workspace: never over the side panel (its edge included) or
// the status bar, at every size from 200x50 down to 10x3, the panel shown or not, without a crash.
func TestOverlaysHaveABorderInsideTheWorkspace(t *testing.T) {
	hs := newHarness(t, 200, 50)
	hs.openTick("plain")
	hs.start()
	hs.waitFor("VIEWTICK")
	type size struct {
		w, h  int
		panel bool // shown whatever the width (prefix t)
	}
	sizes := []size{{200, 50, false}, {160, 50, false}, {120, 40, false}, {100, 30, false}, {80, 24, false},
		{80, 24, true}, {60, 20, true}, {40, 12, false}, {40, 12, true}, {20, 6, false}, {12, 4, false},
		{10, 3, false}, {10, 3, true}}
	for _, sz := range sizes {
		hs.onUI(func() { hs.app.panelShown, hs.app.panelSet = sz.panel, sz.panel })
		hs.resize(sz.w, sz.h)
		for _, ov := range []struct {
			name, key string
			open      func() bool
		}{
			{"help", "?", func() bool { return hs.app.help.open }},
			{"tree", "w", func() bool { return hs.app.tree.open }},
		} {
			what := fmt.Sprintf("%s at %dx%d (panel %v)", ov.name, sz.w, sz.h, sz.panel)
			before, w, h := hs.frameCells()
			if w != sz.w || h != sz.h {
				t.Fatalf("%s: the screen is %dx%d", what, w, h)
			}
			hs.prefix()
			hs.typeText(ov.key)
			if !onUIValue(hs, ov.open) {
				t.Fatalf("%s: not open", what)
			}
			after, _, _ := hs.frameCells()
			// Where the overlay may draw: the workspace (not the panel, not the status bar);
			// when it is too small for one, the whole screen above the status bar.
			ws := onUIValue(hs, func() Rect { return hs.app.workspaceRect(w, h) })
			if ws.W < 10 || ws.H < 3 {
				ws = Rect{0, 0, w, h - 1}
			}
			// The overlay's cells: its border's glyphs, and its colours (the theme's prompt and
			// card_border roles, which nothing else outside it draws with here).
			th := hs.app.theme
			overlay := func(c tcell.SimCell) bool {
				return strings.ContainsAny(overlayCellText(c), "═║╔╗╚╝") || c.Style == th.Prompt || c.Style == th.CardBorder
			}
			var corner *tcell.SimCell
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					b, a := before[y*w+x], after[y*w+x]
					if overlayCellText(a) == "╔" && corner == nil {
						corner = &after[y*w+x]
					}
					if !ws.Contains(x, y) && overlay(a) && !overlay(b) {
						t.Errorf("%s: drawn outside the workspace %v at %d,%d: %q, was %q", what, ws, x, y, overlayCellText(a), overlayCellText(b))
					}
				}
			}
			if ws.W >= 4 && ws.H >= 3 {
				if corner == nil {
					t.Errorf("%s: no border:\n%s", what, hs.text())
				} else if corner.Style != hs.app.theme.CardBorder {
					t.Errorf("%s: the border is not in the theme's card_border colours", what)
				}
			}
			hs.key(tcell.KeyEscape, 0, tcell.ModNone)
			if onUIValue(hs, ov.open) {
				t.Fatalf("%s: Esc did not close it", what)
			}
		}
	}
}
