package host

import (
	"runtime"
	"sync"
	"time"
)

// The ingester reads every busy Tick's stdout on one goroutine, once a step of the ReadPace grid:
// for each busy session in turn, what its pipe holds is read without waiting, its lines are
// handled and its latest update delivered. A quiet Tick's session waits in the poller on its own
// goroutine and comes to the ingester with its first output; it goes back after ActiveSteps
// steps without output.
//
// Before, each busy session paced itself on its own goroutine and timer: with 50 Ticks x 1,000
// updates a second that was 50 timers, 50 wake-ups and 50 hand-offs of an ingest slot (each
// waking another thread) per step: about a sixth of headless serve's profile (timers, parking,
// hand-offs). One loop, as in
// tmux, wakes once a step and holds one ingest slot while it works, so a processor stays free
// for the keys (see ingestSlots).
//
//	session goroutine: wait in the poller ──first output──▶ ingester.adopt ──quiet or ended──▶ back
//	ingester (one):    each step: for each busy session, tryRead → handle lines → deliver

// busySession is a session the ingester reads.
type busySession struct {
	s        *Session
	lb       *lineBuf
	src      tryReader
	dataStep int64      // the last step in which a read brought bytes
	back     chan error // the session's goroutine waits here: nil when quiet again, or why it ended
}

type ingester struct {
	pace  time.Duration
	slots chan struct{} // held while a step is handled (ingestSlots)

	mu      sync.Mutex
	adopted []*busySession // handed over since the last step
	held    int            // sessions handed over and not given back
	running bool           // the loop runs (it stops when no session is busy)

	// now, sleep and stepped are the clock and a probe, for tests.
	now     func() time.Time
	sleep   func(time.Duration)
	stepped func(step int64, sessions int)
}

// theIngester reads the busy sessions of every host in the process.
var theIngester = newIngester(ReadPace, ingestSlots)

func newIngester(pace time.Duration, slots chan struct{}) *ingester {
	return &ingester{pace: pace, slots: slots, now: time.Now, sleep: time.Sleep}
}

// adopt hands a session that has just read output to the ingester, and waits until the Tick is
// quiet again (nil: wait in the poller) or the session must end (the reason). Its lines read so
// far have been handled.
func (g *ingester) adopt(s *Session, lb *lineBuf, src tryReader) error {
	b := &busySession{s: s, lb: lb, src: src, dataStep: g.step(), back: make(chan error, 1)}
	g.mu.Lock()
	g.adopted = append(g.adopted, b)
	g.held++
	if !g.running {
		g.running = true
		go g.run() // owner: the busy sessions; returns when none is left
	}
	g.mu.Unlock()
	err := <-b.back
	g.mu.Lock()
	g.held--
	g.mu.Unlock()
	return err
}

func (g *ingester) step() int64 { return g.now().UnixNano() / int64(g.pace) }

// run handles the busy sessions once a step until none is left.
func (g *ingester) run() {
	var busy []*busySession
	for {
		g.mu.Lock()
		if len(busy) == 0 && len(g.adopted) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		t := g.now().UnixNano()
		g.sleep(time.Duration((t/int64(g.pace)+1)*int64(g.pace) - t)) // to the next step
		step := g.step()
		g.mu.Lock() // with the sessions handed over meanwhile
		busy = append(busy, g.adopted...)
		clear(g.adopted)
		g.adopted = g.adopted[:0]
		g.mu.Unlock()
		g.slots <- struct{}{}
		kept := busy[:0]
		for _, b := range busy {
			err := b.read(step)
			// A step is long (a millisecond or more for 50 busy Ticks): between Ticks, whatever
			// woke meanwhile on this processor runs first (the key path, whose goroutines wait
			// behind a running one until another processor takes them).
			runtime.Gosched()
			switch {
			case err != nil:
				b.back <- err
			case step-b.dataStep >= ActiveSteps:
				b.back <- nil // quiet: back to the poller
			default:
				kept = append(kept, b)
			}
		}
		<-g.slots
		if g.stepped != nil {
			g.stepped(step, len(busy))
		}
		clear(busy[len(kept):])
		busy = kept
	}
}

// maxReadsPerStep bounds the reads of one session in one step: a read that fills the buffer is
// followed at once (the Tick writes faster than a step's worth), up to this many (about 1 MiB a
// step, 128 MiB a second), so that one Tick cannot hold up the others' step for long.
const maxReadsPerStep = 64

// read reads what the Tick wrote since the last step and handles its lines; it returns why the
// session must end, if it must.
func (b *busySession) read(step int64) error {
	select {
	case <-b.s.done:
		return ErrSessionEnded
	default:
	}
	for range maxReadsPerStep {
		n, err := b.lb.fill(b.src.tryRead)
		if n > 0 {
			b.dataStep = step
		}
		if herr := b.s.handle(b.lb); herr != nil {
			return herr
		}
		if err != nil {
			return readEndReason(b.lb.endReason(err))
		}
		if !b.lb.full() {
			return nil
		}
	}
	return nil
}
