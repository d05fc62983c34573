package server

import (
	"sync/atomic"
	"testing"
	"time"
)

// spec: issue 24 item 4. A background view's stop takes effect when the kernel gets round to
// the thread it woke, which on a loaded machine is milliseconds after kill returned: the view
// keeps waiting meanwhile instead of giving up in the background (a CI run: "this view is a
// background job" printed while the stop was on its way).
func TestAwaitForegroundWaitsForALateStop(t *testing.T) {
	var fg, stops atomic.Int32
	stop := func() {
		if stops.Add(1) == 1 {
			time.AfterFunc(40*time.Millisecond, func() { fg.Store(1) }) // stopped, then fg
		}
	}
	if !awaitForeground(func() bool { return fg.Load() == 1 }, stop, 5*time.Millisecond) {
		t.Fatalf("gave up after %d stops, before the first took effect", stops.Load())
	}
}

// spec: issue 24 item 4. A group that never stops (SIGTTIN ignored, or an orphaned group) gets
// a bounded number of tries, then the view says it is in the background.
func TestAwaitForegroundGivesUp(t *testing.T) {
	stops := 0
	if awaitForeground(func() bool { return false }, func() { stops++ }, 0) {
		t.Fatal("reported the foreground for a group that never got it")
	}
	if stops != foregroundTries {
		t.Fatalf("%d stops, want %d", stops, foregroundTries)
	}
	calls := 0
	if !awaitForeground(func() bool { calls++; return true }, func() { t.Fatal("stopped a foreground group") }, 0) || calls != 1 {
		t.Fatalf("a foreground group: %d looks", calls)
	}
}
