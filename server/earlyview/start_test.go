package earlyview

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// A fake server on a real socket and a view on a real PTY: the early start hands the terminal
// over before it asks for signals (the first signal.Notify starts threads, which the server's
// answer used to wait for), and a resize between the two reaches the server.
func TestStartHandsTheTerminalOverBeforeSignals(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("COLORTERM", "")

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
		nc.Write([]byte(AttachAnswer + "\n"))
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
	h := start([]string{"attach", "--socket", sock}, tty, tty, tty)
	if h == nil || h.View == nil {
		t.Fatalf("the early start did not attach: %+v", h)
	}
	defer h.View.Close()
	if !called {
		t.Fatal("the view never asked for signals")
	}
	select {
	case l := <-lines:
		if l != string(Notification(NotifyResize)) {
			t.Errorf("the view told the server %q, want a resize", l)
		}
	case <-time.After(10 * time.Second):
		t.Error("the resize between the handover and the signals never reached the server")
	}
}
