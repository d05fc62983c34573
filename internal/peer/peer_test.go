package peer

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary plays the socket's client: TEST_PEER_DIAL=PATH connects to PATH, writes its
// pid and, unless TEST_PEER_EXIT=1, waits for stdin to close.
func TestMain(m *testing.M) {
	if path := os.Getenv("TEST_PEER_DIAL"); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			os.Exit(2)
		}
		fmt.Fprintf(c, "%d\n", os.Getpid())
		if os.Getenv("TEST_PEER_EXIT") != "1" {
			_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// listen makes a socket in a private directory and returns a function that accepts one
// connection and reads the pid its client wrote.
func listen(t *testing.T) (string, func() (*net.UnixConn, int)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return path, func() (*net.UnixConn, int) {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			t.Fatalf("the client wrote no pid: %v", err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(line))
		return c.(*net.UnixConn), pid
	}
}

// client starts the test binary as a client of path, from a shell (so the client's parent is
// the shell, the shell's this test): how a pane's program reaches the server.
func client(t *testing.T, path string, exit bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `"$0"; echo done`, os.Args[0])
	cmd.Env = append(os.Environ(), "TEST_PEER_DIAL="+path)
	if exit {
		cmd.Env = append(cmd.Env, "TEST_PEER_EXIT=1")
	}
	cmd.Stdin = strings.NewReader("") // replaced below when the client must stay
	if !exit {
		r, w, _ := os.Pipe()
		cmd.Stdin = r
		t.Cleanup(func() { w.Close() })
		defer r.Close()
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func TestOfPinsALiveClientAndWalksToItsAncestors(t *testing.T) {
	path, accept := listen(t)
	sh := client(t, path, false)
	c, pid := accept()
	p, err := Of(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Pid != pid || p.Uid != os.Getuid() {
		t.Fatalf("pinned pid %d uid %d, want the client's %d and uid %d", p.Pid, p.Uid, pid, os.Getuid())
	}
	var seen []int
	found, err := p.Ancestry(func(q int) bool { seen = append(seen, q); return q == os.Getpid() })
	if err != nil || !found {
		t.Fatalf("the walk did not reach this test (%d): found %v, err %v, saw %v", os.Getpid(), found, err, seen)
	}
	if len(seen) != 3 || seen[0] != pid || seen[1] != sh.Process.Pid || seen[2] != os.Getpid() {
		t.Fatalf("the walk saw %v, want client %d, its shell %d, this test %d", seen, pid, sh.Process.Pid, os.Getpid())
	}
	// A visitor that never answers yes goes up to the top and says not found.
	found, err = p.Ancestry(func(int) bool { return false })
	if found || err != nil {
		t.Fatalf("a walk to the top: found %v, err %v", found, err)
	}
}

// A client that exited is gone: nothing learnt of its pid could be trusted.
func TestOfRefusesAClientThatExited(t *testing.T) {
	path, accept := listen(t)
	sh := client(t, path, true)
	c, _ := accept()
	if err := sh.Wait(); err != nil { // the client and its shell have exited and been reaped
		t.Fatal(err)
	}
	p, err := Of(c)
	if err == nil {
		p.Close()
		t.Fatal("a client that exited was pinned")
	}
	if !errors.Is(err, ErrGone) {
		t.Fatalf("err = %v, want ErrGone", err)
	}
}

// The attack of issue 38: the client connects and exits, and its pid goes to a new process
// (here chosen by writing ns_last_pid, so the reuse is certain). The pinned peer must be the one
// that connected, so it is gone; the new process with its pid is never taken for it.
func TestOfIsNotFooledByPidReuse(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("writing /proc/sys/kernel/ns_last_pid needs root")
	}
	path, accept := listen(t)
	sh := client(t, path, true)
	c, pid := accept()
	if err := sh.Wait(); err != nil {
		t.Fatal(err)
	}
	// Hand the client's pid to a new process: ns_last_pid is the last pid given, so the next
	// fork gets pid. Other processes on the machine may fork first: try a few times.
	var reused *exec.Cmd
	for try := 0; try < 50 && reused == nil; try++ {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			t.Skipf("cannot write ns_last_pid: %v", err)
		}
		cmd := exec.Command("/bin/sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if cmd.Process.Pid == pid {
			reused = cmd
			break
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	if reused == nil {
		t.Skip("the machine's other processes took the pid each time")
	}
	defer func() { _ = reused.Process.Kill(); _ = reused.Wait() }()
	p, err := Of(c)
	if err == nil {
		defer p.Close()
		found, werr := p.Ancestry(func(q int) bool { return q == os.Getpid() })
		t.Fatalf("a client whose pid was reused was pinned as pid %d (the walk: found %v, %v)", p.Pid, found, werr)
	}
	if !errors.Is(err, ErrGone) {
		t.Fatalf("err = %v, want ErrGone", err)
	}
}

// A process pinned while alive that then exits is gone for the walk too, even once its pid is
// taken again.
func TestAncestryOfAProcessThatExitedLater(t *testing.T) {
	path, accept := listen(t)
	sh := client(t, path, false)
	c, _ := accept()
	p, err := Of(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_ = sh.Process.Signal(syscall.SIGKILL) // the shell; the client is killed by the test's cleanup pipe too
	_ = syscall.Kill(p.Pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for p.Alive() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // reaped by this process's Wait or by init
		_ = sh.Wait()
	}
	if p.Alive() {
		t.Skip("the client was not reaped in time (its reaper is init)")
	}
	if _, err := p.Ancestry(func(int) bool { return true }); !errors.Is(err, ErrGone) {
		t.Fatalf("walk of an exited process: err = %v, want ErrGone", err)
	}
}

func TestSelf(t *testing.T) {
	p, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Alive() || p.Pid != os.Getpid() {
		t.Fatalf("Self: pid %d alive %v", p.Pid, p.Alive())
	}
	var seen []int
	if _, err := p.Ancestry(func(q int) bool { seen = append(seen, q); return false }); err != nil {
		t.Fatal(err)
	}
	if got := ParentPID(os.Getpid()); got != os.Getppid() {
		t.Errorf("ParentPID(%d) = %d, want %d", os.Getpid(), got, os.Getppid())
	}
	if len(seen) < 2 || seen[0] != os.Getpid() || seen[1] != os.Getppid() {
		t.Fatalf("the walk from this process saw %v, want %d then %d", seen, os.Getpid(), os.Getppid())
	}
}
