package server

import (
	"bufio"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"tickmux/agent"
	"tickmux/internal/sockpath"
)

// envStartingServer makes the test binary, started by Start as the server, play one that exits
// at once ("exit") or one that finds another tickmux on its socket ("running": it tries to listen
// where this test listens already, and reports agent.Listen's error as the server does).
const envStartingServer = "TICKMUX_TEST_STARTING_SERVER"

func playStartingServer(how string) int {
	if how != "running" {
		return 3
	}
	var sock string
	for i, a := range os.Args {
		if a == "--socket" && i+1 < len(os.Args) {
			sock = os.Args[i+1]
		}
	}
	ready := os.NewFile(3, "ready")
	_, err := agent.Listen(sock)
	if err == nil {
		err = errors.New("the socket was free")
	}
	ready.WriteString(ReadyLine(err) + "\n")
	return 1
}

// waitNoChildren waits until this process has no child left (the server Start ran was reaped).
func waitNoChildren(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		kids, _ := filepath.Glob("/proc/self/task/*/children")
		left := ""
		for _, k := range kids {
			b, _ := os.ReadFile(k)
			left += strings.TrimSpace(string(b))
		}
		if left == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's process %s was not reaped", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A server that exits before it listens: the start says so, and the server is reaped (no zombie
// child is left).
func TestStartServerExitsAtOnce(t *testing.T) {
	t.Setenv(envStartingServer, "exit")
	err := Start(ServerArgs(filepath.Join(t.TempDir(), "s.sock"), "", "", 80, 24, false, nil))
	if err == nil || !strings.Contains(err.Error(), "exited at once") {
		t.Fatalf("Start = %v, want the server's early exit", err)
	}
	waitNoChildren(t)
}

// A server that finds another tickmux on its socket says so, and Start's error is
// sockpath.ErrAlreadyRunning (errors.Is), with the server's message: the view attaches to the
// other one instead of failing (cmd_tui.go).
func TestStartReportsAlreadyRunning(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := agent.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv(envStartingServer, "running")
	err = Start(ServerArgs(sock, "", "", 80, 24, false, nil))
	if !errors.Is(err, sockpath.ErrAlreadyRunning) {
		t.Fatalf("Start = %v (%T), want an error that is sockpath.ErrAlreadyRunning", err, err)
	}
	if want := "another tickmux is already running on " + sock; err.Error() != want {
		t.Errorf("Start's error says %q, want %q", err, want)
	}
	waitNoChildren(t)
}

// What a starting server reports reads back as the error it was: nil, already running (whatever
// wraps it), or another error, word for word, on one line.
func TestReadyLineReadsBack(t *testing.T) {
	for _, c := range []struct {
		err     error
		running bool
	}{
		{nil, false},
		{sockpath.ErrAlreadyRunning, true},
		{errors.Join(errors.New("x"), sockpath.ErrAlreadyRunning), true},
		{errors.New("config: line 3: bad key"), false},
		{errors.New("already-running: but not really"), false},
	} {
		line := ReadyLine(c.err)
		if strings.Contains(line, "\n") {
			t.Errorf("ReadyLine(%v) = %q: not one line", c.err, line)
		}
		got := readReady(strings.NewReader(line + "\n"))
		switch {
		case c.err == nil:
			if got != nil {
				t.Errorf("ReadyLine(nil) reads back as %v", got)
			}
		case got == nil || errors.Is(got, sockpath.ErrAlreadyRunning) != c.running:
			t.Errorf("ReadyLine(%v) = %q reads back as %v (already running: %v, want %v)", c.err, line, got, errors.Is(got, sockpath.ErrAlreadyRunning), c.running)
		case got.Error() != strings.ReplaceAll(c.err.Error(), "\n", " "):
			t.Errorf("ReadyLine(%v) reads back as %q", c.err, got)
		}
	}
}

// A fake server on a real socket and a view on a real PTY: Attach hands the terminal over
// before it asks for signals (the first signal.Notify starts threads, which the server's answer
// used to wait for), a resize between the two reaches the server, and the view ends with the
// server's view/left, saying how to come back.
func TestAttachHandsTheTerminalOverBeforeSignals(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	screen := make(chan string, 1)
	go func() { // the terminal's other end: what the view prints
		b := make([]byte, 4096)
		var all []byte
		for {
			n, err := ptmx.Read(b)
			all = append(all, b[:n]...)
			if err != nil || strings.Contains(string(all), "to come back") {
				screen <- string(all)
				return
			}
		}
	}()
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	gotFD := make(chan int, 1)
	lines := make(chan string, 4)
	go func() { // the fake server: answer, take the terminal, then pass on what the view tells
		nc, err := ln.AcceptUnix()
		if err != nil {
			return
		}
		defer nc.Close()
		rd := bufio.NewReader(nc)
		if _, err := rd.ReadString('\n'); err != nil {
			return
		}
		vc := &viewConn{UnixConn: nc}
		reply(vc, 1, AttachResult{SendFD: true}, nil)
		oob := make([]byte, syscall.CmsgSpace(4))
		_, oobn, _, _, err := nc.ReadMsgUnix(make([]byte, 1), oob)
		if err != nil {
			return
		}
		fd := -1
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
			if fds, err := syscall.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
				fd = fds[0]
				syscall.Close(fd)
			}
		}
		gotFD <- fd
		for {
			l, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
			notify(vc, notifyLeft, LeftParams{Reason: "detached"})
		}
	}()

	defer func(f func(chan os.Signal)) { notifySignals = f }(notifySignals)
	called := false
	notifySignals = func(c chan os.Signal) {
		called = true
		select { // the server has the terminal before the view asks for signals
		case fd := <-gotFD:
			if fd < 0 {
				t.Error("the server got no descriptor")
			}
		case <-time.After(10 * time.Second):
			t.Error("the view asked for signals before it handed the terminal over")
		}
		// A resize the view's SIGWINCH would have missed.
		if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
			t.Error(err)
		}
	}
	var errs strings.Builder
	code := Attach(sock, tty, tty, &errs, AttachParams{Term: "xterm-256color"})
	if code != 0 || errs.Len() > 0 {
		t.Errorf("Attach = %d, %q; want 0 and no message", code, errs.String())
	}
	if !called {
		t.Fatal("the view never asked for signals")
	}
	select {
	case l := <-lines:
		if l != string(notification(notifyResize)) {
			t.Errorf("the view told the server %q, want a resize", l)
		}
	default:
		t.Error("the resize between the handover and the signals never reached the server")
	}
	select {
	case s := <-screen:
		if !strings.Contains(s, "[detached] to come back: ") {
			t.Errorf("the view printed %q, want the way back", s)
		}
	case <-time.After(10 * time.Second):
		t.Error("the view did not say how to come back")
	}
}
