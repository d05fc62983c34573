package server

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// openPTY opens a PTY, closed at the test's end.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// openPair opens a PTY and a view Tty over a duplicate of its terminal end, as the server gets
// one from a client.
func openPair(t *testing.T) (master *os.File, slave *os.File, tty *viewTty) {
	t.Helper()
	m, s := openPTY(t)
	fd, err := unix.Dup(int(s.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	tty, err = openViewTty(fd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return m, s, tty
}

// A view whose terminal stops reading never holds a write for longer than writeStall: the
// write gives up and the view is marked broken (the Mirror then drops it).
func TestStalledTerminalBreaksTheView(t *testing.T) {
	_, _, tty := openPair(t)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	done := make(chan error, 1)
	go func() { // owner: the test; ends when a write fails (the deadline) or after 64 MiB
		for i := 0; i < 1024; i++ {
			if _, err := tty.Write(chunk); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("64 MiB went into a terminal nobody reads")
		}
	case <-time.After(writeStall + 10*time.Second):
		t.Fatal("a write to a terminal nobody reads blocked past its deadline")
	}
	if !tty.Broken() {
		t.Fatal("the view is not marked broken")
	}
}

// Start makes the terminal raw and Stop restores it exactly; the non-blocking mode the server
// uses is its own, never the client's (the client's descriptor stays blocking).
func TestViewTtyRestoresTheTerminal(t *testing.T) {
	_, slave, tty := openPair(t)
	var sfd int
	rc, err := slave.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	rc.Control(func(fd uintptr) { sfd = int(fd) }) // not Fd(): it would make the file blocking again
	before, err := term.GetState(sfd)
	if err != nil {
		t.Fatal(err)
	}
	if err := tty.Start(); err != nil {
		t.Fatal(err)
	}
	raw, _ := unix.IoctlGetTermios(sfd, unix.TCGETS)
	if raw.Lflag&unix.ICANON != 0 || raw.Lflag&unix.ECHO != 0 {
		t.Fatal("Start did not make the terminal raw")
	}
	if err := tty.Drain(); err != nil {
		t.Fatal(err)
	}
	if err := tty.Stop(); err != nil {
		t.Fatal(err)
	}
	after, _ := term.GetState(sfd)
	b, _ := unix.IoctlGetTermios(sfd, unix.TCGETS)
	if *before != *after {
		t.Fatalf("the terminal was not restored: %+v, want %+v", b, before)
	}
	flags, err := unix.FcntlInt(uintptr(sfd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Fatal("the client's descriptor was made non-blocking")
	}
}
