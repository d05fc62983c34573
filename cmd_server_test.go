package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// garbage allocates n bytes in 64 KiB pieces that are dropped at once, and returns how many
// collections started meanwhile.
func garbage(n int) uint32 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var keep []byte
	for i := 0; i < n/(64<<10); i++ {
		keep = make([]byte, 64<<10)
		keep[0] = byte(i)
	}
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

// The start-up's hold on the collector: while it holds, 6 MB of garbage after a collection starts
// no other (the first goal is 16 MB, not 4); once it ends, the same garbage does; a GOGC that
// collects less often already, or never, is left as it is.
func TestHoldGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	end := holdGC(400, time.Hour)
	if n := garbage(6 << 20); n != 0 {
		t.Errorf("%d collections while the hold was on", n)
	}
	end()
	runtime.GC()
	if n := garbage(6 << 20); n == 0 {
		t.Errorf("no collection once the hold was over")
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("the hold left GOGC=%d, want 100 back", p)
	}

	// It ends by itself after its time.
	holdGC(400, time.Millisecond)
	for deadline := time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		if garbage(6<<20) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hold did not end after its time")
		}
		time.Sleep(10 * time.Millisecond)
	}

	for _, keep := range []int{-1, 800} {
		debug.SetGCPercent(keep)
		holdGC(400, time.Hour)()
		if p := debug.SetGCPercent(100); p != keep {
			t.Errorf("GOGC=%d became %d", keep, p)
		}
	}
}

// afterStartup: nothing before its time, nothing once stopped, and the stop ends what it started,
// once.
func TestAfterStartup(t *testing.T) {
	starts, stops := 0, 0
	start := func() func() { starts++; return func() { stops++ } }
	stop := afterStartup(time.Hour, start)
	stop()
	stop()
	if starts != 0 || stops != 0 {
		t.Errorf("stopped before its time: %d starts, %d stops, want none", starts, stops)
	}
	started := make(chan struct{})
	stop = afterStartup(time.Millisecond, func() func() { close(started); return start() })
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("never started")
	}
	stop()
	stop()
	if starts != 1 || stops != 1 {
		t.Errorf("%d starts, %d stops, want 1 and 1", starts, stops)
	}
}
