package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// signalServer sends sig to a running server and returns the file the server's log then says it
// wrote (the first submatch of logged) and that file's content; the file must be beside the log,
// and the server must go on.
func signalServer(t *testing.T, sig syscall.Signal, logged string) (path string, content []byte) {
	t.Helper()
	dir := t.TempDir()
	p := startServerProc(t, filepath.Join(dir, "s.sock"))
	p.waitListening(t)
	logPath := filepath.Join(dir, "tickmux", "tickmux.log")
	written := regexp.MustCompile(logged)
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log, _ := os.ReadFile(logPath)
		if m := written.FindSubmatch(log); m != nil {
			path = string(m[1])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing written within 20 s of %v; log:\n%s", sig, log)
		}
	}
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != filepath.Dir(logPath) {
		t.Errorf("%s is not beside the log %s", path, logPath)
	}
	if p.exited(0) {
		t.Fatalf("the server ended on %v", sig)
	}
	return path, content
}

// `kill -USR1` of a running server writes a CPU profile of the next TICKMUX_PROFILE_SECONDS
// beside its log and says where in the log (issue 29: no way to profile a running server).
func TestServerWritesACPUProfileOnSIGUSR1(t *testing.T) {
	t.Setenv(EnvProfileSeconds, "1")
	path, prof := signalServer(t, syscall.SIGUSR1, `CPU profile written: (\S+)`)
	if !bytes.HasPrefix(prof, []byte{0x1f, 0x8b}) {
		t.Errorf("%s is not a gzipped pprof profile (%d bytes)", path, len(prof))
	}
}

// `kill -USR2` of a running server writes every goroutine's stack beside its log at once and says
// where in the log; the server goes on.
func TestServerWritesItsGoroutinesOnSIGUSR2(t *testing.T) {
	path, dump := signalServer(t, syscall.SIGUSR2, `goroutines written: (\S+)`)
	if !bytes.Contains(dump, []byte("goroutine ")) || !bytes.Contains(dump, []byte("tickmux.runServer")) {
		t.Errorf("%s holds no goroutine stacks of the server:\n%.2000s", path, dump)
	}
}
