package host

import (
	"io"
	"runtime"
	"time"
)

// ReadPace is how often, at most, a busy Tick's stdout is read. A Tick that writes each update
// on its own (as the Go SDK does) would otherwise cost the host a wake-up, a poller round and
// two read calls per line: with 50 Ticks x 1,000 updates a second that was most of what live
// ingest cost beyond the in-process benchmark. While lines come faster than this, one read
// collects all that arrived. The ingester reads every busy Tick on one goroutine, once a step
// of the clock grid (multiples of ReadPace): one wake-up of the runtime serves every busy Tick
// at once (ingest.go). A busy Tick's lines wait ReadPace at most, one frame of the TUI. At 8 ms
// rather than 4, live ingest of 50 Ticks x 1,000 updates a second cost about 15% less CPU per
// update (scripts/bench-ingest, alternating builds): half the wake-ups, reads and deliveries.
const ReadPace = 8 * time.Millisecond

// ActiveSteps is how many steps of the grid a Tick stays busy after its last output: the
// ingester looks at its pipe once a step until then, so a Tick writing in bursts (100 a second,
// say) is read on the shared grid too. After that its session waits in the poller, at no cost
// while the Tick is quiet, and the first line that comes is read at once.
const ActiveSteps = 4

// ingestSlots bounds how many sessions handle what they read at once: one fewer than the
// processors Go runs goroutines on (at least one). Busy Ticks are read on the same step of the
// grid, so without a bound every busy session becomes runnable at once, and with 50 or 100
// of them every other goroutine that wakes (each hop of a key and of its echo: the view's
// reader, the UI loop, the pane's writer and reader, the view's copier) waits at the back of
// the run queue behind all of them: a key typed beside 50 flooding Ticks took about 250 ms to
// echo, tmux's 150 ms. A session waiting for a slot is parked, not queued, and one processor
// is always left for the keys. A session's goroutine holds its slot from a read that brought
// bytes until its lines are handled, and never while it waits; the ingester holds one while it
// handles a step.
var ingestSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

// tryReader is a source that can be read without waiting: (0, nil) when nothing is there.
type tryReader interface {
	tryRead(b []byte) (int, error)
}

// pacedReader reads a Tick's stdout for the session's goroutine. After a read that did not fill
// the buffer, the next read in the same step of the ReadPace grid waits for the next step; a
// read that filled the buffer, and the reads after it in the same step, go at once (the Tick has
// more, and waiting would only let the pipe fill). Every wait ends early when stop is closed.
// (A pipe, which can be read without waiting, is read by the ingester while the Tick is busy;
// this paces the first read after a quiet spell, and sources that are not pipes.)
type pacedReader struct {
	r     io.Reader
	pace  time.Duration
	stop  <-chan struct{}
	now   func() time.Time
	sleep func(d time.Duration, stop <-chan struct{}) // waits d, or until stop is closed

	lastStep int64 // the grid step in which the last short read began; -1 after a full read
	fullStep int64 // the grid step of the last read that filled the buffer; -1 before any
	timer    *time.Timer
	// slots, when not nil, is the semaphore a read that brought bytes takes a slot of, until
	// the next read or release (ingestSlots for a session).
	slots chan struct{}
	held  bool
}

func newPacedReader(r io.Reader, pace time.Duration, stop <-chan struct{}) *pacedReader {
	p := &pacedReader{r: r, pace: pace, stop: stop, now: time.Now, lastStep: -1, fullStep: -1}
	p.sleep = p.timerSleep
	return p
}

// Read waits for the grid (see the type), reads, and when bytes came and p has slots, takes a
// slot for handling them (released at the next Read, or by release).
func (p *pacedReader) Read(b []byte) (int, error) {
	p.release()
	n, err := p.read(b)
	if n > 0 && p.slots != nil {
		select {
		case p.slots <- struct{}{}:
			p.held = true
		case <-p.stop:
		}
	}
	return n, err
}

// release gives back the slot p holds, if any: the bytes it read have been handled.
func (p *pacedReader) release() {
	if p.held {
		<-p.slots
		p.held = false
	}
}

func (p *pacedReader) read(b []byte) (int, error) {
	step := p.waitStep()
	n, err := p.r.Read(b)
	return p.note(step, n, len(b), err)
}

// waitStep waits for the next step of the grid if a short read was made in this one, and
// returns the step it is in. A step in which a read filled the buffer
// is not waited out: the Tick writes faster than the pipe holds, and a wait would cap its
// throughput at a pipe's worth per step.
func (p *pacedReader) waitStep() int64 {
	t := p.now().UnixNano()
	step := t / int64(p.pace)
	if step == p.lastStep && step != p.fullStep {
		p.sleep(time.Duration((step+1)*int64(p.pace)-t), p.stop)
		step = p.now().UnixNano() / int64(p.pace)
	}
	return step
}

func (p *pacedReader) note(step int64, n, size int, err error) (int, error) {
	if n < size {
		p.lastStep = step
	} else {
		p.lastStep, p.fullStep = -1, step
	}
	return n, err
}

// timerSleep waits on one reused timer, so pacing allocates nothing per read.
func (p *pacedReader) timerSleep(d time.Duration, stop <-chan struct{}) {
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	select {
	case <-p.timer.C:
	case <-stop:
		p.timer.Stop()
	}
}
