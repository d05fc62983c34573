package host

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeRemote keeps what a pane of another host was given.
type fakeRemote struct {
	mu    sync.Mutex
	in    []byte
	sizes [][2]int
}

func (f *fakeRemote) Input(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.in = append(f.in, b...)
}

func (f *fakeRemote) Resize(cols, rows int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sizes = append(f.sizes, [2]int{cols, rows})
}

func (f *fakeRemote) got() (string, [][2]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.in), append([][2]int(nil), f.sizes...)
}

// A pane of another host: its id is the one given, its program a placeholder, its input (typed,
// corked, pasted) and its sizes go to its RemoteIO, and what is written to its terminal shows.
func TestRemotePaneInputAndSizeGoToItsHost(t *testing.T) {
	h := newTestHost(t, Config{Sandbox: &Sandbox{Policy: SandboxAll}})
	fr := &fakeRemote{}
	in, err := h.Open(OpenSpec{Remote: fr, ID: "b:shell:1", Cols: 40, Rows: 10, Argv: []string{"rm", "-rf", "/nope"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Remove(in.ID())
	if in.ID() != "b:shell:1" || in.IsTick() || in.Sandboxed() || in.Remote() != fr {
		t.Fatalf("id %q, tick %v, sandboxed %v", in.ID(), in.IsTick(), in.Sandboxed())
	}
	if _, err := h.Open(OpenSpec{Remote: fr, ID: "b:shell:1"}); err == nil {
		t.Fatal("a second pane with the same id opened")
	}
	p := in.Process()
	p.Input([]byte("ls\r"))
	p.Cork()
	p.Input([]byte("a"))
	p.Input([]byte("b"))
	p.Uncork()
	w := p.BeginPaste()
	if err := w.Write([]byte("\x1b[200~pasted"), nil); err != nil {
		t.Fatal(err)
	}
	w.Close([]byte("\x1b[201~"))
	if err := p.Resize(30, 8); err != nil {
		t.Fatal(err)
	}
	text, sizes := fr.got()
	if text != "ls\rab\x1b[200~pasted\x1b[201~" {
		t.Fatalf("the remote got %q", text)
	}
	if len(sizes) != 1 || sizes[0] != [2]int{30, 8} {
		t.Fatalf("the remote got the sizes %v", sizes)
	}
	if c, r := in.Terminal().Size(); c != 30 || r != 8 {
		t.Fatalf("the local terminal is %dx%d", c, r)
	}
	in.Terminal().Write([]byte("\x1b[Hfrom the other host"))
	if !strings.Contains(in.Terminal().Text(), "from the other host") {
		t.Fatalf("screen %q", in.Terminal().Text())
	}
	// Nothing reached the placeholder's terminal to echo.
	time.Sleep(100 * time.Millisecond)
	if got := in.Terminal().Text(); got != "from the other host" {
		t.Fatalf("screen %q", got)
	}
}

// A watcher's size stays whatever the host's own views ask, until cleared: then the size they
// asked for last comes back.
func TestSizeOverride(t *testing.T) {
	h := newTestHost(t, Config{})
	in, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh"}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Remove(in.ID())
	p := in.Process()
	if err := p.SetSizeOverride(50, 12); err != nil {
		t.Fatal(err)
	}
	if c, r := p.Size(); c != 50 || r != 12 {
		t.Fatalf("size %dx%d, want the override 50x12", c, r)
	}
	_ = p.Resize(100, 30)
	if c, r := p.Size(); c != 50 || r != 12 {
		t.Fatalf("size %dx%d after a view's resize, want the override 50x12", c, r)
	}
	if c, r := in.Terminal().Size(); c != 50 || r != 12 {
		t.Fatalf("terminal %dx%d, want 50x12", c, r)
	}
	p.ClearSizeOverride()
	if c, r := p.Size(); c != 100 || r != 30 {
		t.Fatalf("size %dx%d after clearing, want the view's 100x30", c, r)
	}
	if err := p.SetSizeOverride(0, 3); err == nil {
		t.Fatal("a size of no column was taken")
	}
}
