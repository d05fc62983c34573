package host

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A pane's program that left a daemon holding its terminal (setsid, environment cleared, so not
// even the reaper finds it) must not keep Close waiting: the PTY master is closed under the
// reader, which hangs up the slave. Before, the master was in blocking mode and Close waited for
// a read that only the daemon's exit could end.
func TestCloseReturnsWhateverHoldsTheTerminal(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"daemon", "env -i setsid sleep 300 & echo daemon=$!; exec sleep 300"},
		{"shell that exited", "env -i setsid sleep 300 & echo daemon=$!; read x; exit 0"},
		{"ignores hangup", "env -i setsid sh -c 'trap \"\" HUP TERM; exec sleep 300' & echo daemon=$!; trap '' HUP TERM; while :; do sleep 1; done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Launch(LaunchSpec{Argv: []string{"/bin/sh", "-c", tc.script}})
			if err != nil {
				t.Fatal(err)
			}
			daemon := waitDaemon(t, p)
			t.Cleanup(func() { syscall.Kill(daemon, syscall.SIGKILL) })
			if strings.Contains(tc.script, "read x") {
				p.Input([]byte("\n"))
				<-p.Exited()
			}
			start := time.Now()
			closed := make(chan struct{})
			go func() { // owner: this test; Close returns or the test fails below
				p.Close()
				close(closed)
			}()
			select {
			case <-closed:
			case <-time.After(TerminateGrace + 2*time.Second):
				t.Fatalf("Close still waits after %v with a daemon holding the terminal", time.Since(start))
			}
			if !processExists(daemon) {
				t.Fatal("the test's daemon is gone: it proved nothing")
			}
			t.Logf("Close took %v", time.Since(start))
		})
	}
}

func waitDaemon(t *testing.T, p *Process) int {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		for _, l := range strings.Split(p.Terminal().Text(), "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "daemon="); ok {
				// Wait until it has left the group: a signal to the group must not reach it.
				if pid, err := strconv.Atoi(rest); err == nil {
					if sid, err := unix.Getsid(pid); err == nil && sid == pid {
						return pid
					}
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon never started:\n%s", p.Terminal().Text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An instance closed while it initializes: initialize and finish both leave the starting
// status, and both used to close ready (a second close panics). Closes land all through the
// initialization here; ready is closed exactly once either way.
func TestCloseDuringInitializationClosesReadyOnce(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	const n = 24
	done := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		in := openFake(t, h, "good")
		go func(d time.Duration) { // owner: this test; ends after Close
			time.Sleep(d)
			in.Close()
			done <- struct{}{}
		}(time.Duration(i) * time.Millisecond)
		defer waitReady0(t, in)
	}
	for i := 0; i < n; i++ {
		<-done
	}
}

func waitReady0(t *testing.T, in *Instance) {
	select {
	case <-in.Ready():
	case <-time.After(hangGuard):
		t.Errorf("%s: ready never closed", in.ID())
	}
}
