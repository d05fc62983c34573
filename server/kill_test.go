package server

import (
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"tickmux/internal/sockpath"
)

// envHung makes the test binary play a server that accepts connections and never answers, as a
// stopped or swamped server does; envIgnoreTerm makes it ignore SIGTERM too.
const (
	envHung       = "TICKMUX_TEST_HUNG_SERVER"
	envIgnoreTerm = "TICKMUX_TEST_IGNORE_TERM"
)

func playHungServer(path string) {
	if os.Getenv(envIgnoreTerm) != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.Exit(3)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(4)
		}
		go func() { // owner: playHungServer; reads until the client hangs up, answers nothing
			buf := make([]byte, 4096)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
			}
		}()
	}
}

// kill-server ends a server that cannot answer: SIGTERM, then SIGKILL, found by the socket's
// peer credentials.
func TestKillServerEndsAServerThatDoesNotAnswer(t *testing.T) {
	defer func(a, s time.Duration) { killAnswer, killStop = a, s }(killAnswer, killStop)
	killAnswer, killStop = 300*time.Millisecond, time.Second
	for _, tc := range []struct {
		name       string
		ignoreTerm bool
		want       syscall.Signal
	}{{"ends at SIGTERM", false, syscall.SIGTERM}, {"ignores SIGTERM", true, syscall.SIGKILL}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "tmk")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			if err := os.Chmod(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			sock := filepath.Join(dir, "s.sock")
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), envHung+"="+sock)
			if tc.ignoreTerm {
				cmd.Env = append(cmd.Env, envIgnoreTerm+"=1")
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for i := 0; ; i++ {
				if sockpath.Running(sock) { // not the file: it is there a moment before the listen
					break
				}
				if i > 500 {
					t.Fatal("the hung server never listened")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := KillServer(sock); err != nil {
				t.Fatalf("KillServer: %v", err)
			}
			err = cmd.Wait()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != tc.want {
				t.Fatalf("the server ended with %v, want killed by %v", err, tc.want)
			}
		})
	}
}
