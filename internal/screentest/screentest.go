// Package screentest holds the simulated view terminals that the tests of server/mirror and views
// both use: a screen that keeps the text of every frame shown on it, and the text a screen shows.
package screentest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// Frames is a view's terminal that keeps the text of every frame shown on it.
type Frames struct {
	tcell.SimulationScreen
	mu     sync.Mutex
	frames []string
	shown  chan struct{}
}

// NewFrames makes a w x h Frames, initialised.
func NewFrames(t testing.TB, w, h int) *Frames {
	t.Helper()
	s := &Frames{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), shown: make(chan struct{}, 16)}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(w, h)
	return s
}

// PutCell draws as the Mirror's views are drawn on.
func (s *Frames) PutCell(x, y int, text string, st tcell.Style, _ int) { s.Put(x, y, text, st) }

// Show shows the frame and keeps its text, one string of w x h cells.
func (s *Frames) Show() {
	s.SimulationScreen.Show()
	cells, w, h := s.GetContents()
	var b strings.Builder
	for i := 0; i < w*h; i++ {
		if r := cells[i].Runes; len(r) > 0 {
			b.WriteString(string(r))
		} else {
			b.WriteByte(' ')
		}
	}
	s.mu.Lock()
	s.frames = append(s.frames, b.String())
	s.mu.Unlock()
	s.shown <- struct{}{}
}

// Frames is the text of every frame shown so far.
func (s *Frames) Frames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.frames...)
}

// WaitFrame waits for the next frame shown and returns the last frame's text.
func (s *Frames) WaitFrame(t testing.TB) string {
	t.Helper()
	select {
	case <-s.shown:
	case <-time.After(10 * time.Second): // a hang guard, not a timing
		t.Fatal("no frame was shown")
	}
	f := s.Frames()
	return f[len(f)-1]
}

// Text is what sc shows, a line per row. The caller keeps sc still meanwhile.
func Text(sc tcell.SimulationScreen) string {
	cells, w, h := sc.GetContents()
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x := 0; x < w && y*w+x < len(cells); x++ {
			if r := cells[y*w+x].Runes; len(r) > 0 {
				b.WriteString(string(r))
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
