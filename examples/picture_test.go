package examples

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// render draws with draw on a simulated w x h screen and returns it as text, one line per row
// with trailing blanks trimmed, so tests can compare screens with ASCII pictures.
func render(t *testing.T, w, h int, draw func(tcell.Screen)) string {
	t.Helper()
	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		t.Fatal(err)
	}
	defer sim.Fini()
	sim.SetSize(w, h)
	sim.Clear()
	draw(sim)
	sim.Show()
	cells, cw, ch := sim.GetContents()
	var b strings.Builder
	for y := range ch {
		var row strings.Builder
		for x := range cw {
			if c := cells[y*cw+x]; len(c.Runes) > 0 {
				row.WriteString(string(c.Runes))
			} else {
				row.WriteByte(' ')
			}
		}
		b.WriteString(strings.TrimRight(row.String(), " ") + "\n")
	}
	return b.String()
}

// picture trims the leading newline of a raw string literal picture.
func picture(s string) string { return strings.TrimPrefix(s, "\n") }

func key(r rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone) }

func special(k tcell.Key) *tcell.EventKey { return tcell.NewEventKey(k, 0, tcell.ModNone) }
