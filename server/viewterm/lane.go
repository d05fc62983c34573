package viewterm

import (
	"sync/atomic"
	"time"
)

// Typing lane. A read of printable ASCII, the common case when a person types, would cross
// tcell's input processor, the Mirror's reader, tcell's event queue, tview's poller and tview's
// loop before the App types it into the focused pane; every step is code gone cold since the
// key before (each key of a typist comes after a pause). When the App has opened a lane for the
// view, such a read goes to the pane's program from here at once.
//
// The App decides, never this reader. It opens a lane only on its own goroutine, after it took
// every event of the view's last read (FeedDone is posted after them), and only when a typed
// key would go to a pane as it is (root mode, nothing open over the panes, no card settling,
// no key of the read bound to anything). Lane.Type refuses once anything else has run on its
// goroutine since. Here a read takes the lane only if nothing of the view's is on its way:
// the lane was opened after this terminal's last read given to the input processor (its
// number), that processor waits on no sequence (shadow), and no paste or marker is under way.
// Anything else takes the usual way, which closes the lane until the App opens it again.

// Lane types a read into the program the view's keys go to. Type reports false when the lane
// is closed: then nothing was sent.
type Lane = interface {
	Type(b []byte) bool
}

// laneAt is a lane and the number of the read it was opened after.
type laneAt struct {
	l   Lane
	seq uint64
}

// FeedDone follows the events of each read given to the input processor, once lanes are on:
// Seq numbers the read, for SetLane.
type FeedDone struct {
	Seq uint64
	t   time.Time
}

// When is when the read was done.
func (e *FeedDone) When() time.Time { return e.t }

// FeedSeq is Seq (the Mirror knows the event by this method).
func (e *FeedDone) FeedSeq() uint64 { return e.Seq }

// lanes is the Terminal's lane state.
type lanes struct {
	on   atomic.Bool
	lane atomic.Pointer[laneAt]
	fed  atomic.Uint64 // reads given to the input processor (the reader's goroutine counts)
}

// EnableLanes makes the reader post FeedDone after each read it gives the input processor, and
// take open lanes. Any goroutine.
func (t *Terminal) EnableLanes() { t.ln.on.Store(true) }

// SetLane opens l after read seq (a FeedDone's), or closes the lane when l is nil. Any goroutine.
func (t *Terminal) SetLane(l Lane, seq uint64) {
	if l == nil {
		t.ln.lane.Store(nil)
		return
	}
	t.ln.lane.Store(&laneAt{l: l, seq: seq})
}

// byLane types b through the open lane, if b may take it. Reader's goroutine.
func (t *Terminal) byLane(in *inputSplit, b []byte) bool {
	la := t.ln.lane.Load()
	if la == nil || la.seq != t.ln.fed.Load() || !in.idle() || !printableASCII(b) {
		return false
	}
	if !la.l.Type(b) {
		t.ln.lane.CompareAndSwap(la, nil)
		return false
	}
	return true
}

// fedDone posts the FeedDone of a read just given to the input processor. Reader's goroutine.
func (t *Terminal) fedDone(in *inputSplit) {
	if t.ln.on.Load() {
		in.post(&FeedDone{Seq: t.ln.fed.Add(1), t: time.Now()})
	}
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return len(b) > 0
}

// shadow follows the state of tcell's input processor (v2.13, input.go's scan) as bytes are
// given to it, to tell when it surely waits on nothing: then printable ASCII given to it would
// come out as the same plain keys. It errs one way only: it may call the processor busy when
// it is not (an Esc key alone, whose timeout the processor handles on a timer of its own, keeps
// it busy until the next read), never idle when it is not (TestShadowIdleMeansPlainKeys).
type shadow struct {
	st shadowState
	// alt: the processor may hold an ESC ESC's Alt for its next key (tcell's escaped), which
	// only a key it surely posts clears.
	alt bool
}

type shadowState uint8

const (
	shInit   shadowState = iota
	shEsc                // after ESC
	shCsi                // in a CSI sequence
	shOne                // one byte to come: after ESC N, ESC O, or CSI [ (Linux's F keys)
	shStr                // in a string (ESC ] X ^ _), to BEL or ESC \
	shStrEsc             // an ESC in a string
)

func (s *shadow) idle() bool { return s.st == shInit && !s.alt }

func (s *shadow) scan(b []byte) {
	for _, c := range b {
		if c >= 0x80 { // any rune past ASCII: posted as a key, whatever was under way
			s.st, s.alt = shInit, false
			continue
		}
		switch s.st {
		case shInit:
			if c == 0x1b {
				s.st = shEsc
			} else {
				s.alt = false // every other byte is posted as a key
			}
		case shEsc:
			switch c {
			case '[':
				s.st = shCsi
			case ']', 'X', '^', '_':
				s.st = shStr
			case 'N', 'O':
				s.st = shOne
			case '\\':
				s.st = shInit
			case 0x1b:
				s.alt = true
			default: // Backtab, or a key with Alt: posted
				s.st, s.alt = shInit, false
			}
		case shCsi:
			switch {
			case c == 0x1b:
				s.st = shEsc
			case c >= 0x20 && c <= 0x3f: // parameters and intermediates
			case c == '[': // CSI [: one more byte, a Linux console F key
				s.st = shOne
			case c >= 0x40: // the final byte: posted, or not if unknown
				s.st = shInit
			default: // a control byte: the sequence is dropped
				s.st = shInit
			}
		case shOne:
			// After ESC O an ESC starts a sequence; after ESC N or CSI [ it is taken (or the
			// CSI had no such effect): busy either way, until the next byte tells.
			s.st = shInit
			if c == 0x1b {
				s.st = shEsc
			}
		case shStr:
			switch c {
			case 0x1b:
				s.st = shStrEsc
			case 0x07:
				s.st = shInit
			}
		case shStrEsc:
			if c == '\\' || c == 0x07 {
				s.st = shInit
			} else {
				s.st = shStr
			}
		}
	}
}
