package main

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// releaseWhenIdle gives the free pages of the heap back to the system once the server has gone
// quiet, once per quiet spell, and returns the function that stops it.
//
// Go keeps the heap mapped up to about twice what is live between collections (GOGC=100), and
// its background scavenger returns only what lies above that goal. When less than quietBytes
// were allocated during a period of every, one debug.FreeOSMemory (a full collection, then the
// free pages returned): a few milliseconds of CPU. `scripts/bench-mem 3`, 10 panes x 10,000
// lines then 12 s of quiet: server + guardian private memory (RssAnon) 13.5 MB with it, 31.1 MB
// without (tmux's server 45.9 MB); no cost showed at the first key after a quiet spell
// (`QUIET=11 scripts/bench-echo 8 2`). The binary's pages are not given back: they are the page
// cache's, stay in memory whoever maps them, and mapping them back made that key 1.5-3x slower.
//
// An idle server takes no wake-ups of its own: once a quiet spell is handled the timer stops,
// and the next garbage collection starts it again. A collection runs only when the program has
// allocated (or once every two minutes, the runtime's own forced collection), so it is the sign
// that the server is busy again; a finalizer on an object dropped at parking notices it.
func releaseWhenIdle(every time.Duration, quietBytes uint64) (stop func()) {
	t := newTrimmer(every, quietBytes, debug.FreeOSMemory)
	t.start()
	return t.stop
}

// trimmer is releaseWhenIdle's state; free and the counters are there for its test.
type trimmer struct {
	every      time.Duration
	quietBytes uint64
	free       func()

	mu       sync.Mutex
	timer    *time.Timer
	stopped  bool
	last     uint64 // heap allocations at the previous tick
	freedAt  uint64 // heap allocations when the heap was last returned
	ticks    int    // timer firings, for the test
	releases int    // calls of free, for the test
}

func newTrimmer(every time.Duration, quietBytes uint64, free func()) *trimmer {
	return &trimmer{every: every, quietBytes: quietBytes, free: free}
}

// allocatedBytes is what the heap has allocated since the start. runtime.ReadMemStats stops the
// world for a few microseconds, once a period at most (never at start-up: the first tick is
// every after it); runtime/metrics, which would not, is not linked: its package init took
// 0.7-1.3 ms in every tickmux process (TestEarlyViewBeforeHeavyInits).
func allocatedBytes() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

func (t *trimmer) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer = time.AfterFunc(t.every, t.tick) // the first tick counts the start-up as busy
}

func (t *trimmer) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	if t.timer != nil {
		t.timer.Stop()
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
	}
	t.park()
}

// park leaves the timer stopped until the next garbage collection. Called with mu held.
func (t *trimmer) park() {
	sentinel := new([16]byte) // large enough not to share a tiny-allocator block
	runtime.SetFinalizer(sentinel, func(*[16]byte) { t.wake() })
}

// wake is the sentinel's finalizer: a collection ran, so the server allocated since parking.
func (t *trimmer) wake() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.last = allocatedBytes()
	t.timer.Reset(t.every)
}
