package views

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/gdamore/tcell/v2"

	"tickmux/vt"
)

// rowCountingScreen counts the cells drawn on each row.
type rowCountingScreen struct {
	tcell.SimulationScreen
	rows map[int]int
}

func (c *rowCountingScreen) SetContent(x, y int, r rune, comb []rune, st tcell.Style) {
	c.rows[y]++
	c.SimulationScreen.SetContent(x, y, r, comb, st)
}

// A redraw draws the rows whose look changed, however little (a colour, an attribute, a mark
// on a letter), and only those.
func TestViewRedrawsExactlyTheRowsThatChanged(t *testing.T) {
	f := newFakeBackend(12, 4)
	v := newTestView(t, f)
	f.term.Write([]byte("abc\r\ndef\r\nghi\r\njkl"))
	sim, _ := drawView(t, v, 12, 4)
	sc := &rowCountingScreen{SimulationScreen: sim, rows: map[int]int{}}
	for _, step := range []struct {
		name, write string
		row         int
		check       func(cells []tcell.SimCell) bool
	}{
		{"a colour", "\x1b[1;2H\x1b[32mb\x1b[m", 0, func(c []tcell.SimCell) bool {
			fg, _, _ := c[1].Style.Decompose()
			return fg == tcell.PaletteColor(2)
		}},
		{"an attribute", "\x1b[3;3H\x1b[4mi\x1b[m", 2, func(c []tcell.SimCell) bool {
			_, _, a := c[2*12+2].Style.Decompose()
			return a&tcell.AttrUnderline != 0
		}},
		{"a mark", "\x1b[2;1Hd\u0301", 1, func(c []tcell.SimCell) bool {
			return string(c[12].Runes) == "d\u0301"
		}},
		{"a letter", "\x1b[4;3HL", 3, func(c []tcell.SimCell) bool {
			return string(c[3*12+2].Runes) == "L"
		}},
	} {
		f.term.Write([]byte(step.write))
		clear(sc.rows)
		v.Draw(sc)
		sc.Show()
		cells, _, _ := sim.GetContents()
		if !step.check(cells) {
			t.Errorf("%s changed on row %d: the redraw does not show it\n%s", step.name, step.row, screenPicture(sim))
		}
		for row, n := range sc.rows {
			if row != step.row {
				t.Errorf("%s changed on row %d: row %d was drawn again too (%d cells)", step.name, step.row, row, n)
			}
		}
		if sc.rows[step.row] == 0 {
			t.Errorf("%s changed on row %d: the row was not drawn", step.name, step.row)
		}
	}
}

// Between draws a view keeps no copy of its terminal's cells, neither the snapshot it drew nor
// the rows it drew (48 bytes a cell each, for every pane, before): a hash per row, and the views
// share one snapshot's cells.
func TestIdleViewKeepsNoCells(t *testing.T) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	const cols, rows, views = 200, 60, 4
	var vs []*TerminalView
	for range views {
		f := newFakeBackend(cols, rows)
		v := newTestView(t, f)
		for i := 0; i < rows; i++ {
			f.term.Write([]byte("\x1b[33mline \u00e9\u0301 of text\x1b[m\r\n"))
		}
		drawView(t, v, cols, rows)
		f.term.Write([]byte("more"))
		drawView(t, v, cols, rows)
		vs = append(vs, v)
	}
	runtime.GC()
	runtime.GC() // the profile is as of the last collection that completed
	records := make([]runtime.MemProfileRecord, 1<<14)
	n, ok := runtime.MemProfile(records, false)
	if !ok {
		t.Fatalf("more than %d heap profile records", len(records))
	}
	held := int64(0)
	for _, r := range records[:n] {
		if r.InUseBytes() == 0 {
			continue
		}
		// Made for the view's draws (not by the terminal it sizes or the screen it draws on).
		frames := runtime.CallersFrames(r.Stack())
		for {
			fr, more := frames.Next()
			if strings.Contains(fr.Function, "Resize") || strings.Contains(fr.Function, "tcell") {
				break
			}
			if strings.Contains(fr.Function, "views.(*TerminalView).Draw") {
				held += r.InUseBytes()
				break
			}
			if !more {
				break
			}
		}
	}
	screen := int64(cols * rows * int(unsafe.Sizeof(vt.Cell{})))
	t.Logf("%d drawn %dx%d views hold %d bytes of what their draws allocated; a screen of cells is %d", views, cols, rows, held, screen)
	if held >= 2*screen {
		t.Errorf("%d drawn %dx%d views hold %d bytes of what their draws allocated, a screen of cells is %d: they keep cells", views, cols, rows, held, screen)
	}
	runtime.KeepAlive(vs)
}

// The views' snapshot buffer follows the panes: once they are small (split, or the terminal
// shrank) for a while, it is no longer the size of the largest pane ever drawn.
func TestDrawBufferFollowsThePanes(t *testing.T) {
	big := newTestView(t, newFakeBackend(200, 60))
	drawView(t, big, 200, 60)
	small := newTestView(t, newFakeBackend(20, 5))
	sc, _ := drawView(t, small, 20, 5)
	for range 2 * fitDraws { // a full period of draws after the one that saw the big pane
		small.Draw(sc)
	}
	drawBuf.mu.Lock()
	c := cap(drawBuf.cells)
	drawBuf.mu.Unlock()
	if c > 2*20*5 {
		t.Errorf("after %d draws of a 20x5 pane the snapshot buffer holds %d cells, as for the 200x60 one", 2*fitDraws, c)
	}
}
