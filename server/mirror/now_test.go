package mirror

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// nowScreen is a view's screen that can show a frame without waiting, as viewterm's: it counts
// the frames shown through ShowNow (on the goroutine that called the Mirror's Show) apart from
// those its copier showed. takes: what ShowNow reports (false: the terminal took part of it).
type nowScreen struct {
	lockedScreen
	now, copied atomic.Int32
	takes       atomic.Bool
	shown       chan struct{} // a frame from the copier
}

func (s *nowScreen) ShowNow() bool {
	s.lockedScreen.Show()
	s.now.Add(1)
	return s.takes.Load()
}

func (s *nowScreen) Show() {
	s.lockedScreen.Show()
	s.copied.Add(1)
	s.shown <- struct{}{}
}

// waitCopied waits for a frame from the copier, and for the copier to be done with it.
func (s *nowScreen) waitCopied(t *testing.T, m *Mirror) {
	t.Helper()
	select {
	case <-s.shown:
	case <-time.After(20 * time.Second): // a hang guard, not a timing
		t.Fatal("the copier showed no frame")
	}
	m.mu.Lock()
	v := m.views["v"]
	m.mu.Unlock()
	v.drawMu.Lock()
	v.drawMu.Unlock()
}

func rowText(s *lockedScreen, y, w int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for x := 0; x < w; x++ {
		str, _, _ := s.Get(x, y)
		b.WriteString(str)
	}
	return b.String()
}

// Keys first: a small frame (a key's echo) reaches the view from the goroutine that shows it,
// the App's, with no wake-up of the view's copier, which on a loaded machine waited for a core
// longer than the rest of the echo's path. A large frame, and whatever the terminal did not take
// at once, is the copier's.
func TestMirrorSmallFrameShownWithoutTheCopier(t *testing.T) {
	const w, h = 80, 24 // more cells than maxNowCells
	m := NewSized(w, h)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	sc := &nowScreen{lockedScreen: lockedScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}, shown: make(chan struct{}, 8)}
	sc.takes.Store(true)
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	sc.SetSize(w, h)
	if err := m.Attach("v", sc, nil); err != nil {
		t.Fatal(err)
	}
	m.PutStr(0, 0, "$ ")
	m.Show()
	sc.waitCopied(t, m) // the view's first frame is whole: the copier's
	if n := sc.now.Load(); n != 0 {
		t.Fatalf("a whole frame was shown by the App's goroutine (%d)", n)
	}

	m.PutStr(2, 0, "x") // the echo
	m.Show()
	if n := sc.now.Load(); n != 1 {
		t.Fatalf("the echo's frame was not shown by the goroutine that showed it (ShowNow %d times, copier %d)", n, sc.copied.Load())
	}
	if got := rowText(&sc.lockedScreen, 0, 4); got != "$ x " {
		t.Fatalf("the view shows %q", got)
	}

	for y := 0; y < h; y++ { // every cell changes: the copier builds that frame
		m.PutStr(0, y, strings.Repeat("z", w))
	}
	m.Show()
	sc.waitCopied(t, m)
	if n := sc.now.Load(); n != 1 {
		t.Fatalf("a frame of %d cells was shown by the App's goroutine", w*h)
	}

	sc.takes.Store(false) // the terminal takes part of the next frame: the copier writes the rest
	m.PutStr(0, 0, "y")
	m.Show()
	if n := sc.now.Load(); n != 2 {
		t.Fatalf("ShowNow ran %d times, want 2", n)
	}
	sc.waitCopied(t, m)
}
