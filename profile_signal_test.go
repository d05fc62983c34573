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

// `kill -USR1` of a running server writes a CPU profile of the next TICKMUX_PROFILE_SECONDS
// beside its log and says where in the log (issue 29: no way to profile a running server).
func TestServerWritesACPUProfileOnSIGUSR1(t *testing.T) {
	t.Setenv(EnvProfileSeconds, "1")
	dir := t.TempDir()
	p := startServerProc(t, filepath.Join(dir, "s.sock"))
	p.waitListening(t)
	logPath := filepath.Join(dir, "tickmux", "tickmux.log")
	written := regexp.MustCompile(`CPU profile written: (\S+)`)
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		log, _ := os.ReadFile(logPath)
		if m := written.FindSubmatch(log); m != nil {
			prof, err := os.ReadFile(string(m[1]))
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(string(m[1])) != filepath.Dir(logPath) {
				t.Errorf("profile at %s, want beside the log %s", m[1], logPath)
			}
			if !bytes.HasPrefix(prof, []byte{0x1f, 0x8b}) {
				t.Errorf("%s is not a gzipped pprof profile (%d bytes)", m[1], len(prof))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no profile written within 20 s of SIGUSR1; log:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p.exited(0) {
		t.Fatal("the server ended on SIGUSR1")
	}
}

// `kill -USR2` of a running server writes every goroutine's stack beside its log at once and says
// where in the log; the server goes on.
func TestServerWritesItsGoroutinesOnSIGUSR2(t *testing.T) {
	dir := t.TempDir()
	p := startServerProc(t, filepath.Join(dir, "s.sock"))
	p.waitListening(t)
	logPath := filepath.Join(dir, "tickmux", "tickmux.log")
	written := regexp.MustCompile(`goroutines written: (\S+)`)
	if err := p.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		log, _ := os.ReadFile(logPath)
		if m := written.FindSubmatch(log); m != nil {
			dump, err := os.ReadFile(string(m[1]))
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(string(m[1])) != filepath.Dir(logPath) {
				t.Errorf("dump at %s, want beside the log %s", m[1], logPath)
			}
			if !bytes.Contains(dump, []byte("goroutine ")) || !bytes.Contains(dump, []byte("tickmux.runServer")) {
				t.Errorf("%s holds no goroutine stacks of the server:\n%.2000s", m[1], dump)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine dump within 20 s of SIGUSR2; log:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p.exited(0) {
		t.Fatal("the server ended on SIGUSR2")
	}
}
