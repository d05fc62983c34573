package mirror

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/internal/screentest"
	"tickmux/server/viewterm"
)

var _ pastedText = (*viewterm.EventPasteText)(nil) // what a view's terminal sends is what the Mirror reads

// lockedScreen is a view's terminal that the test reads between frames (a simulation screen's
// contents change under its reader while it shows a frame).
type lockedScreen struct {
	tcell.SimulationScreen
	mu sync.Mutex
}

func (s *lockedScreen) PutCell(x, y int, text string, st tcell.Style, _ int) { s.Put(x, y, text, st) }

func (s *lockedScreen) Show() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Show()
}

// viewText is what the view's terminal shows.
func viewText(sc *lockedScreen) string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return screentest.Text(sc.SimulationScreen)
}

// A frame that changes nothing on screen sends the views nothing: tview draws after every key,
// and a key typed into a pane changes nothing until the program echoes it, whose frame would
// wait behind an empty one.
func TestMirrorSendsNoEmptyFrame(t *testing.T) {
	m := New()
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	sc := &lockedScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	sc.SetSize(80, 24)
	if err := m.Attach("a", sc, nil); err != nil {
		t.Fatal(err)
	}
	v := m.views["a"]
	m.PutStr(0, 0, "first")
	m.Show()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(viewText(sc), "first"); {
		if time.Now().After(deadline) {
			t.Fatalf("the view never showed the first frame:\n%s", viewText(sc))
		}
		time.Sleep(5 * time.Millisecond)
	}
	m.PutStr(0, 1, "second")
	m.Show()
	taken := func() bool { // the copier took what the frame changed
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(v.list) == 0 && !v.whole && !v.sync
	}
	for deadline := time.Now().Add(20 * time.Second); !taken(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard, not a timing
			t.Fatal("the view's copier never took the second frame")
		}
	}
	n := v.pokes.Load()
	m.Show() // nothing drawn since
	if got := v.pokes.Load(); got != n {
		t.Errorf("a frame that changed nothing poked the view")
	}
	m.ShowCursor(3, 3)
	m.Show()
	if got := v.pokes.Load(); got != n+1 {
		t.Errorf("a frame that moved the cursor did not poke the view")
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(viewText(sc), "second"); {
		if time.Now().After(deadline) {
			t.Fatalf("the view never showed the second frame:\n%s", viewText(sc))
		}
		time.Sleep(5 * time.Millisecond)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if x, y, vis := sc.GetCursor(); x == 3 && y == 3 && vis {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the view never showed the cursor the last frame moved")
		}
	}
}
