package guardian

import (
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A guardian gives back the binary's pages ReleaseDelay after it starts to wait, not at once
// (the view does the same: earlyview's TestNewViewReleasesLater), and again after a burst of
// messages (panes opened), which touched them, once.
func TestGuardianReleasesLater(t *testing.T) {
	var calls atomic.Int32
	defer func(f func() int) { release = f }(release)
	release = func() int { calls.Add(1); return 0 }
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	tickmux, in := os.NewFile(uintptr(fds[0]), "tickmux"), os.NewFile(uintptr(fds[1]), "guardian-input")
	defer in.Close()
	start := time.Now()
	done := make(chan int)
	go func() { done <- run(in) }()
	for calls.Load() == 0 {
		if time.Since(start) > ReleaseDelay+10*time.Second {
			t.Fatal("the guardian never gave back the binary's pages")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if waited := time.Since(start); waited < ReleaseDelay {
		t.Errorf("the guardian gave back the binary's pages after %v, before ReleaseDelay (%v)", waited, ReleaseDelay)
	}
	for i := 0; i < 3; i++ { // a burst: three panes gone
		if _, err := tickmux.Write([]byte("forget 999999")); err != nil {
			t.Fatal(err)
		}
	}
	for calls.Load() == 1 {
		if time.Since(start) > 2*ReleaseDelay+20*time.Second {
			t.Fatal("the guardian did not give back the pages its messages touched")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(ReleaseDelay + 200*time.Millisecond) // a third release would come by now
	tickmux.Close()                                 // tickmux is gone: the guardian ends
	if code := <-done; code != 0 {
		t.Errorf("the guardian exited with %d", code)
	}
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 2 {
		t.Errorf("%d releases, want 2: one after the start, one after the burst", n)
	}
}
