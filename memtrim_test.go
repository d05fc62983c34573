package main

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// The idle server takes no wake-ups of its own: after a quiet spell is handled the trimmer's
// timer stays stopped until a garbage collection shows the server allocated again.
func TestTrimmerParksWhileIdle(t *testing.T) {
	var mu sync.Mutex
	freed := 0
	tr := newTrimmer(20*time.Millisecond, 1<<20, func() {
		mu.Lock()
		freed++
		mu.Unlock()
		runtime.GC()
	})
	// The work before: a server has allocated far more than quietBytes when it first goes quiet
	// (run alone, this test had not, and the first quiet spell had nothing to give back).
	var before [][]byte
	for range 16 {
		before = append(before, make([]byte, 128<<10)) // over 64 KB: never on the stack
	}
	before = nil
	tr.start()
	defer tr.stop()
	state := func() (ticks, releases int) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return tr.ticks, tr.releases
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				ticks, releases := state()
				t.Fatalf("%s never happened (ticks %d, releases %d)", what, ticks, releases)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	waitFor("the first release", func() bool { _, r := state(); return r == 1 })
	parked, _ := state()
	time.Sleep(300 * time.Millisecond) // 15 periods: a ticker would have fired
	if ticks, _ := state(); ticks != parked {
		t.Fatalf("the trimmer woke %d times while nothing ran", ticks-parked)
	}

	// Work: garbage, then the collection it causes. The trimmer wakes, sees the next period
	// quiet, and returns the heap once more.
	var keep [][]byte
	for range 64 {
		keep = append(keep, make([]byte, 64<<10))
	}
	keep = nil
	runtime.GC()
	waitFor("the release after work", func() bool { _, r := state(); return r == 2 })

	// A collection with no work behind it (the runtime forces one every two minutes) wakes the
	// trimmer once, and it parks again without returning anything.
	parked, _ = state()
	runtime.GC()
	waitFor("the wake after a collection", func() bool { ticks, _ := state(); return ticks > parked })
	time.Sleep(300 * time.Millisecond)
	ticks, releases := state()
	if releases != 2 {
		t.Fatalf("releases = %d after a collection with no work, want 2", releases)
	}
	if ticks > parked+2 {
		t.Fatalf("the trimmer went on ticking (%d ticks) after an idle collection", ticks-parked)
	}
	mu.Lock()
	defer mu.Unlock()
	if freed != 2 {
		t.Fatalf("free called %d times, want 2", freed)
	}
}
