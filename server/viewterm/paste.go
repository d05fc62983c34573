package viewterm

import (
	"bytes"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
)

// A bracketed paste is taken off the input processor's path: tcell's reads a paste's text as
// keys (an escape sequence inside it as a key, a line feed as Ctrl-J, and tview keeps only
// printable characters, Enter and Tab of those), which loses what was pasted. The reader cuts
// the paste's text out of what the terminal sends, as it sent it, and passes it on as
// EventPasteText pieces between the paste's start and end events.

const (
	pasteStartSeq = "\x1b[200~"
	pasteEndSeq   = "\x1b[201~"
)

// pasteQuiet is how long a paste may go without a byte before it is taken as ended, as if its end
// marker had come (issue 38 item 6): a start with no end (a terminal that dropped it, a program
// that wrote the start marker to the view's terminal) would otherwise take every later key, the
// prefix included, as paste text for ever. A terminal sends a paste as fast as it can; a pause of
// seconds inside one is a paste that will not end. A test shortens it.
var pasteQuiet = 2 * time.Second

// EventPasteText is a piece of a bracketed paste's text, byte for byte as the terminal sent it,
// between a tcell.EventPaste start and end (at most one read's worth).
type EventPasteText struct {
	t    time.Time
	text []byte
}

// When is when the piece was read.
func (e *EventPasteText) When() time.Time { return e.t }

// PastedBytes is the piece's text.
func (e *EventPasteText) PastedBytes() []byte { return e.text }

// inputSplit feeds what the terminal sends to the input processor, but for a bracketed paste's
// text. The read goroutine's, but for the end of a paste gone quiet (quietEnd), which mu orders
// with the reads.
type inputSplit struct {
	mu       sync.Mutex
	quiet    *time.Timer // while pasting: fires pasteQuiet after the paste's last read
	lastRead time.Time   // the paste's last read
	t        *Terminal
	pasting  bool
	held     []byte // the start of a marker cut at the end of the last read
	utf8     []byte // the start of a UTF-8 sequence cut at the end of the last read
	escFed   bool   // the last byte the input processor got was an ESC that may start a marker
	sh       shadow // the input processor's state (lane.go)
}

// idle reports that nothing the view sent is held here or in the input processor: printable
// ASCII now would come out as the same keys, alone (lane.go).
func (s *inputSplit) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.pasting && len(s.held) == 0 && len(s.utf8) == 0 && !s.escFed && s.sh.idle()
}

// feed takes one read's bytes.
func (s *inputSplit) feed(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.watchQuiet()
	data := b
	if len(s.held) > 0 {
		data = append(s.held, b...)
		s.held = nil
	}
	if s.escFed && !s.pasting {
		// An ESC ended the last read and went to the input processor (it may be the Esc key,
		// which must not wait for the next read): a marker's rest here is taken as the marker,
		// which the processor, waiting after the ESC, completes.
		s.escFed = false
		rest := pasteStartSeq[1:]
		if n := min(len(data), len(rest)); n < len(rest) && string(data) == rest[:n] {
			s.held = append([]byte(nil), data...)
			s.escFed = true
			return
		}
		if bytes.HasPrefix(data, []byte(rest)) {
			s.toProcessor(data[:len(rest)])
			s.pasting = true
			data = data[len(rest):]
		}
	}
	for len(data) > 0 {
		if !s.pasting {
			i := bytes.Index(data, []byte(pasteStartSeq))
			if i < 0 {
				k := cutMarker(data, pasteStartSeq)
				if k == 1 {
					s.toProcessor(data) // a lone ESC goes on at once
					s.escFed = true
					return
				}
				s.toProcessor(data[:len(data)-k])
				s.held = append([]byte(nil), data[len(data)-k:]...)
				return
			}
			s.toProcessor(data[:i])
			s.flushUTF8()
			s.post(tcell.NewEventPaste(true))
			s.pasting = true
			data = data[i+len(pasteStartSeq):]
			continue
		}
		i := bytes.Index(data, []byte(pasteEndSeq))
		if i < 0 {
			k := cutMarker(data, pasteEndSeq)
			s.postText(data[:len(data)-k])
			s.held = append([]byte(nil), data[len(data)-k:]...)
			return
		}
		s.postText(data[:i])
		s.post(tcell.NewEventPaste(false))
		s.pasting = false
		data = data[i+len(pasteEndSeq):]
	}
}

// watchQuiet starts the wait for a paste under way to go quiet, or stops it once no paste is.
// Under mu, after each read.
func (s *inputSplit) watchQuiet() {
	switch {
	case s.pasting:
		s.lastRead = time.Now()
		if s.quiet == nil {
			s.quiet = time.AfterFunc(pasteQuiet, s.quietEnd)
		} else {
			s.quiet.Reset(pasteQuiet)
		}
	case s.quiet != nil:
		s.quiet.Stop()
	}
}

// quietEnd ends a paste that has had no byte for pasteQuiet as its end marker would: the text held
// (the start of an end marker, maybe) goes as paste text, the paste's end follows, and what the
// terminal sends next is keys again. The timer's goroutine.
func (s *inputSplit) quietEnd() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pasting {
		return
	}
	if left := pasteQuiet - time.Since(s.lastRead); left > 0 { // a read came as the timer fired
		s.quiet.Reset(left)
		return
	}
	select {
	case <-s.t.quit:
		return // finalized: nobody reads the events
	default:
	}
	s.postText(s.held)
	s.held = nil
	s.post(tcell.NewEventPaste(false))
	s.pasting = false
}

// cutMarker is the length of the longest end of b that begins marker without completing it.
func cutMarker(b []byte, marker string) int {
	for k := min(len(b), len(marker)-1); k > 0; k-- {
		if string(b[len(b)-k:]) == marker[:k] {
			return k
		}
	}
	return 0
}

// toProcessor gives b to the input processor, whole UTF-8 sequences at a time.
func (s *inputSplit) toProcessor(b []byte) {
	if len(b) == 0 {
		return
	}
	if len(s.utf8) > 0 {
		b = append(s.utf8, b...)
		s.utf8 = nil
	}
	whole := completeUTF8(b)
	if whole > 0 {
		s.t.ip.ScanUTF8(b[:whole])
		s.sh.scan(b[:whole])
	}
	if whole < len(b) {
		s.utf8 = append([]byte(nil), b[whole:]...)
	}
}

// flushUTF8 gives the processor a sequence cut short that no read will complete (a paste starts).
func (s *inputSplit) flushUTF8() {
	if len(s.utf8) > 0 {
		s.t.ip.ScanUTF8(s.utf8)
		s.sh.scan(s.utf8)
		s.utf8 = nil
	}
}

func (s *inputSplit) postText(b []byte) {
	if len(b) > 0 {
		s.post(&EventPasteText{t: time.Now(), text: append([]byte(nil), b...)})
	}
}

func (s *inputSplit) post(ev tcell.Event) {
	select {
	case <-s.t.quit:
	case s.t.evs <- ev:
	}
}
