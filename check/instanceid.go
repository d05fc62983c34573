package check

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"tickmux/host"
)

// idWatch looks for the instance id (TICKLOOP_INSTANCE_ID) in what the Tick sends: it is not
// protocol and appears in no message (spec 4.1). It sees every result check receives (look) and
// each state the host keeps, as the host announces them.
type idWatch struct {
	id   []byte
	in   *host.Instance
	lint *sendLint // sees each state too
	sub  *host.Subscription
	quit chan struct{}
	done chan struct{}
	once sync.Once

	mu    sync.Mutex
	where []string // first few places it appeared
	count int
}

// watchInstanceID starts watching in's states; stop ends it.
func watchInstanceID(h *host.Host, in *host.Instance, lint *sendLint) *idWatch {
	w := &idWatch{id: []byte(in.ID()), in: in, lint: lint, sub: h.Subscribe(), quit: make(chan struct{}), done: make(chan struct{})}
	go w.loop() // owner: Run, through stop; returns when stop closes quit
	return w
}

func (w *idWatch) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.quit:
			return
		case <-w.sub.C():
			for _, e := range w.sub.Drain() {
				if e.Kind == host.EventState && e.ID == w.in.ID() {
					data := w.in.State().Data
					w.look("a state", data)
					w.lint.state("a state", data, host.MaxUpdateBytes)
				}
			}
		}
	}
}

// look records whether raw, something the Tick sent, holds the instance id.
func (w *idWatch) look(what string, raw []byte) {
	if len(w.id) == 0 || !bytes.Contains(raw, w.id) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.count++
	if len(w.where) < 3 {
		w.where = append(w.where, what)
	}
}

// sawError records whether the Tick's error answer holds the instance id, in its message or its
// data (spec 4.1: the id appears in no protocol message, errors included).
func (c *checker) sawError(what string, err error) {
	var ce *host.CallError
	if !errors.As(err, &ce) || ce.Code == 0 {
		return // the host failed the request itself: nothing the Tick sent
	}
	c.ids.look(what+"'s message", []byte(ce.Message))
	c.ids.look(what+"'s data", ce.Data)
}

// stop ends the watch and waits for it; it may be called more than once.
func (w *idWatch) stop() {
	w.once.Do(func() {
		close(w.quit)
		<-w.done
		w.sub.Close()
	})
}

func (c *checker) instanceIDFindings() {
	w := c.ids
	w.look("the last state", c.in.State().Data)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.count > 0 {
		c.r.find("C-S2", SevFailure, "the instance id %q (TICKLOOP_INSTANCE_ID) appeared %d times in the Tick's messages, first in %s; it is for the Tick's logs only and appears in no protocol message (spec 4.1)",
			w.id, w.count, fmt.Sprint(w.where))
	}
}
