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

// WriteNow, the App's goroutine's write of a small frame, never waits: a terminal nobody reads
// takes what its buffer holds and then nothing, without an error and without the view being
// marked broken (the copier's Write, which may wait, writes the rest or breaks the view); a write
// under way (its lock) is not waited for either.
func TestWriteNowNeverWaits(t *testing.T) {
	master, _, tty := openPair(t)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	done := make(chan int, 1)
	go func() { // owner: the test; ends when the terminal took nothing more, or after 64 MiB
		total := 0
		for i := 0; i < 1024; i++ {
			n, err := tty.WriteNow(chunk)
			if err != nil {
				t.Error(err)
			}
			total += n
			if n == 0 {
				break
			}
		}
		done <- total
	}()
	var total int
	select {
	case total = <-done:
	case <-time.After(20 * time.Second): // a hang guard, not a timing
		t.Fatal("WriteNow waited for a terminal nobody reads")
	}
	if total == 0 || total >= 1024*len(chunk) || tty.Broken() {
		t.Fatalf("WriteNow wrote %d bytes to a terminal nobody reads (broken: %v)", total, tty.Broken())
	}
	// Read what it took: the terminal takes a frame again.
	buf := make([]byte, 64<<10)
	for got := 0; got < total; {
		n, err := master.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	tty.jobMu.Lock() // a frame or a suspension under way
	n, err := tty.WriteNow([]byte("echo"))
	tty.jobMu.Unlock()
	if n != 0 || err != nil {
		t.Fatalf("WriteNow wrote %d (%v) while another write held the terminal", n, err)
	}
	if n, err := tty.WriteNow([]byte("echo")); n != 4 || err != nil {
		t.Fatalf("WriteNow wrote %d (%v) to a terminal with room", n, err)
	}
}
