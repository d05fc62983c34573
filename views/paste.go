package views

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
)

// A bracketed paste streams from the view that pasted to where it goes, in order, at any size,
// never as keys:
//
//	view's reader ──paste start──▶ start mark (a key in the queue, in order) ──▶ App (UI goroutine)
//	                                                                 chooses the sink ──┘
//	view's reader ──text, piece by piece──▶ sink ──▶ the pane's program (waits while it reads)
//	view's reader ──paste end──▶ sink's end (the closing marker; or, for the prompt, an end mark)
//
// The App sees only the marks, never the text as keys: a paste cannot answer a card, drive the
// prefix or scroll mode, whatever it holds. The view's reader goroutine waits for the pane, so
// what a paste holds in memory is bounded by the pieces in the view's queue and the pane's
// paste window (host.PasteWriter), not by the paste's size.

// pasteSink is where one paste goes, chosen by the App when the paste starts (UI goroutine).
// The view's reader goroutine writes to it and ends it; end is called once.
type pasteSink interface {
	write(b []byte, quit <-chan struct{})
	end()
}

// runMark runs ev's action when ev is a paste's mark, and reports whether it was one. UI goroutine.
func (a *App) runMark(ev *tcell.EventKey) bool {
	if a.mirror == nil {
		return false
	}
	f := a.mirror.TakeMark(ev)
	if f == nil {
		return false
	}
	f()
	return true
}

// pasteSink chooses where a paste starting now goes (UI goroutine), as a key typed now would go,
// except that nothing but a pane or a line being typed takes a paste: it never answers a card, a
// question or scroll mode. post runs a function on the UI goroutine, after everything the view
// sent before.
func (a *App) pasteSink(post func(func())) pasteSink {
	switch {
	case a.prompt.open || a.input != nil:
		return &lineSink{a: a, post: post}
	case a.view.confirm != nil, a.restoreAsk != nil, a.help.open, a.paneNumbersShown():
		return dropSink{}
	case a.view.mode != keymap.ModeRoot && a.view.mode != keymap.ModeLocked:
		return dropSink{} // a paste never answers a card or drives scroll mode
	}
	if p := a.focusedPane(); p != nil {
		id := p.ID()
		return p.term.startPaste(func(err error) {
			post(func() {
				a.say(fmt.Sprintf("paste into %s: %v", id, err)) // and the log
				a.rebuild()
			})
		})
	}
	return dropSink{}
}

// pasteText types text (a paste buffer: prefix ], or the one chosen with prefix =) into the
// focused pane, as a paste: bracketed when its program asked for it, never keys.
func (a *App) pasteText(text string) {
	p := a.focusedPane()
	switch {
	case p == nil:
	case p.inst.Status() == host.StatusEnded:
		a.say(p.ID() + " has ended")
	default:
		p.term.Paste(text)
	}
}

// dropSink drops a paste nothing takes.
type dropSink struct{}

func (dropSink) write([]byte, <-chan struct{}) {}
func (dropSink) end()                          {}

// maxLinePaste bounds a paste into a line being typed (the `:` prompt, a question): the rest is
// dropped.
const maxLinePaste = 64 << 10

// lineSink collects a paste into the line being typed, put there on the UI goroutine at its end,
// on one line: encoded as for a pane (appendPasted), then line breaks and tabs as spaces and
// other controls dropped.
type lineSink struct {
	a    *App
	post func(func())
	text strings.Builder
}

func (s *lineSink) write(b []byte, _ <-chan struct{}) {
	for _, r := range string(appendPasted(nil, b)) {
		if s.text.Len() >= maxLinePaste {
			return
		}
		switch {
		case r == '\r' || r == '\n' || r == '\t':
			s.text.WriteByte(' ')
		case unicode.IsControl(r):
		default:
			s.text.WriteRune(r)
		}
	}
}

func (s *lineSink) end() {
	text := s.text.String()
	s.post(func() {
		a := s.a
		switch {
		case text == "":
		case a.prompt.open:
			a.prompt.paste(text)
		case a.input != nil:
			a.inputPaste(text)
		}
	})
}

// paneSink streams a paste into a pane's program, bracketed when the program asked for it when
// the paste started, encoded as xterm encodes a paste (appendPasted). It keeps the last piece
// back and writes it with the closing marker: a paste of one piece (most of them) goes in one
// write, as a terminal sends it (bash's readline, given the closing marker in a read of its own,
// now and then let a ^C typed after the paste end up before it).
type paneSink struct {
	w         pasteWriter
	dropped   func(error)
	bracketed bool
	started   bool
	stalled   bool
	last      []byte // the piece kept back, encoded
	spare     []byte
}

// pasteWriter is a program's terminal taking a paste (host.PasteWriter).
type pasteWriter interface {
	Write(b []byte, stop <-chan struct{}) error
	Close(tail []byte)
}

// pasteBackend is a backend that takes a paste as a stream (*host.Process); a backend without it
// gets the paste through Input, piece by piece.
type pasteBackend interface {
	BeginPaste() *host.PasteWriter
}

// inputWriter gives a paste to a backend's Input (a backend that cannot stream one).
type inputWriter struct{ b TerminalBackend }

func (w inputWriter) Write(b []byte, _ <-chan struct{}) error { return w.b.Input(b) }
func (w inputWriter) Close(tail []byte)                       { _ = w.b.Input(tail) }

// startPaste begins a paste into the program (UI goroutine): from now on, input from elsewhere
// waits until the paste is in.
func (v *TerminalView) startPaste(dropped func(error)) pasteSink {
	v.scroll = 0
	s := &paneSink{bracketed: v.term.Modes().BracketedPaste, dropped: dropped}
	if pb, ok := v.backend.(pasteBackend); ok {
		s.w = pb.BeginPaste()
	} else {
		s.w = inputWriter{v.backend}
	}
	return s
}

func (s *paneSink) write(b []byte, quit <-chan struct{}) {
	if s.stalled || len(b) == 0 {
		return
	}
	next := s.spare[:0]
	if !s.started && s.bracketed {
		next = append(next, pasteStart...)
	}
	s.started = true
	next = appendPasted(next, b)
	if len(s.last) > 0 {
		if err := s.w.Write(s.last, quit); err != nil {
			s.stalled = true // the rest is dropped; the paste is still closed
			select {
			case <-quit: // the view left: nobody to tell
			default:
				if s.dropped != nil {
					s.dropped(err)
				}
			}
			return
		}
	}
	s.last, s.spare = next, s.last
}

func (s *paneSink) end() {
	tail := s.last
	if s.stalled {
		tail = nil
	}
	if s.started && s.bracketed {
		tail = append(tail, pasteEnd...)
	}
	s.w.Close(tail)
}
