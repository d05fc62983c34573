package host

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
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

// No goroutine waits for a running program, and none holds a thread for it: the exit loop
// notices each exit at its SIGCHLD (a waiter a pane, in the poller on a pidfd, cost a goroutine's
// stack; before it, a blocking waitid held a thread: 17 threads in a server with 10 idle panes).
// Programs that exit, at once or later, and one whose exit came before its SIGCHLD could find
// it listed, are all seen to exit.
func TestNoGoroutineWaitsForARunningProgram(t *testing.T) {
	const n = 6
	ps := idlePanes(t, n, 20, 2)
	for _, fn := range []string{"host.(*Process).reap(", "host.awaitExit(", "host.(*Process).wait("} {
		if states := goroutinesIn(fn); len(states) != 0 {
			t.Fatalf("%d goroutines in %s while %d programs run: %q", len(states), fn, n, states)
		}
	}
	var quick []*Process
	for i := 0; i < 20; i++ { // exits racing with their listing
		p, err := Launch(LaunchSpec{Argv: []string{"/bin/true"}, Cols: 20, Rows: 2, Scrollback: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		quick = append(quick, p)
	}
	for _, p := range ps[:n/2] {
		syscall.Kill(p.Pid(), syscall.SIGKILL)
	}
	for i, p := range append(quick, ps[:n/2]...) {
		select {
		case <-p.Exited():
		case <-time.After(hangGuard):
			t.Fatalf("program %d never seen to exit", i)
		}
	}
	for _, p := range ps[n/2:] {
		select {
		case <-p.Exited():
			t.Fatal("a running program was seen to exit")
		default:
		}
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

// A writer goroutine runs only while input waits for a program that does not read it, and ends
// once all of it is written: a writer for the whole life of every pane, for input that almost
// always goes into the terminal at once, cost an idle server a goroutine stack a pane.
func TestInputWriterOnlyWhileInputWaits(t *testing.T) {
	writers := func() int { return len(goroutinesIn("host.(*Process).writeInput(")) }
	p, err := Launch(LaunchSpec{Argv: []string{"/bin/sh", "-c", "stty raw -echo; echo ready; kill -STOP $$; exec cat >/dev/null"}, Cols: 20, Rows: 2, Scrollback: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitStopped(t, p.Pid())
	if err := p.Input([]byte("typed")); err != nil {
		t.Fatal(err)
	}
	if n := writers(); n != 0 {
		t.Fatalf("%d input writers after input the terminal took at once", n)
	}
	piece := bytes.Repeat([]byte("x"), 1024)
	for i := 0; i < 256; i++ { // more than a PTY holds: the rest waits for the writer
		if err := p.Input(piece); err != nil {
			t.Fatal(err)
		}
	}
	// The writer Input started may be missing from a goroutine dump taken at once (2 runs in 20
	// under -race): look until it shows.
	for deadline := time.Now().Add(hangGuard); writers() != 1; {
		if time.Now().After(deadline) {
			t.Fatalf("%d input writers while 256 KB wait for a stopped program, want 1", writers())
		}
		time.Sleep(5 * time.Millisecond)
	}
	syscall.Kill(p.Pid(), syscall.SIGCONT)
	for deadline := time.Now().Add(hangGuard); writers() != 0; {
		if time.Now().After(deadline) {
			t.Fatal("the input writer did not end once the program had read everything")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.inMu.Lock()
	left, writing := p.inBytes, p.inWriting
	p.inMu.Unlock()
	if left != 0 || writing {
		t.Fatalf("the writer ended with %d bytes queued (writing: %v)", left, writing)
	}
	if err := p.Input([]byte("again")); err != nil {
		t.Fatal(err)
	}
	if n := writers(); n != 0 {
		t.Fatalf("%d input writers after input the terminal took at once", n)
	}
}

// While its program runs, an instance has no goroutine of its own waiting for the exit (one a
// pane, for the program's whole life): the process's waiter ends the instance when the program
// exits on its own (H-X2).
// spec: H-X2
func TestNoExitWatcherWhileTheProgramRuns(t *testing.T) {
	h := newTestHost(t, Config{})
	in, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "read line; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(goroutinesIn("host.(*Instance).watchExit(")); n != 0 {
		t.Fatalf("%d goroutines in watchExit while the program runs", n)
	}
	if err := in.Process().Input([]byte("bye\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-in.endedCh:
	case <-time.After(hangGuard):
		t.Fatal("the instance did not end when its program exited")
	}
	if end := in.EndInfo(); end == nil || !strings.Contains(end.Reason, "exited") {
		t.Fatalf("the instance ended with %+v, want the program's exit", end)
	}
}
