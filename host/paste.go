package host

import (
	"errors"
	"time"
)

// A paste reaches the program as a stream: whoever holds the PasteWriter (a view's reader
// goroutine) writes it in pieces and waits while the program has not read what went before, so
// a paste of any size holds at most pasteWindow bytes here. Meanwhile input typed elsewhere
// (another view's keys) waits behind the paste instead of landing inside it.

// pasteWindow is how much of a paste may wait for the program at once.
const pasteWindow = 64 << 10

// pasteStall is how long a paste waits for a program that reads none of it before the rest of
// the paste is dropped: a program that never reads its terminal must not hold the view that
// pasted (its keys, its detach) for ever.
var pasteStall = 5 * time.Second // a var: tests shorten it

// ErrPasteStalled is returned by PasteWriter.Write when the program read nothing for pasteStall.
var ErrPasteStalled = errors.New("the program stopped reading its terminal; the rest of the paste was dropped")

// PasteWriter writes one paste into the program's terminal; one goroutine uses it.
type PasteWriter struct {
	p      *Process
	closed bool
}

// BeginPaste starts a paste: until Close, Input holds what others type and lets it in after the
// paste. Two pastes at once (two views pasting into one pane) go in piece by piece, in the order
// written; input typed meanwhile waits for both.
func (p *Process) BeginPaste() *PasteWriter {
	p.inMu.Lock()
	p.uncorkLocked() // what was typed before the paste goes before it
	p.pastes++
	if p.inRoom == nil { // before any wait: the writer pokes it after every piece it takes from now
		p.inRoom = make(chan struct{}, 1)
	}
	p.inMu.Unlock()
	return &PasteWriter{p: p}
}

// Write queues b for the program after what is queued already, waiting (until stop closes, or
// the program read nothing for pasteStall) while more than pasteWindow bytes wait.
func (w *PasteWriter) Write(b []byte, stop <-chan struct{}) error {
	p := w.p
	if w.closed || len(b) == 0 {
		return nil
	}
	stall := time.NewTimer(pasteStall)
	defer stall.Stop()
	for {
		p.inMu.Lock()
		if p.inClosed {
			p.inMu.Unlock()
			return nil
		}
		if p.inBytes < pasteWindow {
			p.queueLocked(b)
			p.inMu.Unlock()
			return nil
		}
		room := p.inRoom
		p.inMu.Unlock()
		select {
		case <-room:
			if !stall.Stop() {
				<-stall.C
			}
			stall.Reset(pasteStall)
		case <-stall.C:
			return ErrPasteStalled
		case <-stop:
			return errors.New("the paste was stopped")
		case <-p.done:
			return nil
		}
	}
}

// Close ends the paste with tail (its closing marker, queued whatever the window holds) and lets
// in what others typed meanwhile. It never waits.
func (w *PasteWriter) Close(tail []byte) {
	if w.closed {
		return
	}
	w.closed = true
	p := w.p
	p.inMu.Lock()
	defer p.inMu.Unlock()
	if len(tail) > 0 && !p.inClosed {
		p.queueLocked(tail)
	}
	p.pastes--
	if p.pastes > 0 || len(p.inHeld) == 0 {
		return
	}
	held := p.inHeld
	p.inHeld = nil
	p.inBytes -= p.heldBytes
	p.heldBytes = 0
	if p.inClosed {
		return
	}
	for _, b := range held {
		p.queueLocked(b)
	}
}

// queueLocked gives b to the terminal after what waits already: at once when nothing waits and
// the terminal takes it, otherwise through the writer. Called with inMu held.
func (p *Process) queueLocked(b []byte) {
	if !p.inWriting {
		if b = b[p.writeNow(b):]; len(b) == 0 {
			return
		}
		p.inWriting = true
		p.inWG.Add(1)
		go p.writeInput() // owner: p; exits once the queue is empty (Close waits for it)
	}
	p.inQueue = append(p.inQueue, append([]byte(nil), b...))
	p.inBytes += len(b)
}
