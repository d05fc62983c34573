package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/keymap"
	"tickmux/themes"
)

// The panel draws only the rows that changed since its last draw: a flooding Tick's new state
// changes a line or two of it, and the rest is not drawn again (it was, every row, 20 times a
// second). What is on screen is the same as a whole draw's.
func TestPanelDrawsOnlyChangedRows(t *testing.T) {
	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		t.Fatal(err)
	}
	defer sim.Fini()
	sim.SetSize(60, 30)
	sc := &countingScreen{Screen: sim}
	p := NewSidePanel(themes.Dark(), keymap.Default())
	p.SetRect(0, 0, 60, 30)
	body := func(n int) []line {
		var ls []line
		ls = append(ls, plain(fmt.Sprintf("STATE  seq %d", n), p.theme.PanelHeading))
		for i := range 20 {
			ls = append(ls, plain(fmt.Sprintf(`  "pad%d": "%s"`, i, strings.Repeat("x", 30)), p.theme.Panel))
		}
		return append(ls, plain(fmt.Sprintf(`  "n": %d`, n), p.theme.Panel))
	}
	p.body = body(1)
	p.Draw(sc)
	whole := sc.cells
	if whole < 58*28 {
		t.Fatalf("the first draw set %d cells, want the whole panel", whole)
	}
	sc.cells = 0
	p.body = body(2)
	p.Draw(sc)
	if sc.cells == 0 || sc.cells > 2*58 {
		t.Fatalf("a new state drew %d cells, want its two changed rows (at most %d)", sc.cells, 2*58)
	}
	sc.cells = 0
	p.Draw(sc)
	if sc.cells != 0 {
		t.Fatalf("a draw with nothing new set %d cells", sc.cells)
	}
	got := simText(sim)
	p.Invalidate()
	p.Draw(sc)
	if want := simText(sim); got != want {
		t.Fatalf("drawn row by row:\n%s\nwhole:\n%s", got, want)
	}
}

func simText(sc tcell.SimulationScreen) string {
	cells, w, h := sc.GetContents()
	var b strings.Builder
	for y := range h {
		for x := range w {
			if r := cells[y*w+x].Runes; len(r) > 0 {
				b.WriteRune(r[0])
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
