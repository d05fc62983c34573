package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tickmux/host/guardian"
	"tickmux/server"
)

// startedServer starts a server the way `tickmux` does (server.Start: its guardian first, the
// server as the guardian's child) on a socket in dir, running argv in its first pane, and
// returns its pid and its guardian's.
func startedServer(t *testing.T, dir string, argv ...string) (srv, guard int, socket, logPath string) {
	t.Helper()
	socket, logPath = filepath.Join(dir, "s.sock"), filepath.Join(dir, "tickmux.log")
	for k, v := range map[string]string{envAsMain: "1", "XDG_STATE_HOME": dir, "XDG_CONFIG_HOME": dir, "HOME": dir, "SHELL": "/bin/sh"} {
		t.Setenv(k, v)
	}
	if err := server.Start(server.ServerArgs(socket, "", logPath, 80, 24, false, argv)); err != nil {
		t.Fatalf("server.Start: %v", err)
	}
	for _, pid := range cmdlinePids(socket) {
		argv, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if args := strings.Split(string(argv), "\x00"); len(args) > 1 && args[1] == "server" {
			srv = pid
		}
	}
	if srv == 0 {
		t.Fatal("no server runs on the socket")
	}
	guard = parentOf(srv)
	argv0, _ := os.ReadFile("/proc/" + strconv.Itoa(guard) + "/cmdline")
	self, _ := os.Executable()
	if string(argv0) != self+"\x00" || parentOf(guard) != os.Getpid() {
		t.Fatalf("the server's parent %d (%q, parent %d) is not its guardian, started by this process", guard, argv0, parentOf(guard))
	}
	return srv, guard, socket, logPath
}

// cmdlinePids lists the live processes whose command line holds s.
func cmdlinePids(s string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) && !guardian.Ended(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parentOf is a process's parent pid, 0 if unknown.
func parentOf(pid int) int {
	stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// waitPidFile waits for a pid written to path.
func waitPidFile(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
	}
}

// A program in a pane that leaves its process group and session (setsid and a double fork, one
// with its environment cleared, so that no tag finds it) and one that forks in a loop end when
// the server is killed with SIGKILL: the server's guardian, its parent, ends every process left
// below it. (Before, they were reparented to init and lived on, "outside tickmux".)
// spec: H-X1
func TestKill9OfTheServerEndsProgramsThatLeftTheirSession(t *testing.T) {
	dir := t.TempDir()
	tag := strconv.Itoa(500000 + os.Getpid()%100000) // in every command line to be ended
	script := fmt.Sprintf(`setsid sh -c 'sleep %[1]s </dev/null >/dev/null 2>&1 & echo $! > %[2]s/detached' &
setsid env -i /bin/sh -c 'sleep %[1]s </dev/null >/dev/null 2>&1 & echo $! > %[2]s/bare' &
setsid sh -c 'echo $$ > %[2]s/loop; i=0; while [ $i -lt 1500 ]; do (sleep %[1]s &); i=$((i+1)); done' >/dev/null 2>&1 &
sleep %[1]s`, tag, dir)
	srv, guard, _, logPath := startedServer(t, dir, "/bin/sh", "-c", script)
	defer func() {
		for _, pid := range append(cmdlinePids(tag), srv) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	detached, bare, loop := waitPidFile(t, filepath.Join(dir, "detached")), waitPidFile(t, filepath.Join(dir, "bare")), waitPidFile(t, filepath.Join(dir, "loop"))
	for deadline := time.Now().Add(20 * time.Second); parentOf(bare) != srv || parentOf(detached) != srv; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the double-forked sleeps' parents are %d and %d, not the server %d (a subreaper)", parentOf(detached), parentOf(bare), srv)
		}
	}
	t.Logf("%d processes to end", len(cmdlinePids(tag)))
	if err := syscall.Kill(srv, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := cmdlinePids(tag)
		if len(left) == 0 && guardian.Ended(guard) {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("20 s after the server's kill -9: guardian ended %v, left %v (detached %d, bare %d, loop %d)\nlog:\n%s",
				guardian.Ended(guard), left, detached, bare, loop, log)
		}
	}
	t.Logf("every process and the guardian ended %v after the kill", time.Since(killed).Round(time.Millisecond))
}

// When the server's guardian is killed by hand, the server notices (it was its parent), starts a
// guardian of its own that watches the pane's group, and says so in its log; kill-server still
// ends the server and its pane.
func TestGuardianOfTheServerKilled(t *testing.T) {
	dir := t.TempDir()
	tag := strconv.Itoa(600000 + os.Getpid()%100000)
	srv, guard, socket, logPath := startedServer(t, dir, "/bin/sh", "-c", "echo $$ > "+dir+"/pane; sleep "+tag)
	defer func() {
		for _, pid := range append(cmdlinePids(tag), srv) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	pane := waitPidFile(t, filepath.Join(dir, "pane"))
	if err := syscall.Kill(guard, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("guardian: the guardian (pid %d) is gone: it ended (it was this server's parent", guard)
	var line string
	for deadline := time.Now().Add(20 * time.Second); line == ""; time.Sleep(20 * time.Millisecond) {
		log, _ := os.ReadFile(logPath)
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, want) {
				line = l
			}
		}
		if line == "" && time.Now().After(deadline) {
			t.Fatalf("the log does not say the guardian was replaced:\n%s", log)
		}
	}
	t.Log(line)
	var fresh int
	if _, after, ok := strings.Cut(line, "started a new guardian (pid "); !ok || !strings.HasSuffix(line, "which now watches 1 process group") {
		t.Fatalf("no new guardian watches the pane: %s", line)
	} else if fmt.Sscanf(after, "%d", &fresh); parentOf(fresh) != srv {
		t.Fatalf("the new guardian %d is not the server's child (its parent is %d)", fresh, parentOf(fresh))
	}
	if err := server.KillServer(socket); err != nil {
		t.Fatalf("kill-server: %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); !guardian.Ended(srv) || !guardian.Ended(pane) || len(cmdlinePids(tag)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after kill-server: server ended %v, pane ended %v, left %v", guardian.Ended(srv), guardian.Ended(pane), cmdlinePids(tag))
		}
	}
}

// What the Go runtime writes on the server's stderr once its log is open (here the goroutines'
// stacks at SIGQUIT, as a fatal error such as thread exhaustion writes them) is in the log, not
// on the stderr the server was started with.
func TestServerStderrGoesToItsLog(t *testing.T) {
	dir := t.TempDir()
	p := startServerProc(t, filepath.Join(dir, "s.sock"))
	p.waitListening(t)
	logPath := filepath.Join(dir, "tickmux", "tickmux.log")
	if err := p.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	if !p.exited(20 * time.Second) {
		t.Fatal("the server did not end at SIGQUIT")
	}
	log, _ := os.ReadFile(logPath)
	if !bytes.Contains(log, []byte("SIGQUIT: quit")) || !bytes.Contains(log, []byte("goroutine ")) {
		t.Errorf("the log lacks the runtime's stacks:\n%s", log)
	}
	if strings.Contains(p.errb.String(), "SIGQUIT") {
		t.Errorf("the runtime's stacks went to the server's stderr:\n%s", p.errb.String())
	}
}
