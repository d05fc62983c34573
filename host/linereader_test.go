package host

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t testing.TB, input string, max int) ([]string, error) {
	t.Helper()
	lr := newLineReader(strings.NewReader(input), max)
	var lines []string
	for {
		line, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return lines, nil
			}
			return lines, err
		}
		lines = append(lines, string(line))
	}
}

// spec: H-T2
func TestLineReaderSplitsLines(t *testing.T) {
	t.Parallel()
	lines, err := readAll(t, "a\n\nbc\r\n{\"x\":1}\n", MaxLineBytes)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "", "bc\r", `{"x":1}`}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q, want %q", lines, want)
	}
}

// spec: H-V2
func TestLineReaderOutputWithoutFinalNewline(t *testing.T) {
	t.Parallel()
	lines, err := readAll(t, "one\ntwo", MaxLineBytes)
	if !errors.Is(err, errNoFinalNewline) {
		t.Fatalf("err %v, want errNoFinalNewline", err)
	}
	if len(lines) != 1 || lines[0] != "one" {
		t.Fatalf("lines before the end: %q", lines)
	}
}

// spec: H-V2
func TestLineReaderCapsLines(t *testing.T) {
	t.Parallel()
	const max = 200 << 10 // several times bufio's window
	exact := strings.Repeat("x", max) + "\n"
	if lines, err := readAll(t, exact, max); err != nil || len(lines) != 1 || len(lines[0]) != max {
		t.Fatalf("a line of exactly max bytes: %d lines, err %v", len(lines), err)
	}
	over := strings.Repeat("x", max+1) + "\n"
	if _, err := readAll(t, over, max); !errors.Is(err, errLineTooLong) {
		t.Fatalf("a line of max+1 bytes: err %v, want errLineTooLong", err)
	}
}

// countingReader serves an endless line without a newline and counts what was read.
type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	c.n += len(p)
	return len(p), nil
}

// spec: H-V2
func TestLineReaderNeverBuffersPastTheCap(t *testing.T) {
	t.Parallel()
	const max = 1 << 20
	src := &countingReader{}
	lr := newLineReader(src, max)
	if _, err := lr.next(); !errors.Is(err, errLineTooLong) {
		t.Fatalf("err %v, want errLineTooLong", err)
	}
	// The reader stops within one bufio window of the cap.
	if src.n > max+128<<10 {
		t.Fatalf("read %d bytes of an endless line with a cap of %d", src.n, max)
	}
	if cap(lr.lb.b) > 2*max {
		t.Fatalf("buffer grew to %d bytes", cap(lr.lb.b))
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\n"), 4)
	f.Add([]byte("abc"), 2)
	f.Add([]byte("\n\n\n"), 0)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		lr := newLineReader(bytes.NewReader(data), max)
		total := 0
		for {
			line, err := lr.next()
			if err != nil {
				if errors.Is(err, io.EOF) && total != len(data) {
					t.Fatalf("clean EOF after %d of %d bytes", total, len(data))
				}
				return
			}
			if len(line) > max {
				t.Fatalf("line of %d bytes with max %d", len(line), max)
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatal("newline inside a line")
			}
			total += len(line) + 1
		}
	})
}

// lineReader reads the lines of a blocking reader through a lineBuf, one at a time, as the
// session does: the properties of the line splitting are tested through it.
type lineReader struct {
	lb  *lineBuf
	r   io.Reader
	err error // the error of the last read, returned once the lines before it are
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{lb: newLineBuf(max), r: r}
}

// next returns the next line without its newline. The slice is valid until the following call.
// At a clean end it returns io.EOF; a final line without a newline gives errNoFinalNewline, and a
// line longer than max gives errLineTooLong as soon as the excess is seen.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, ok, err := lr.lb.line()
		if err != nil || ok {
			return line, err
		}
		if lr.err != nil {
			return nil, lr.lb.endReason(lr.err)
		}
		_, lr.err = lr.lb.fill(lr.r.Read)
	}
}
