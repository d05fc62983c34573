package views

import (
	"sync/atomic"

	"github.com/gdamore/tcell/v2"
)

// trackedScreen tells the next frame when tview cleared the screen (it does on every resize
// event), so the frame redraws everything instead of only what changed.
type trackedScreen struct {
	tcell.Screen
	cleared atomic.Bool
}

func (s *trackedScreen) Clear() {
	s.cleared.Store(true)
	s.Screen.Clear()
}

// newScreen makes the screen to draw on: the real terminal, or the one given (tests).
func newScreen(given tcell.Screen) (*trackedScreen, error) {
	if given == nil {
		sc, err := tcell.NewScreen()
		if err != nil {
			return nil, err
		}
		given = sc
	}
	return &trackedScreen{Screen: given}, nil
}
