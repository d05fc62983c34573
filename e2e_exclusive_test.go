package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The intruder: a program of the person's uid (one running in a pane) that goes after the view's
// terminal. The test binary plays it (TestPlayIntruder) with these set.
const (
	envIntruderTty  = "TICKMUX_TEST_INTRUDER_TTY"  // the terminal to open by its path
	envIntruderPIDs = "TICKMUX_TEST_INTRUDER_PIDS" // processes to ptrace and take fd 0 of
)

// TestPlayIntruder is no test: it is the intruder's part, played in a process of its own (the
// person's uid) when TestViewTerminalIsExclusive runs it. It prints what each attempt got.
func TestPlayIntruder(t *testing.T) {
	path := os.Getenv(envIntruderTty)
	if path == "" {
		t.Skip("the intruder's part, played for TestViewTerminalIsExclusive")
	}
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err == nil {
		f.Close()
	}
	fmt.Printf("intruder: open %s\n", errnoName(err))
	for _, p := range strings.Fields(os.Getenv(envIntruderPIDs)) {
		pid, _ := strconv.Atoi(p)
		fmt.Printf("intruder: ptrace %d %s\n", pid, errnoName(seize(pid)))
		fmt.Printf("intruder: getfd %d %s\n", pid, errnoName(takeFD(pid, 0)))
	}
}

// seize ptraces pid without stopping it (PTRACE_SEIZE); the intruder's exit lets it go.
func seize(pid int) error {
	runtime.LockOSThread() // the tracer is this thread; it ends with the process
	return unix.PtraceSeize(pid)
}

// takeFD takes a copy of process pid's descriptor fd (pidfd_getfd).
func takeFD(pid, fd int) error {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return err
	}
	defer unix.Close(pidfd)
	got, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err == nil {
		unix.Close(got)
	}
	return err
}

func errnoName(err error) string {
	var e syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &e):
		return unix.ErrnoName(e)
	}
	return err.Error()
}

// spec: issue 38 item 4. While a view is attached its terminal is the person's alone: another
// program of the person's uid can neither open it (TIOCEXCL: EBUSY) nor take it from the view's
// process (undumpable: ptrace and pidfd_getfd fail with EPERM); once the view detaches, the
// terminal opens again. Run as root, the person is nobody (uid 65534): TIOCEXCL does not stop
// root, nor does an undumpable process (CAP_SYS_PTRACE).
func TestViewTerminalIsExclusive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	bin := self
	if os.Getuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		// The test binary lies in a directory only root may read: the person runs a copy.
		bin = filepath.Join(dir, "tickmux")
		if err := copyExecutable(self, bin); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(bin, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o777); err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		if err := os.Chown(home, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(home, "s.sock")
	env := append(os.Environ(), envAsMain+"=1", "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home,
		"XDG_RUNTIME_DIR=", "SHELL=/bin/sh", "TERM=xterm-256color")
	person := func(args ...string) *exec.Cmd {
		c := exec.Command(bin, args...)
		c.Env, c.Dir = env, home // not the checkout's directory, which may be 0700
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: cred}
		return c
	}

	srv := person("server", "--socket", sock)
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = person("kill-server", "--socket", sock).Run()
		srv.Process.Kill()
		srv.Wait()
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) { // a hang guard
			t.Fatalf("the server never listened: %s", srvErr.String())
		}
	}

	// The person's terminal: a PTY of theirs, `tickmux attach` in its foreground.
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	if cred != nil {
		if err := tty.Chown(65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	pts := tty.Name()
	view := person("attach", "--socket", sock)
	view.Stdin, view.Stdout, view.Stderr = tty, tty, tty
	view.SysProcAttr.Setctty = true
	if err := view.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	viewDone := make(chan error, 1)
	go func() { viewDone <- view.Wait() }() // owner: the test; returns when the view exits
	defer func() {
		view.Process.Kill()
		<-viewDone
	}()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() { // owner: the test; ends when the terminal closes (the deferred master.Close)
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	shown := func(s string) bool {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Contains(screen.Bytes(), []byte(s))
	}
	for deadline := time.Now().Add(20 * time.Second); !shown("shell:1"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard
			mu.Lock()
			t.Fatalf("the view never drew the server's screen:\n%q\n%s", screen.String(), srvErr.String())
		}
	}

	// A process of the person's to compare with: dumpable, so ptrace and pidfd_getfd work on it.
	other := exec.Command("sleep", "60")
	other.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		other.Process.Kill()
		other.Wait()
	}()
	intrude := func() string {
		c := person("-test.run=^TestPlayIntruder$", "-test.count=1")
		c.Env = append(c.Env[:len(c.Env):len(c.Env)], envAsMain+"=0", envIntruderTty+"="+pts,
			envIntruderPIDs+"="+fmt.Sprint(view.Process.Pid, " ", other.Process.Pid, " ", srv.Process.Pid))
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("the intruder failed: %v\n%s", err, out)
		}
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if s, ok := strings.CutPrefix(l, "intruder: "); ok {
				lines = append(lines, s)
			}
		}
		return strings.Join(lines, "\n")
	}

	got := intrude()
	// The server too (undumpable from its start): it holds every view's terminal and every
	// pane's PTY master.
	want := fmt.Sprintf("open EBUSY\nptrace %[1]d EPERM\ngetfd %[1]d EPERM\nptrace %[2]d ok\ngetfd %[2]d ok\nptrace %[3]d EPERM\ngetfd %[3]d EPERM",
		view.Process.Pid, other.Process.Pid, srv.Process.Pid)
	if got != want {
		t.Fatalf("while the view is attached, a program of the person's got:\n%s\nwant:\n%s", got, want)
	}
	if os.Getuid() == 0 {
		// Root is not stopped (expected: a root pane is outside what tickmux guards).
		f, err := os.OpenFile(pts, os.O_RDWR|syscall.O_NOCTTY, 0)
		t.Logf("root opens the attached view's terminal: %s", errnoName(err))
		if err == nil {
			f.Close()
		}
	}

	// The view detaches (prefix d): the terminal is the shell's again, as it was.
	if _, err := master.Write([]byte("\x02d")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-viewDone:
		viewDone <- err
		if err != nil {
			t.Fatalf("the view exited with %v", err)
		}
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatal("the view did not detach")
	}
	if got := intrude(); !strings.HasPrefix(got, "open ok\n") {
		t.Fatalf("after the view detached, opening its terminal got:\n%s", got)
	}
}
