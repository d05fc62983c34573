package views

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// The terminal going away (an error event from the screen) while programs flood their panes:
// tview would stop its loop under the App's goroutines, which waited for ever to hand it a frame,
// and Run never returned. Run returns, with the screen's error.
func TestRunReturnsWhenTheScreenFails(t *testing.T) {
	for i := 0; i < 5; i++ {
		hs := newHarness(t, 120, 30)
		hs.start()
		hs.openShell("echo flooding; exec yes flood-line", "flood-line")
		hs.openShell("exec yes other-line", "other-line")
		// The UI is busy when the error arrives, so the App's goroutines have handed it frames
		// that wait beside the error in tview's queues.
		// The work is handed over as the App's goroutines hand it (post): tview's own QueueUpdate
		// would wait for ever when its loop stopped before the update was queued.
		busy, started := make(chan struct{}), make(chan struct{})
		go func() { // owner: this test; ends when the UI ran the update
			hs.app.postThen(func() { close(started); time.Sleep(100 * time.Millisecond) }, false)
			close(busy)
		}()
		<-started // the UI is busy: a sentinel, not a pause
		hs.screen.PostEvent(tcell.NewEventError(errors.New("the terminal went away")))
		// More work queued behind the error: a loop that stopped at the error would leave it,
		// and whoever queued it, waiting.
		busy2 := make(chan struct{})
		go func() { // owner: this test; ends when the UI ran the update or the App refused it
			hs.app.postThen(func() { time.Sleep(20 * time.Millisecond) }, false)
			close(busy2)
		}()
		defer func() { <-busy2 }()
		select {
		case err := <-hs.done:
			hs.running = false
			if err == nil || !strings.Contains(err.Error(), "went away") {
				t.Fatalf("Run returned %v, want the screen's error", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Run did not return after the screen failed")
		}
		hs.h.Close()
		<-busy
	}
}

// Work handed to the UI loop while the App stops: each hand-over's helper goroutine ends, none
// is left waiting for a loop that stopped (issue 24, item 8).
func TestNoHandoverStrandedAtStop(t *testing.T) {
	for i := 0; i < 20; i++ {
		hs := newHarness(t, 80, 24)
		hs.start()
		hs.waitFor("shell") // the loop runs
		var posters sync.WaitGroup
		for j := 0; j < 4; j++ {
			posters.Add(1)
			go func() { // owner: this test; ends once post says the loop has stopped
				defer posters.Done()
				for hs.app.post(func() {}) {
				}
			}()
		}
		hs.app.Stop()
		<-hs.done
		hs.running = false
		posters.Wait()
		hs.h.Close()
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "views.(*App).postThen.func") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hand-over goroutines are left waiting after the App stopped:\n%s", stacks)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
