package guardian

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestAncestorArgsReadBack(t *testing.T) {
	for _, args := range [][]string{{"server"}, {"server", "--socket", "/tmp/a b:c", "--", "sh", "-c", "echo 12:x; :"}, {"", "x", ""}} {
		v, _ := strings.CutPrefix(AncestorEnv(args), EnvAncestor+"=")
		if got, ok := decodeArgs(v); !ok || !slices.Equal(got, args) {
			t.Errorf("decodeArgs(%q) = %q, %v; want %q", v, got, ok, args)
		}
	}
	for _, bad := range []string{"", "3:ab", "x:a", "1a", "01:a1:"} {
		if got, ok := decodeArgs(bad); ok && bad != "01:a1:" {
			t.Errorf("decodeArgs(%q) = %q, want a refusal", bad, got)
		}
	}
}

// envAncestorDir makes the test binary, started by its ancestor guardian, play the tickmux server
// in TestAncestorServerChild, writing its pids in that directory.
const envAncestorDir = "TICKMUX_TEST_ANCESTOR_DIR"

// TestAncestorServerChild is TestAncestorEndsEveryDescendant's server: a subreaper, as the real
// one, with a watched group, two programs that left their group and session (a double fork, one
// with its environment cleared) and one forking in a loop, left there for its guardian.
func TestAncestorServerChild(t *testing.T) {
	dir := os.Getenv(envAncestorDir)
	if dir == "" {
		t.Skip("the child of TestAncestorEndsEveryDescendant")
	}
	fd, pid, ok := Inherited()
	if !ok || pid != os.Getppid() || os.Getenv(EnvInherited) != "" || os.Getenv(EnvAncestor) != "" {
		t.Fatalf("Inherited() = %d, %d, %v; parent %d; environment %q", fd, pid, ok, os.Getppid(), os.Environ())
	}
	syscall.CloseOnExec(readyFd) // as the server does: its programs must not hold the pipe
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0); e != 0 {
		t.Fatal(e)
	}
	sleep := os.Getenv("TICKMUX_TEST_SLEEP") // a unique duration: the test finds them by it
	watched := exec.Command("sh", "-c", "sleep "+sleep)
	watched.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := watched.Start(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Sendmsg(fd, []byte(fmt.Sprintf("watch %d term", watched.Process.Pid)), nil, nil, 0); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return "'" + s + "'" }
	// The loop forks as fast as it can, each child leaving a sleep behind and exiting; the chain
	// forks its next generation and exits, so its live process changes pid all the time. Both
	// are bounded, so that a test that fails leaves no fork bomb running for long.
	script := fmt.Sprintf(`setsid sh -c %s &
setsid env -i /bin/sh -c %s &
setsid sh -c %s >/dev/null 2>&1 &
setsid sh -c %s >/dev/null 2>&1 &`,
		q(fmt.Sprintf(`sleep %s </dev/null >/dev/null 2>&1 & echo $! > %s/detached`, sleep, dir)),
		q(fmt.Sprintf(`sleep %s </dev/null >/dev/null 2>&1 & echo $! > %s/bare`, sleep, dir)),
		q(fmt.Sprintf(`echo $$ > %s/loop; i=0; while [ $i -lt 1500 ]; do (sleep %s &); i=$((i+1)); done`, dir, sleep)),
		q(fmt.Sprintf(`: %s; n=0; next() { n=$((n+1)); if [ $n -lt 3000 ]; then (next &); fi; }; next`, sleep)))
	if err := exec.Command("sh", "-c", script).Run(); err != nil {
		t.Fatal(err)
	}
	ready := os.NewFile(readyFd, "ready")
	fmt.Fprintf(ready, "ok %d\n", watched.Process.Pid)
	ready.Close()
	time.Sleep(time.Minute) // until the test kills it
}

// The ancestor guardian starts the server as its child, with the socket and the ready pipe (and
// holds no copy of the pipe), and once the server is killed with SIGKILL it ends the group it
// was told of and then every process left below it: the double-forked programs in sessions of
// their own, one with its environment cleared, and a program forking in a loop. Then it exits.
func TestAncestorEndsEveryDescendant(t *testing.T) {
	if os.Getenv(envAncestorDir) != "" {
		t.Skip("the parent's test")
	}
	began := time.Now()
	dir := t.TempDir()
	sleep := strconv.Itoa(400000 + os.Getpid()%100000)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envAncestorDir+"="+dir, "TICKMUX_TEST_SLEEP="+sleep,
		AncestorEnv([]string{"-test.run=^TestAncestorServerChild$", "-test.v"}))
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // owner: the test; returns when the guardian exits
	sleeps := func() []int { return findCmdline(sleep) }
	defer func() {
		for _, pid := range sleeps() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	line, _ := io.ReadAll(pr) // EOF: the server closed the pipe, and the guardian holds none
	var group int
	if _, err := fmt.Sscanf(string(line), "ok %d", &group); err != nil {
		cmd.Process.Kill()
		t.Fatalf("the server's ready line: %q", line)
	}
	server := onlyChild(t, cmd.Process.Pid)
	state, ppid, _, _ := procStat(server)
	if ppid != cmd.Process.Pid || state == 'Z' {
		t.Fatalf("the server %d (state %c) is not the guardian's child", server, state)
	}
	pids := map[string]int{"group": group}
	for _, name := range []string{"detached", "bare", "loop"} {
		for deadline := time.Now().Add(10 * time.Second); pids[name] == 0; time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if pids[name], _ = strconv.Atoi(strings.TrimSpace(string(b))); pids[name] == 0 && time.Now().After(deadline) {
				t.Fatalf("no pid in %s", name)
			}
		}
	}
	// The loop has started some: the detached programs are the server's (a subreaper) now.
	for deadline := time.Now().Add(10 * time.Second); len(sleeps()) < 8; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the loop did not start its sleeps: %v", sleeps())
		}
	}
	if _, ppid, _, _ := procStat(pids["bare"]); ppid != server {
		t.Fatalf("the double-forked sleep's parent is %d, not the server %d", ppid, server)
	}
	t.Logf("%d processes of the loop and the chain, %v after the start", len(sleeps()), time.Since(began).Round(time.Millisecond))
	killed := time.Now()
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Logf("the guardian exited %v after the server's kill -9", time.Since(killed).Round(time.Millisecond))
		if err != nil {
			t.Errorf("the guardian: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the guardian did not exit after the server was killed")
	}
	for name, pid := range pids {
		if !Ended(pid) {
			t.Errorf("the %s (pid %d) outlived the server's kill -9 and its guardian", name, pid)
		}
	}
	if left := sleeps(); len(left) > 0 {
		t.Errorf("%d processes of the loop and the chain outlived the server's kill -9 and its guardian: %v", len(left), left)
	}
}

// onlyChild is the one child of process pid.
func onlyChild(t *testing.T, pid int) int {
	t.Helper()
	kids := children(pid)
	if len(kids) != 1 {
		t.Fatalf("process %d has children %v, want one", pid, kids)
	}
	return kids[0]
}

// findCmdline lists the live processes whose command line holds s.
func findCmdline(s string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid := atoi(e.Name())
		if pid <= 0 {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(b, []byte(s)) && !Ended(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
