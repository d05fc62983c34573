package main

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"tickmux/host"
	"tickmux/host/guardian"
	"tickmux/views"
	"tickmux/vt"
)

// releaseWhenIdle gives the free pages of the heap back to the system once the server has gone
// quiet, once per quiet spell, and returns the function that stops it.
//
// Go keeps the heap mapped up to about twice what is live between collections (GOGC=100), and
// its background scavenger returns only what lies above that goal: an idle server with 10 panes
// kept ~8 MB it did not use, one that had just rewrapped 10 panes of 10,000 lines ~20 MB. When
// less than quietBytes were allocated during a period of every, one debug.FreeOSMemory (a full
// collection, then the free pages returned): a few milliseconds of CPU for a heap of 20 MB.
//
// An idle server takes no wake-ups of its own but one a minute: once a quiet spell is handled the
// timer stops, and the next garbage collection starts it again; meanwhile the binary's pages go
// back once more 2 s after each minute, when the status bar's clock has redrawn the screen. A collection runs only when the program has
// allocated (or once every two minutes, the runtime's own forced collection), so it is the
// sign that the server is busy again; a finalizer on an object dropped at parking notices it.
//
// The pages of the binary that the work touched go back too (guardian.ReleaseCode): about half of
// an idle server's RSS (10 of 19 MB with 10 panes) is the binary's code and read-only data, which
// stay in the page cache, and what the next key needs comes back from there at its first touch
// (`QUIET=11 scripts/bench-echo 8 1` times that key; README, "Pages of the binary").
//
// after, when not nil, runs after each release (the server's heap profile, when asked for).
func releaseWhenIdle(every time.Duration, quietBytes uint64, after func()) (stop func()) {
	free := func() {
		views.ReleaseCaches()
		host.ReleaseCaches()
		vt.ReleaseCaches()
		debug.FreeOSMemory()
		if after != nil {
			after()
		}
	}
	t := newTrimmer(every, quietBytes, free)
	t.recode = func() { guardian.ReleaseCode() }
	t.nextLook = afterClockRedraw
	t.start()
	return t.stop
}

// afterClockRedraw is when a quiet server next gives back the binary's pages: 2 s after the
// next minute. The status bar's clock redraws the screen at each minute (views.App's tick): the
// frame touches about 4 MB of the binary's code and read-only data again (an idle server with 10
// panes went from 9.4 to 13.4 MB RSS for good at the first minute) and allocates too little to
// wake the trimmer.
func afterClockRedraw(now time.Time) time.Time {
	return now.Truncate(time.Minute).Add(time.Minute + 2*time.Second)
}

// trimmer is releaseWhenIdle's state; free and the counters are there for its test.
type trimmer struct {
	every      time.Duration
	quietBytes uint64
	free       func()

	// recode gives back the binary's pages, at nextLook(now) while the trimmer is parked: what
	// the server does on its own while quiet (the clock's redraw) touches them again. Nil: never.
	recode   func()
	nextLook func(now time.Time) time.Time

	mu       sync.Mutex
	timer    *time.Timer
	look     *time.Timer // armed while parked
	parked   bool
	stopped  bool
	looks    int    // calls of recode, for the test
	last     uint64 // heap allocations at the previous tick
	freedAt  uint64 // heap allocations when the heap was last returned
	ticks    int    // timer firings, for the test
	releases int    // calls of free, for the test
}

func newTrimmer(every time.Duration, quietBytes uint64, free func()) *trimmer {
	return &trimmer{every: every, quietBytes: quietBytes, free: free}
}

// allocatedBytes is what the heap has allocated since the start. runtime.ReadMemStats stops the
// world for a few microseconds, once a period at most; runtime/metrics, which would not, is not
// linked: its package init took 0.7-1.3 ms in every tickmux process (the view, the server and the
// guardian), before the early start (TestEarlyViewBeforeHeavyInits).
func allocatedBytes() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

func (t *trimmer) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last = allocatedBytes()
	t.timer = time.AfterFunc(t.every, t.tick)
}

func (t *trimmer) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	if t.timer != nil {
		t.timer.Stop()
	}
	if t.look != nil {
		t.look.Stop()
	}
}

// tick runs every period while the server is busy, and once after each wake.
func (t *trimmer) tick() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.ticks++
	now := allocatedBytes()
	if now-t.last >= t.quietBytes { // busy: look again next period
		t.last = now
		t.timer.Reset(t.every)
		return
	}
	if now-t.freedAt >= t.quietBytes { // quiet, and there was work since the last release
		t.free()
		t.releases++
		t.freedAt = allocatedBytes()
		t.park()
		if t.recode != nil {
			t.recode() // last: what ran before it touched the binary's pages
		}
		return
	}
	t.park()
}

// park leaves the timer stopped until the next garbage collection. Called with mu held.
func (t *trimmer) park() {
	sentinel := new([16]byte) // large enough not to share a tiny-allocator block
	runtime.SetFinalizer(sentinel, func(*[16]byte) { t.wake() })
	t.parked = true
	t.armLook()
}

// armLook sets the look timer for the next nextLook. Called with mu held.
func (t *trimmer) armLook() {
	if t.recode == nil || t.nextLook == nil {
		return
	}
	now := time.Now()
	d := t.nextLook(now).Sub(now)
	if t.look == nil {
		t.look = time.AfterFunc(d, t.lookAgain)
	} else {
		t.look.Reset(d)
	}
}

// lookAgain gives back the binary's pages while the trimmer is parked.
func (t *trimmer) lookAgain() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || !t.parked {
		return
	}
	t.looks++
	t.recode()
	t.armLook()
}

// wake is the sentinel's finalizer: a collection ran, so the server allocated since parking.
func (t *trimmer) wake() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.parked = false
	if t.look != nil {
		t.look.Stop()
	}
	t.last = allocatedBytes()
	t.timer.Reset(t.every)
}
