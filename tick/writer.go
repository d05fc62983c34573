package tick

import (
	"io"
	"sync"
)

// outbox owns the protocol's output. Two kinds of lines go out:
//
//   - responses, written by the goroutine that produced them, each in one piece (send);
//   - tick/update notifications, through a mailbox holding only the newest one (post): while
//     stdout is slow, a newer update replaces the one still waiting (spec 8.3), so the caller of
//     Update never waits for the pipe and memory never grows.
//
// An update posted before a response is sent is written before that response, so a call's
// result never arrives ahead of the state change it made.
type outbox struct {
	writeMu sync.Mutex // held while one line is written: lines never interleave (spec 3.1)
	w       io.Writer  // set once by serve before the first write

	mu       sync.Mutex    // guards the fields below
	pending  []byte        // the newest update line not yet written, "\n" included; nil if none
	replaced uint64        // updates dropped because a newer one replaced them while pending
	err      error         // the first write error; nothing is written after it
	wake     chan struct{} // capacity 1: an update is pending
	failed   chan struct{} // closed at the first write error: the host stopped listening
}

func newOutbox() *outbox {
	return &outbox{wake: make(chan struct{}, 1), failed: make(chan struct{})}
}

// post makes line the next update to write, replacing one still pending. It never blocks on
// the output. Callers post in seq order (Server.Update holds its lock).
func (o *outbox) post(line []byte) {
	o.mu.Lock()
	if o.pending != nil {
		o.replaced++
	}
	o.pending = line
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default: // a wake-up is already due; it will see this line
	}
}

// send writes one response line after the pending update, if any.
func (o *outbox) send(line []byte) error {
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	if err := o.flushLocked(); err != nil {
		return err
	}
	return o.writeLocked(line)
}

// flush writes the pending update, if any.
func (o *outbox) flush() error {
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	return o.flushLocked()
}

// pump writes posted updates as they come until stop is closed. serve runs it on its own
// goroutine and closes stop to end it.
func (o *outbox) pump(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-o.wake:
			_ = o.flush() // a failure closes o.failed, which serve watches
		}
	}
}

// coalesced reports how many updates were replaced before being written.
func (o *outbox) coalesced() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.replaced
}

func (o *outbox) flushLocked() error {
	o.mu.Lock()
	line := o.pending
	o.pending = nil
	o.mu.Unlock()
	if line == nil {
		return nil
	}
	return o.writeLocked(line)
}

func (o *outbox) writeLocked(line []byte) error {
	o.mu.Lock()
	err := o.err
	o.mu.Unlock()
	if err != nil {
		return err
	}
	if _, err := o.w.Write(line); err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
			close(o.failed)
		}
		o.mu.Unlock()
		return err
	}
	return nil
}
