package views

import (
	"testing"

	"tickmux/server/mirror"
)

// A program opened before the first frame (a server's first shell: it is opened before Run)
// starts at the size that frame gives its pane, not at a guess the frame then corrects. It
// started at 20x7 (until tview lays the root out, the root's rect is tview's default 15x10)
// and the first frame resized it a few milliseconds later, while it was starting: bash can miss
// that SIGWINCH, and then edits its line for a 20-column terminal (C-u moved the cursor up and
// erased nothing: the typed text stayed on screen, and the next echo's frame skipped the cells
// that happened to match it).
func TestProgramOpenedBeforeTheFirstFrameStartsAtItsSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server bool
		w, h   int
	}{
		{"server", true, 160, 45},
		{"terminal", false, 120, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hs *harness
			var vh *viewsHarness
			if tc.server {
				// As the server: the Mirror is sized as the terminal tickmux was started in.
				m := &watchedMirror{Mirror: mirror.NewSized(tc.w, tc.h)}
				hs = newHarnessOn(t, m)
				vh = &viewsHarness{harness: hs, mirror: m, views: map[string]*lockedScreen{}, left: map[string]string{}}
			} else {
				hs = newHarness(t, tc.w, tc.h)
			}
			in := hs.openShell("printf 'size-ready\\n'; exec cat", "")
			startCols, startRows := in.Process().Terminal().Size()
			hs.start()
			if tc.server {
				vh.attach("a", tc.w, tc.h)
				vh.waitView("a", "size-ready", true)
			} else {
				hs.waitFor("size-ready")
			}
			// The frames drawn by now have sized the pane's program to the pane.
			cols, rows := in.Process().Terminal().Size()
			if startCols != cols || startRows != rows {
				t.Fatalf("the program started at %dx%d, and its pane sized it %dx%d at the first frame", startCols, startRows, cols, rows)
			}
		})
	}
}
