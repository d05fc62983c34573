package host

import (
	"bytes"
	"errors"
	"io"
)

// MaxLineBytes is the longest line a Tick may write, newline excluded (limits table).
const MaxLineBytes = 8 << 20

var (
	errLineTooLong    = errors.New("line too long")
	errNoFinalNewline = errors.New("output ended without a final newline")
)

// lineChunk is the line buffer's first size and the least room a read is given.
const lineChunk = 16 << 10

// lineBuf holds what was read from a Tick's stdout and not handled yet, and splits it into
// lines. Reads are made by its owner (fill), with or without waiting, so the same buffer serves
// the session's goroutine and the ingester. It never holds more than one line of at most max
// bytes plus one read's room, however long the line the Tick is writing.
type lineBuf struct {
	b    []byte // b[r:w] is read and not handled yet
	r, w int
	seen int // b[r:r+seen] has been searched for a newline, in vain
	max  int
}

func newLineBuf(max int) *lineBuf { return &lineBuf{max: max} }

// fill makes one read into the buffer's free room, first dropping the lines handled and, for a
// line longer than the buffer, growing it. It returns what read returned.
func (lb *lineBuf) fill(read func([]byte) (int, error)) (int, error) {
	if lb.r == lb.w {
		lb.r, lb.w, lb.seen = 0, 0, 0
		if cap(lb.b) > 1<<20 {
			lb.b = nil // one huge line does not pin its buffer for the session's life
		}
	}
	if len(lb.b)-lb.w < lineChunk/2 {
		if lb.r > 0 {
			lb.w = copy(lb.b, lb.b[lb.r:lb.w])
			lb.r = 0
		}
		if len(lb.b)-lb.w < lineChunk/2 {
			nb := make([]byte, max(lineChunk, min(2*len(lb.b), lb.max+lineChunk)))
			copy(nb, lb.b[:lb.w])
			lb.b = nb
		}
	}
	n, err := read(lb.b[lb.w:])
	lb.w += n
	return n, err
}

// full reports whether the last fill filled the buffer: the source may have more at once.
func (lb *lineBuf) full() bool { return lb.w == len(lb.b) }

// line returns the next whole line buffered, without its newline; ok is false when none is.
// The line is valid until the next fill. A line already longer than max gives errLineTooLong,
// as soon as the excess is seen.
func (lb *lineBuf) line() (line []byte, ok bool, err error) {
	i := bytes.IndexByte(lb.b[lb.r+lb.seen:lb.w], '\n')
	if i < 0 {
		lb.seen = lb.w - lb.r
		if lb.seen > lb.max {
			return nil, false, errLineTooLong
		}
		return nil, false, nil
	}
	end := lb.r + lb.seen + i
	line = lb.b[lb.r:end]
	if len(line) > lb.max {
		return nil, false, errLineTooLong
	}
	lb.r, lb.seen = end+1, 0
	return line, true, nil
}

// endReason is what a read's error means once every whole line before it has been handled: at
// the end of output, a partial line left is errNoFinalNewline.
func (lb *lineBuf) endReason(err error) error {
	if errors.Is(err, io.EOF) && lb.r < lb.w {
		return errNoFinalNewline
	}
	return err
}
