package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// releaseWhenIdle gives the free pages of the heap back to the system once the server has gone
// quiet, once per quiet spell, and returns the function that stops it.
//
// Go keeps the heap mapped up to about twice what is live between collections (GOGC=100), and
// its background scavenger returns only what lies above that goal: an idle server with 10 panes
// kept ~8 MB it did not use, one that had just rewrapped 10 panes of 10,000 lines ~20 MB. When
// less than quietBytes were allocated during a period of every, one debug.FreeOSMemory (a full
// collection, then the free pages returned): a few milliseconds of CPU for a heap of 20 MB, once,
// not again until the server has been busy. The cost while idle is one timer every period.
func releaseWhenIdle(every time.Duration, quietBytes uint64) (stop func()) {
	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	read := func() uint64 {
		metrics.Read(allocs)
		return allocs[0].Value.Uint64()
	}
	done := make(chan struct{})
	go func() { // owner: releaseWhenIdle's caller, through stop
		t := time.NewTicker(every)
		defer t.Stop()
		last, released := read(), false
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			now := read()
			if now-last >= quietBytes {
				last, released = now, false
				continue
			}
			if !released {
				debug.FreeOSMemory()
				released = true
			}
			last = read()
		}
	}()
	return func() { close(done) }
}
