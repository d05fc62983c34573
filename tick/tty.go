package tick

import (
	"errors"
	"fmt"
	"os"

	"github.com/gdamore/tcell/v2"
)

// ErrNoTerminal means the process has no controlling terminal to draw on: it was started by a
// test, a pipeline or `tickmux check` without a PTY. Run then serves the protocol headless.
var ErrNoTerminal = errors.New("tick: no controlling terminal (/dev/tty) to draw on")

// ttyPath is the controlling terminal. tickmux makes the pane's PTY the Tick's controlling
// terminal (HOST.md H-T1), so drawing here shows in the pane; stdout is never involved.
const ttyPath = "/dev/tty"

// OpenScreen returns an initialised tcell screen on the controlling terminal, or ErrNoTerminal.
// Run calls it for its UI; call it yourself only to drive a screen without Run. The caller must
// call Fini on the screen, which restores the terminal.
func OpenScreen() (tcell.Screen, error) {
	// tcell opens /dev/tty itself (tcell.NewDevTty); probe first so a missing terminal is told
	// apart from a broken one.
	f, err := os.OpenFile(ttyPath, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTerminal, err)
	}
	f.Close()
	screen, err := tcell.NewScreen()
	if err != nil {
		return nil, fmt.Errorf("tick: cannot draw on %s (TERM=%q): %w", ttyPath, os.Getenv("TERM"), err)
	}
	if err := screen.Init(); err != nil {
		return nil, fmt.Errorf("tick: cannot set up %s for drawing: %w", ttyPath, err)
	}
	return screen, nil
}
