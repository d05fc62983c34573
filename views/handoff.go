package views

import (
	"sync"

	"github.com/gdamore/tcell/v2"
)

// handoff is the App's state for handing work to the UI loop.
type handoff struct {
	uiStopped chan struct{} // closed once tview's loop has returned
	errMu     sync.Mutex
	runErr    error // the screen's error, which Run returns

	// Hand-overs in flight: Stop closes the door (postsClosed) and waits for them (posting)
	// before it stops tview's loop, so that no hand-over is left in tview's queue, its helper
	// goroutine waiting for ever for a loop that no longer runs.
	postMu      sync.Mutex
	postsClosed bool
	posting     sync.WaitGroup
}

// closePosts refuses every hand-over from now on (post returns false) and waits for those in
// flight; tview's loop runs them (skipping f: the App is stopping). Called by Stop, off the UI
// goroutine, while the loop still runs.
func (a *App) closePosts() {
	a.postMu.Lock()
	a.postsClosed = true
	a.postMu.Unlock()
	inFlight := make(chan struct{})
	go func() { // owner: closePosts; ends with the last hand-over (never, if tview stopped by itself)
		a.posting.Wait()
		close(inFlight)
	}()
	select {
	case <-inFlight:
	case <-a.uiStopped: // the loop is gone: nothing it had queued will run
	}
}

// runError is what Run returns: the screen's error if there was one, else tview's.
func (a *App) runError(err error) error {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	if a.runErr != nil {
		return a.runErr
	}
	return err
}

// post runs f on the UI goroutine, then draws (unless no view is attached or expected), and
// waits for it; once the App is stopping, f is skipped. It returns false as soon as the UI loop
// has stopped: tview's QueueUpdate would wait for ever for a loop that no longer runs, and Run,
// waiting for the App's goroutines, with it.
func (a *App) post(f func()) bool { return a.postThen(f, a.drawing()) }

// postThen is post, drawing after f only if draw is set.
func (a *App) postThen(f func(), draw bool) bool { return a.postWait(f, draw, false) }

// postFrame is post for a frame's setup, which leaves every key where it goes: it closes no
// typing lane (lane.go).
func (a *App) postFrame(f func()) bool { return a.postWait(f, a.drawing(), true) }

func (a *App) postWait(f func(), draw, frame bool) bool {
	ran, ok := a.handOver(f, draw, frame)
	if !ok {
		return false
	}
	select {
	case <-ran:
		return true
	case <-a.uiStopped:
		return false
	}
}

// handOver queues f (then a draw, if draw is set) for the UI goroutine without waiting for it
// to run; ran is closed once it has. ok is false once the App is stopping: f will not run.
// frame: f changes nothing a key depends on (a frame, a Tick's new state), so it leaves the
// typing lanes open (any other work closes them first: lane.go).
func (a *App) handOver(f func(), draw, frame bool) (ran chan struct{}, ok bool) {
	a.postMu.Lock()
	if a.postsClosed {
		a.postMu.Unlock()
		return nil, false
	}
	a.posting.Add(1)
	a.postMu.Unlock()
	ran = make(chan struct{})
	// tview's QueueUpdate has no way out, so it waits on a goroutine of its own. Only a tview
	// loop that stopped by itself could strand it, and failed and Stop see that it never does:
	// screen errors stop the App in order, and Stop lets every hand-over it accepted run
	// (closePosts) before stopping tview.
	queue := a.app.QueueUpdate
	if draw {
		queue = a.app.QueueUpdateDraw
	}
	go func() { // owner: tview's loop, which ends it by running the update
		queue(func() {
			select {
			case <-a.done:
				// Stopping: the App's goroutines are being waited for; do nothing more.
			default:
				if a.keysWaiting() {
					a.kf.updates++ // applied now, drawn after the key (keysfirst.go)
				}
				if !frame {
					a.routeChanged()
				}
				f()
			}
		})
		close(ran)
		a.posting.Done()
	}()
	return ran, true
}

// failed handles an error from the screen (the terminal went away): instead of letting tview stop
// its loop at once under the App's goroutines, the App stops in order and Run returns the error.
// Called on tview's event goroutine.
func (a *App) failed(err *tcell.EventError) {
	a.errMu.Lock()
	if a.runErr == nil {
		a.runErr = err
	}
	a.errMu.Unlock()
	a.Stop()
}
