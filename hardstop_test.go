package main

import (
	"syscall"
	"testing"
	"time"
)

// A signal ends tickmux within 2 s even when the graceful stop never finishes (a UI loop stuck
// laying out a Tick's 400,000-character text, say).
// spec: H-X1
func TestSignalEndsTickmuxWhateverTheUIDoes(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := newSignalStop(t.Logf)
			s.restore = nil // the test's terminal, if any, is not tickmux's
			exited := make(chan int, 1)
			s.exit = func(code int) { exited <- code }
			stuck := make(chan struct{})
			defer close(stuck)
			stopped := make(chan struct{}, 1)
			s.watch(func() { stopped <- struct{}{}; <-stuck }) // a stop that never returns
			defer s.Close()
			start := time.Now()
			if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			expectExit(t, exited, 128+int(sig), start)
			select {
			case <-stopped:
			default:
				t.Error("the graceful stop was not asked for first")
			}
		})
	}
}

// A stop that came without a signal (the person quit, kill-server) is bounded the same way: when
// it does not finish, tickmux exits (status 1) within 2 s of its start.
// spec: H-X1
func TestStopWithoutSignalIsBounded(t *testing.T) {
	s := newSignalStop(t.Logf)
	s.restore = nil
	exited := make(chan int, 1)
	s.exit = func(code int) { exited <- code }
	asked := make(chan struct{}, 1)
	s.watch(func() { asked <- struct{}{} })
	defer s.Close()
	start := time.Now()
	s.arm()
	s.arm() // again (the server tells it from more than one place): one deadline
	expectExit(t, exited, 1, start)
	select {
	case <-asked:
		t.Error("the stop under way was asked for again")
	default:
	}
}

// expectExit waits for the hard stop's exit: code want, within 2 s of start (H-X1's bound).
func expectExit(t *testing.T, exited <-chan int, want int, start time.Time) {
	t.Helper()
	select {
	case code := <-exited:
		if code != want {
			t.Errorf("exit code %d, want %d", code, want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("exited %v after the stop began, want within 2 s", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stop that never finished was not ended")
	}
}
