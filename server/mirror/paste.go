package mirror

import (
	"sync"

	"github.com/gdamore/tcell/v2"
)

// A bracketed paste streams from the view that pasted to where the App sends it (views/paste.go):
// the view's reader posts a mark (a key, in the view's order of events) at the paste's start,
// the App chooses the paste's sink when it takes the mark, and the reader writes the paste's
// text to that sink, piece by piece, never as keys.

// PasteSink is where one paste goes (views.PasteSink, the same type): the view's reader writes
// the paste's text to it, or the bytes of a key read inside the paste, and ends it once.
type PasteSink = interface {
	Write(b []byte, quit <-chan struct{})
	WriteKey(ev *tcell.EventKey, quit <-chan struct{})
	End()
}

// pastedText is a piece of a bracketed paste's text as the terminal sent it, between the
// paste's start and end events (viewterm.EventPasteText).
type pastedText interface{ PastedBytes() []byte }

// pasteStream is a paste's start, waiting for the App to choose its sink.
type pasteStream struct {
	mu        sync.Mutex
	sink      PasteSink
	abandoned bool // the view left before the App chose: a sink chosen later is ended at once
	ready     chan struct{}
}

func newPasteStream() *pasteStream { return &pasteStream{ready: make(chan struct{})} }

// give hands the stream its sink (UI goroutine).
func (ps *pasteStream) give(s PasteSink) {
	ps.mu.Lock()
	if ps.abandoned {
		ps.mu.Unlock()
		s.End()
		return
	}
	ps.sink = s
	close(ps.ready)
	ps.mu.Unlock()
}

// wait returns the sink the App chose, or nil once quit closes first.
func (ps *pasteStream) wait(quit <-chan struct{}) PasteSink {
	select {
	case <-ps.ready:
		return ps.sink
	case <-quit:
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.sink == nil {
		ps.abandoned = true
	}
	return ps.sink
}

// dropSink drops a paste when no App chooses where it goes.
type dropSink struct{}

func (dropSink) Write([]byte, <-chan struct{})             {}
func (dropSink) WriteKey(*tcell.EventKey, <-chan struct{}) {}
func (dropSink) End()                                      {}

// pasteMarkKey is the key a mark is posted as; the App knows a mark by its pointer. Should one
// ever reach a pane, F64 is nothing a program is sent.
const pasteMarkKey = tcell.KeyF64

// OnPaste sets the function that chooses where a paste starting now goes (UI goroutine).
func (m *Mirror) OnPaste(f func(post func(func())) PasteSink) {
	m.mu.Lock()
	m.pasteTo = f
	m.mu.Unlock()
}

// postMark posts a key in view id's order of events for the App to run f on the UI goroutine
// when it takes it (TakeMark).
func (m *Mirror) postMark(id string, f func()) {
	ev := tcell.NewEventKey(pasteMarkKey, 0, tcell.ModNone)
	m.mu.Lock()
	m.marks[ev] = f
	m.mu.Unlock()
	m.post(id, ev)
}

// TakeMark is what to run for mark ev, nil when ev is no mark. UI goroutine.
func (m *Mirror) TakeMark(ev *tcell.EventKey) func() {
	if ev.Key() != pasteMarkKey {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.marks[ev]
	delete(m.marks, ev)
	return f
}
