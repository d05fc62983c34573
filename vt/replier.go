package vt

import (
	"io"
	"sync"
)

// replier sends the terminal's answers (cursor reports, device attributes) to the program
// without ever blocking the writer: a program that asks and does not read stalls only the
// replier's goroutine, and its queue is bounded.
type replier struct {
	w      io.Writer
	mu     sync.Mutex
	idle   sync.Cond // signalled when the goroutine stops
	queue  []byte
	busy   bool // the goroutine runs
	broken bool // a write failed: drop everything from now on
}

// maxReplyQueue bounds answers waiting for a program that does not read them.
const maxReplyQueue = 64 << 10

func newReplier(w io.Writer) *replier {
	r := &replier{w: w}
	r.idle.L = &r.mu
	return r
}

func (r *replier) send(b []byte) {
	if r.w == nil || len(b) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.broken || len(r.queue)+len(b) > maxReplyQueue {
		return
	}
	r.queue = append(r.queue, b...)
	if !r.busy {
		r.busy = true
		go r.run() // owner: the Terminal; exits when the queue is empty or a write fails
	}
}

func (r *replier) run() {
	for {
		r.mu.Lock()
		b := r.queue
		r.queue = nil
		if len(b) == 0 || r.broken {
			r.busy = false
			r.idle.Broadcast()
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		if _, err := r.w.Write(b); err != nil {
			r.mu.Lock()
			r.broken = true
			r.mu.Unlock()
		}
	}
}

// wait returns once every queued answer has been written (or dropped).
func (r *replier) wait() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.busy {
		r.idle.Wait()
	}
}
