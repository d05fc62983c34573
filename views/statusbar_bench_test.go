package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/themes"
)

// statusBarWith is a status bar listing n instances, as with n Ticks running.
func statusBarWith(n int) *StatusBar {
	b := NewStatusBar(themes.Dark(), keymap.Default())
	for i := 0; i < n; i++ {
		b.items = append(b.items, statusItem{id: fmt.Sprintf("hosted:%d", i+1), title: fmt.Sprintf("Flood Tick %d", i+1),
			updates: uint64(1000 * i), status: host.StatusReady, focused: i == 0})
	}
	b.now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	b.SetRect(0, 0, 200, 1)
	return b
}

// BenchmarkStatusBarDraw50 draws the status bar with 50 Ticks on a 200-column screen: what the
// TUI pays for its chrome each time fifty busy Ticks change their counters.
func BenchmarkStatusBarDraw50(b *testing.B) {
	sc := tcell.NewSimulationScreen("UTF-8")
	if err := sc.Init(); err != nil {
		b.Fatal(err)
	}
	defer sc.Fini()
	sc.SetSize(200, 50)
	bar := statusBarWith(50)
	b.ReportAllocs()
	for b.Loop() {
		bar.Draw(sc)
	}
}

// The items stop short of the help hint, with a blank column between, and show they were cut.
func TestStatusBarKeepsClearOfTheHint(t *testing.T) {
	sc := tcell.NewSimulationScreen("UTF-8")
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	defer sc.Fini()
	for w := 40; w <= 160; w++ {
		sc.SetSize(w, 1)
		bar := statusBarWith(5)
		bar.items[1].title = "/bin/bash"
		bar.SetRect(0, 0, w, 1)
		bar.Draw(sc)
		sc.Show()
		cells, _, _ := sc.GetContents()
		var row []rune
		for i := 0; i < w; i++ {
			if len(cells[i].Runes) == 0 {
				row = append(row, ' ')
				continue
			}
			row = append(row, cells[i].Runes[0])
		}
		text := string(row)
		hint := []rune("C-b ? help  12:00 ")
		at := w - len(hint)
		if string(row[at:]) != string(hint) || row[at-1] != ' ' {
			t.Fatalf("width %d: the items run into the hint: %q", w, text)
		}
		if !strings.Contains(text, "hosted:5") && !strings.Contains(text, "…") {
			t.Fatalf("width %d: the cut is not shown: %q", w, text)
		}
	}
}
