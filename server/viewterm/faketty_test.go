package viewterm_test

import (
	"bytes"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeTty is a terminal that records what is written to it and reads what the test types.
type fakeTty struct {
	mu      sync.Mutex
	out     bytes.Buffer
	w, h    int
	resize  func()
	started int
	stopped int
	closed  int
	block   chan struct{} // when set, writes wait until it is closed

	in  *io.PipeReader
	inW *io.PipeWriter
}

func newFakeTty(w, h int) *fakeTty {
	r, wr := io.Pipe()
	return &fakeTty{w: w, h: h, in: r, inW: wr}
}

func (t *fakeTty) Start() error { t.mu.Lock(); t.started++; t.mu.Unlock(); return nil }
func (t *fakeTty) Stop() error  { t.mu.Lock(); t.stopped++; t.mu.Unlock(); return nil }

// Drain ends the reader's read, as a tty's read deadline does.
func (t *fakeTty) Drain() error {
	t.in.CloseWithError(os.ErrDeadlineExceeded)
	return nil
}
func (t *fakeTty) NotifyResize(cb func()) { t.mu.Lock(); t.resize = cb; t.mu.Unlock() }
func (t *fakeTty) WindowSize() (tcell.WindowSize, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tcell.WindowSize{Width: t.w, Height: t.h}, nil
}
func (t *fakeTty) Read(b []byte) (int, error) { return t.in.Read(b) }
func (t *fakeTty) Close() error {
	t.mu.Lock()
	t.closed++
	t.mu.Unlock()
	t.in.CloseWithError(io.EOF)
	return nil
}
func (t *fakeTty) Write(b []byte) (int, error) {
	t.mu.Lock()
	block := t.block
	t.mu.Unlock()
	if block != nil {
		<-block
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Write(b)
}

// take is what was written since the last take.
func (t *fakeTty) take() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.out.String()
	t.out.Reset()
	return s
}

// setSize resizes the terminal and tells whoever listens, as SIGWINCH does.
func (t *fakeTty) setSize(w, h int) {
	t.mu.Lock()
	t.w, t.h = w, h
	cb := t.resize
	t.mu.Unlock()
	if cb != nil {
		cb()
	}
}
