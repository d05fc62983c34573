package views

import (
	"github.com/gdamore/tcell/v2"
)

// keptScreen keeps what was drawn from one frame to the next. tview clears the screen before
// every draw and redraws everything; tickmux instead redraws only what changed (root.go), so the
// clear must not happen: the cell buffer stays, and tcell still sends the terminal only the cells
// that differ. A resize is seen by the frame as a new size, and redraws everything.
type keptScreen struct {
	tcell.Screen
	// onError receives the screen's errors instead of tview, which would stop its loop at once.
	onError func(*tcell.EventError)
	// hold reports that a key waits in the queue: the frame is left to the draw after it.
	hold func() bool
}

// Show shows the frame, unless a key waits: then the draw after the key shows it (keys first).
func (s *keptScreen) Show() {
	if s.hold != nil && s.hold() {
		return
	}
	s.Screen.Show()
}

// PollEvent hands errors to onError and returns the other events.
func (s *keptScreen) PollEvent() tcell.Event {
	for {
		ev := s.Screen.PollEvent()
		if e, ok := ev.(*tcell.EventError); ok && s.onError != nil {
			s.onError(e)
			continue
		}
		return ev
	}
}

// Clear keeps the cells: every frame draws over what changed.
func (s *keptScreen) Clear() {}

// newScreen makes the screen to draw on: the real terminal, or the one given (tests).
func newScreen(given tcell.Screen) (*keptScreen, error) {
	if given == nil {
		sc, err := tcell.NewScreen()
		if err != nil {
			return nil, err
		}
		given = sc
	}
	return &keptScreen{Screen: given}, nil
}
