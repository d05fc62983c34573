package host

import (
	"bufio"
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

// lineReader splits a Tick's stdout into lines. It never holds more than one line of at most
// max bytes (plus bufio's window), however long the line the Tick is writing.
type lineReader struct {
	r   *bufio.Reader
	buf []byte // the line being assembled when it spans bufio's window
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 16<<10), max: max}
}

// next returns the next line without its newline. The slice is valid until the following call.
// At a clean end it returns io.EOF; a final line without a newline gives errNoFinalNewline, and a
// line longer than max gives errLineTooLong as soon as the excess is seen.
func (lr *lineReader) next() ([]byte, error) {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil // one huge line does not pin its buffer for the session's life
	}
	lr.buf = lr.buf[:0]
	for {
		frag, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil:
			if len(lr.buf)+len(frag)-1 > lr.max {
				return nil, errLineTooLong
			}
			if len(lr.buf) == 0 {
				return frag[:len(frag)-1], nil
			}
			lr.buf = append(lr.buf, frag...)
			return lr.buf[:len(lr.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(lr.buf)+len(frag) > lr.max {
				return nil, errLineTooLong
			}
			lr.buf = append(lr.buf, frag...)
		case errors.Is(err, io.EOF):
			if len(lr.buf)+len(frag) == 0 {
				return nil, io.EOF
			}
			return nil, errNoFinalNewline
		default:
			return nil, err
		}
	}
}

// lineBuffered reports whether a whole next line is already buffered: then next returns it
// without reading, and the line it returned last stays intact until the call after that.
func (lr *lineReader) lineBuffered() bool {
	b, _ := lr.r.Peek(lr.r.Buffered())
	return bytes.LastIndexByte(b, '\n') >= 0 // from the end: reads bring whole lines, mostly
}
