package host

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// idlePanes launches n programs that print ready and then sleep, and returns once each has
// printed it (its PTY reader has read and gone back to waiting).
func idlePanes(t *testing.T, n int, cols, rows int) []*Process {
	t.Helper()
	var ps []*Process
	for i := 0; i < n; i++ {
		p, err := Launch(LaunchSpec{Argv: []string{"/bin/sh", "-c", "echo ready; exec sleep 300"}, Cols: cols, Rows: rows, Scrollback: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		ps = append(ps, p)
	}
	deadline := time.Now().Add(hangGuard)
	for _, p := range ps {
		for !strings.Contains(p.Terminal().Text(), "ready") {
			if time.Now().After(deadline) {
				t.Fatalf("a program never printed ready: %q", p.Terminal().Text())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return ps
}

// goroutinesIn returns the state ("IO wait", "syscall", ...) of every goroutine whose stack
// holds fn.
func goroutinesIn(fn string) []string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	var states []string
	for _, g := range strings.Split(b.String(), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if !strings.Contains(g, fn) {
			continue
		}
		// goroutine 23 [IO wait, 2 minutes]:
		_, state, _ := strings.Cut(head, "[")
		state, _, _ = strings.Cut(state, "]")
		state, _, _ = strings.Cut(state, ",")
		states = append(states, state)
	}
	return states
}

// A running program's waiter waits in the runtime's poller, holding no OS thread: a waiter in a
// blocking waitid held one per pane for as long as its program ran (17 threads in a server with
// 10 idle panes, 10 of them in waitid).
func TestWaitingForAProgramHoldsNoThread(t *testing.T) {
	const n = 6
	idlePanes(t, n, 20, 2)
	deadline := time.Now().Add(hangGuard)
	for {
		states := goroutinesIn("host.(*Process).wait(")
		parked := 0
		for _, s := range states {
			if s == "IO wait" || s == "syscall" {
				parked++
			}
		}
		if parked >= n {
			for _, s := range states {
				if s == "syscall" {
					t.Fatalf("waiters of %d running programs: %q; one in a system call holds a thread", n, states)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the waiters of %d programs never settled: %q", n, states)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// An idle pane's PTY reader holds no read buffer between reads (16 KB a pane before): the
// readers share a few.
func TestIdleReaderHoldsNoBuffer(t *testing.T) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1 // every allocation from here on
	const n = 3 * maxFreeReadBufs
	ps := idlePanes(t, n, 20, 2)
	runtime.GC()
	runtime.GC() // the profile is as of the last collection that completed
	held := int64(0)
	records := make([]runtime.MemProfileRecord, 4096)
	nrec, ok := runtime.MemProfile(records, false)
	if !ok {
		t.Fatalf("more than %d heap profile records", len(records))
	}
	for _, r := range records[:nrec] {
		if r.InUseBytes() == 0 {
			continue
		}
		// Made by the host itself (not by the terminal that the reader writes to) on a reader.
		frames := runtime.CallersFrames(r.Stack())
		site := ""
		for {
			f, more := frames.Next()
			if site == "" && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "sync.") {
				site = f.Function
			}
			if strings.Contains(f.Function, "host.(*Process).readOutput") && strings.HasPrefix(site, "tickmux/host.") {
				held += r.InUseBytes()
				break
			}
			if !more {
				break
			}
		}
	}
	if held > maxFreeReadBufs*int64(len(ptyBuf{})) {
		t.Errorf("the PTY readers of %d idle panes hold %d bytes of heap; %d buffers of %d bytes wait for them",
			n, held, maxFreeReadBufs, len(ptyBuf{}))
	}
	runtime.KeepAlive(ps)
}
