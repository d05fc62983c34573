package host

import (
	"testing"
	"time"
)

// A program may ask which pane it runs in (an agent's hook, through the control socket) before
// the Open that started it has listed its instance: PaneOf waits for the listing.
// The gap between the start and the listing is widened here to what a loaded machine can give.
func TestPaneOfWaitsForTheListing(t *testing.T) {
	h := newTestHost(t, Config{})
	started := make(chan int)
	afterLaunch = func(p *Process) {
		started <- p.Pid()
		time.Sleep(300 * time.Millisecond)
	}
	t.Cleanup(func() { afterLaunch = func(*Process) {} })
	opened := make(chan *Instance, 1)
	go func() {
		in, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "exec sleep 1000"}})
		if err != nil {
			t.Error(err)
		}
		opened <- in
	}()
	pid := <-started // the program runs; its instance is not listed yet
	if n := len(h.Instances()); n != 0 {
		t.Fatalf("%d instances listed before the listing", n)
	}
	got := h.PaneOf(pid)
	in := <-opened
	if in == nil {
		t.Fatal("the open failed")
	}
	defer in.Close()
	if got != in {
		t.Fatalf("PaneOf(%d) = %v before the listing, want %s", pid, got, in.ID())
	}
}
