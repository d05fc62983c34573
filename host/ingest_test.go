package host

import (
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/tick/wire"
)

// steppedIngester is an ingester on a fake clock whose steps the test lets go one at a time.
type steppedIngester struct {
	*ingester
	clock atomic.Int64
	tick  chan struct{} // one send lets one step go
	stop  chan struct{} // closed: steps go without waiting (the test is over)
	steps chan int      // the sessions each step handled
	once  sync.Once
}

// free lets the steps go without waiting, so the sessions can end.
func (si *steppedIngester) free() { si.once.Do(func() { close(si.stop) }) }

func newSteppedIngester(t *testing.T) *steppedIngester {
	const pace = 8 * time.Millisecond
	si := &steppedIngester{ingester: newIngester(pace, make(chan struct{}, 1)), tick: make(chan struct{}), stop: make(chan struct{}), steps: make(chan int, 1000)}
	si.clock.Store(time.Unix(1000, 0).UnixNano() + int64(pace)/2)
	si.now = func() time.Time { return time.Unix(0, si.clock.Load()) }
	// tick is unbuffered: a step that waited twice would never end.
	si.sleep = func(d time.Duration) {
		select {
		case <-si.tick:
		case <-si.stop:
		}
		si.clock.Add(int64(d))
	}
	si.stepped = func(_ int64, n int) { si.steps <- n }
	t.Cleanup(func() {
		si.free()
		deadline := time.Now().Add(20 * time.Second) // a hang guard: the loop ends with its sessions
		for {
			si.mu.Lock()
			running := si.running
			si.mu.Unlock()
			if !running {
				return
			}
			if time.Now().After(deadline) {
				t.Error("the ingester still runs after its sessions ended")
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	return si
}

// step lets one step go and returns how many sessions it handled.
func (si *steppedIngester) step(t *testing.T) int {
	t.Helper()
	si.tick <- struct{}{}
	select {
	case n := <-si.steps:
		return n
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatal("the step did not end")
		return 0
	}
}

// waitAdopted waits until n sessions have been handed to the ingester and not given back.
func (si *steppedIngester) waitAdopted(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		si.mu.Lock()
		k := si.held
		si.mu.Unlock()
		if k == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions handed to the ingester, want %d", k, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// pipeTick is a session on a pipe whose write end the test holds, read through ing.
type pipeTick struct {
	s     *Session
	w     int
	ino   uint64
	lines *updateStream
	mu    sync.Mutex
	seqs  []uint64
	calls int // Update hook calls
	// onUpdate, when set, runs in the Update hook (set it before the step that calls it).
	onUpdate func()
}

func newPipeTick(t *testing.T, si *steppedIngester) *pipeTick {
	r, w, ino := rawPipe(t)
	pt := &pipeTick{w: w, ino: ino, lines: newUpdateStream(1 << 30)}
	pt.s = newSession(discardCloser{io.Discard}, r, SessionHooks{Update: func(_ wire.State, seqs []uint64, _ time.Time) {
		pt.mu.Lock()
		pt.seqs = append(pt.seqs, seqs...)
		pt.calls++
		f := pt.onUpdate
		pt.mu.Unlock()
		if f != nil {
			f()
		}
	}})
	pt.s.ingest = si.ingester
	pt.s.start()
	t.Cleanup(func() { si.free(); unix.Close(w); pt.s.Close(nil) })
	return pt
}

// write writes n update lines, one write each, as the Go SDK does.
func (pt *pipeTick) write(t *testing.T, n int) {
	t.Helper()
	line := make([]byte, len(pt.lines.template))
	for range n {
		io.ReadFull(pt.lines, line)
		if _, err := unix.Write(pt.w, line); err != nil {
			t.Fatal(err)
		}
	}
}

func (pt *pipeTick) got() (updates, calls int) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return len(pt.seqs), pt.calls
}

// One wake-up of the ingester serves every busy Tick: a step reads each busy session's pipe once,
// out of the poller, handles all the lines that came and delivers each session's latest update
// once (the lines of a step are one batch). Before, each busy session woke on its own timer.
// spec: H-U2
func TestIngesterOneWakeUpServesEveryBusyTick(t *testing.T) {
	si := newSteppedIngester(t)
	ticks := []*pipeTick{newPipeTick(t, si), newPipeTick(t, si), newPipeTick(t, si)}
	for _, pt := range ticks {
		pt.write(t, 1) // read at once by the session's own goroutine, which hands it over
	}
	si.waitAdopted(t, len(ticks))
	for i, pt := range ticks {
		if u, c := pt.got(); u != 1 || c != 1 {
			t.Fatalf("tick %d: %d updates in %d deliveries before the first step, want 1 in 1", i, u, c)
		}
	}
	for round := range 3 {
		for _, pt := range ticks {
			pt.write(t, 5)
		}
		if n := si.step(t); n != len(ticks) {
			t.Fatalf("round %d: a step handled %d sessions, want %d", round, n, len(ticks))
		}
		for i, pt := range ticks {
			if u, c := pt.got(); u != 1+5*(round+1) || c != 1+round+1 {
				t.Fatalf("round %d, tick %d: %d updates in %d deliveries, want %d in %d", round, i, u, c, 1+5*(round+1), round+2)
			}
			if inPoller(t, pt.ino) {
				t.Fatalf("tick %d: a busy Tick's pipe is in the poller", i)
			}
		}
	}
	for i, pt := range ticks {
		for k, seq := range pt.seqs {
			if seq != uint64(100000000001+k) {
				t.Fatalf("tick %d: update %d has seq %d", i, k, seq)
			}
		}
	}
}

// A Tick quiet for ActiveSteps steps goes back to its own goroutine, which waits in the poller
// and reads the next line at once; at the end of output the session ends, whoever reads it.
func TestIngesterHandsQuietTicksBackToThePoller(t *testing.T) {
	si := newSteppedIngester(t)
	pt := newPipeTick(t, si)
	pt.write(t, 1)
	si.waitAdopted(t, 1)
	for k := range ActiveSteps - 1 {
		if n := si.step(t); n != 1 {
			t.Fatalf("quiet step %d handled %d sessions, want 1", k+1, n)
		}
	}
	if inPoller(t, pt.ino) {
		t.Fatal("the pipe went back to the poller before ActiveSteps quiet steps")
	}
	si.step(t) // the last: the session goes back
	deadline := time.Now().Add(20 * time.Second)
	for !inPoller(t, pt.ino) {
		if time.Now().After(deadline) {
			t.Fatal("a quiet Tick's session is not waiting in the poller")
		}
		time.Sleep(time.Millisecond)
	}
	pt.write(t, 1) // read at once, without a step
	si.waitAdopted(t, 1)
	if u, _ := pt.got(); u != 2 {
		t.Fatalf("%d updates after the Tick woke, want 2", u)
	}
	unix.Write(pt.w, []byte(`{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{}}}`+"\n"))
	si.step(t)
	select {
	case <-pt.s.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("a violation read by the ingester did not end the session")
	}
	if err := pt.s.Err(); ruleOf(err) != "H-U1" {
		t.Fatalf("the session ended with %v, want the H-U1 violation", err)
	}
}

// A session closed while the ingester holds it ends at the next step.
func TestIngesterLetsAClosedSessionGo(t *testing.T) {
	si := newSteppedIngester(t)
	pt := newPipeTick(t, si)
	pt.write(t, 1)
	si.waitAdopted(t, 1)
	closed := make(chan struct{})
	go func() { // owner: the test; returns once Close has waited for the reader
		pt.s.Close(errors.New("closed by the test"))
		close(closed)
	}()
	<-pt.s.Done()
	si.step(t)
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return after the ingester's next step")
	}
}

// Between one Tick and the next in a step, whatever woke meanwhile runs: on one processor, a
// goroutine woken by the first Tick's update runs before the second Tick is handled, not after
// the whole step (the key path must not wait behind 50 busy Ticks). The scheduler's fairness
// (every 61st pick takes the global queue first, where runtime.Gosched puts the ingester) may
// let the ingester go on at once now and then, so it gets three tries; without the yield it
// never holds.
func TestIngesterLetsOthersRunBetweenTicks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 3 {
		if wokenRanBetweenTicks(t) {
			return
		}
	}
	t.Fatal("a goroutine woken by the first Tick's update ran only after the second Tick was handled (three tries)")
}

// wokenRanBetweenTicks steps an ingester with two busy Ticks, the first waking a goroutine,
// and reports whether that goroutine ran before the second Tick was handled.
func wokenRanBetweenTicks(t *testing.T) bool {
	t.Helper()
	si := newSteppedIngester(t)
	a, b := newPipeTick(t, si), newPipeTick(t, si)
	a.write(t, 1)
	si.waitAdopted(t, 1)
	b.write(t, 1)
	si.waitAdopted(t, 2) // handled in this order: a, then b
	woken := make(chan struct{}, 1)
	var ran atomic.Bool
	done := make(chan struct{})
	go func() { // owner: the test; returns once woken
		<-woken
		ran.Store(true)
		close(done)
	}()
	var ranBeforeB atomic.Bool
	a.mu.Lock()
	a.onUpdate = func() {
		select {
		case woken <- struct{}{}:
		default:
		}
	}
	a.mu.Unlock()
	b.mu.Lock()
	b.onUpdate = func() { ranBeforeB.Store(ran.Load()) }
	b.mu.Unlock()
	a.write(t, 1)
	b.write(t, 1)
	si.step(t)
	<-done
	return ranBeforeB.Load()
}
