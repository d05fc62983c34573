package server

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
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

// A view's reader looks at the view's process once per read that takes bytes: not on the try
// right after a read, which finds nothing as a rule (each look is 5-50 µs on a key's path). A
// terminal that hangs up is still seen (the read reports it).
func TestViewReadLooksOncePerRead(t *testing.T) {
	m, _, tty := openPair(t)
	if err := tty.Start(); err != nil { // raw: each key is readable at once
		t.Fatal(err)
	}
	tty.client = openStatFile(os.Getpid()) // not a process of this terminal: always in the foreground
	t.Cleanup(tty.client.close)
	type got struct {
		b   string
		err error
	}
	reads := make(chan got)
	go func() { // owner: the test; ends when the read fails (the master is closed below)
		buf := make([]byte, 64)
		for {
			n, err := tty.Read(buf)
			reads <- got{string(buf[:n]), err}
			if err != nil {
				return
			}
		}
	}()
	for i, keys := range []string{"abc", "d", "ef"} {
		if _, err := m.Write([]byte(keys)); err != nil {
			t.Fatal(err)
		}
		r := <-reads
		if r.err != nil || r.b != keys {
			t.Fatalf("read %q, %v; want %q", r.b, r.err, keys)
		}
		if n := tty.client.looks.Load(); n != int64(i+1) {
			t.Fatalf("after %d reads the view's process was looked at %d times", i+1, n)
		}
	}
	m.Close()
	select {
	case r := <-reads:
		if r.err == nil {
			t.Fatalf("read %q from a terminal that hung up", r.b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a terminal that hung up left its reader waiting")
	}
}

// A frame written right after a read that found the view's process in the foreground draws on
// that look; later, or after a suspension, the frame looks again (and a stopped process's view
// gets no frame).
func TestFrameAfterAReadReusesItsLook(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	cmd := exec.Command(sleep, "100")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ { // the stop is asynchronous
		if st, _ := readProcStat(cmd.Process.Pid); st.state == 'T' {
			break
		}
		if i > 500 {
			t.Fatal("the child never stopped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, _, tty := openPair(t)
	tty.client = openStatFile(cmd.Process.Pid)
	t.Cleanup(tty.client.close)

	tty.sawForeground.Store(monotime()) // a read looked just now and found it in the foreground
	if !tty.foregroundToDraw() || tty.client.looks.Load() != 0 {
		t.Fatalf("a frame right after the read looked again (%d looks)", tty.client.looks.Load())
	}
	tty.sawForeground.Store(monotime() - int64(lookAgain) - 1)
	if tty.foregroundToDraw() || tty.client.looks.Load() != 1 {
		t.Fatalf("a frame %v after the read did not look (%d looks), or saw a stopped process in the foreground", lookAgain, tty.client.looks.Load())
	}
	tty.sawForeground.Store(monotime())
	tty.jobMu.Lock()
	tty.suspendLocked()
	tty.jobMu.Unlock()
	if tty.sawForeground.Load() != 0 {
		t.Fatal("a suspension left the last read's look in place")
	}
	if n, err := tty.Write([]byte("frame")); n != 5 || err != nil {
		t.Fatalf("a suspended view's frame: %d, %v (dropped whole, no error)", n, err)
	}
}
