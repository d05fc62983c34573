package host

import (
	"io"
	"time"
)

// ReadPace is how often, at most, a flooding Tick's stdout is read. A Tick that writes each
// update on its own (as the Go SDK does) would otherwise cost the host a wake-up, a poller round
// and two read calls per line: with 50 Ticks x 1,000 updates a second that was most of what live
// ingest cost beyond the in-process benchmark. While lines come faster than this, one read
// collects all that arrived. Every session paces on the same clock grid (multiples of ReadPace),
// so one wake-up of the runtime serves every busy Tick at once instead of one wake-up each.
// A Tick quiet for a grid step is read at once; a flooding Tick's lines wait ReadPace at most,
// under one frame of the TUI (8 ms).
const ReadPace = 4 * time.Millisecond

// pacedReader reads a Tick's stdout for the session's line reader. After a read that did not
// fill the buffer, the next read in the same step of the ReadPace grid waits for the next step;
// a read that filled the buffer is followed at once (the Tick has more, and waiting would only
// let the pipe fill). The wait ends early when stop is closed.
type pacedReader struct {
	r     io.Reader
	pace  time.Duration
	stop  <-chan struct{}
	now   func() time.Time
	sleep func(d time.Duration, stop <-chan struct{}) // waits d, or until stop is closed

	lastStep int64 // the grid step in which the last short read began; -1 after a full read
	timer    *time.Timer
}

func newPacedReader(r io.Reader, pace time.Duration, stop <-chan struct{}) *pacedReader {
	p := &pacedReader{r: r, pace: pace, stop: stop, now: time.Now, lastStep: -1}
	p.sleep = p.timerSleep
	return p
}

func (p *pacedReader) Read(b []byte) (int, error) {
	t := p.now().UnixNano()
	step := t / int64(p.pace)
	if step == p.lastStep {
		p.sleep(time.Duration((step+1)*int64(p.pace)-t), p.stop)
		t = p.now().UnixNano()
		step = t / int64(p.pace)
		if b, ok := p.r.(interface{ paced() }); ok {
			b.paced() // the Tick writes faster than the pace: a pipe can leave the poller
		}
	}
	n, err := p.r.Read(b)
	if n < len(b) {
		p.lastStep = step
	} else {
		p.lastStep = -1
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
