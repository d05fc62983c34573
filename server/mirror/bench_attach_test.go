package mirror

import (
	"bytes"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
	"tickmux/host"
	"tickmux/server/viewterm"
	"tickmux/views"
)

// benchTty is a view's terminal of 160x45 that keeps nothing: each write is counted and
// signalled, as the view's first frame reaching its terminal.
type benchTty struct {
	mu     sync.Mutex
	n      int
	wrote  chan int
	in     *io.PipeReader
	inW    *io.PipeWriter
	closed bool
}

func newBenchTty() *benchTty {
	r, w := io.Pipe()
	return &benchTty{wrote: make(chan int, 64), in: r, inW: w}
}

func (t *benchTty) Start() error           { return nil }
func (t *benchTty) Stop() error            { return nil }
func (t *benchTty) Drain() error           { t.in.CloseWithError(os.ErrDeadlineExceeded); return nil }
func (t *benchTty) NotifyResize(cb func()) {}
func (t *benchTty) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: 160, Height: 45}, nil
}
func (t *benchTty) Read(b []byte) (int, error) { return t.in.Read(b) }
func (t *benchTty) Close() error               { t.in.CloseWithError(io.EOF); return nil }
func (t *benchTty) Write(b []byte) (int, error) {
	select {
	case t.wrote <- len(b):
	default:
	}
	return len(b), nil
}

// The server's part of an attach, in process: a view is announced (Mirror.Expect, the App
// redraws everything), its terminal is set up (viewterm, xterm-256color) and attached, and the
// op ends when its first frame, the status bar's text on it, is written to the terminal. One
// shell pane at its prompt, 160x45, as scripts/bench-start's attach. The view is detached
// between ops, and the App left to settle (not timed). go test -run XXX -bench AttachFirstFrame ./server/mirror
func BenchmarkAttachFirstFrame(b *testing.B) {
	m := NewSized(160, 45)
	q := host.NewApprovalQueue(nil)
	h := host.New(host.Config{Approver: q})
	defer h.Close()
	a := views.New(views.Options{Host: h, Approvals: q, Config: config.Default(), Screen: m})
	if _, err := a.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"sh", "-c", "printf 'START-PROMPT-7q$ '; exec cat"}}, "", views.SideBySide); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run() }()
	defer func() { a.Stop(); <-done }()
	ti, err := tcell.LookupTerminfo("xterm-256color")
	if err != nil {
		b.Fatal(err)
	}
	attach := func() (*benchTty, func()) {
		expected := m.Expect()
		tty := newBenchTty()
		sc := viewterm.New(tty, ti, "UTF-8")
		if err := sc.Init(); err != nil {
			b.Fatal(err)
		}
		<-tty.wrote // the set-up
		gone := make(chan struct{})
		if err := m.Attach("bench", sc, func(string) { close(gone) }); err != nil {
			b.Fatal(err)
		}
		expected()
		return tty, func() { m.Detach("bench", "detached"); <-gone }
	}
	// Warm: the pane's prompt shows.
	_, detach := attach()
	deadline := time.Now().Add(10 * time.Second)
	for !bytes.Contains([]byte(screenText(m)), []byte("START-PROMPT-7q$")) {
		if time.Now().After(deadline) {
			b.Fatal("the prompt never showed")
		}
		time.Sleep(time.Millisecond)
	}
	detach()
	for b.Loop() {
		tty, detach := attach()
		<-tty.wrote // the first frame
		b.StopTimer()
		detach()
		time.Sleep(40 * time.Millisecond) // the App's frame for the detach, and its pacing, are over
		b.StartTimer()
	}
}

// screenText is the logical screen's text, as the views are sent it.
func screenText(m *Mirror) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var s []byte
	for _, c := range m.cells {
		s = append(s, textOf(m.tab.texts, c.text())...)
	}
	return string(s)
}
