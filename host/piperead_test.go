package host

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/tick/wire"
)

// rawPipe makes a pipe whose write end is a bare descriptor (not in the runtime's poller, so the
// poller's registrations of the pipe's inode are the read end's alone) and whose read end is an
// *os.File, as Launch hands a session. The caller closes w.
func rawPipe(t *testing.T) (r *os.File, w int, ino uint64) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil { // as os.Pipe's: the poller takes it
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fds[0], &st); err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fds[0]), "stdout"), fds[1], st.Ino
}

// inPoller reports whether any descriptor of the pipe with inode ino is registered with the
// runtime's epoll instance (from /proc/self/fdinfo).
func inPoller(t *testing.T, ino uint64) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	want := "ino:" + strconv.FormatUint(ino, 16)
	for _, e := range ents {
		if link, _ := os.Readlink("/proc/self/fd/" + e.Name()); link != "anon_inode:[eventpoll]" {
			continue
		}
		info, _ := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		for _, line := range strings.Split(string(info), "\n") {
			if strings.HasPrefix(line, "tfd:") && strings.Contains(line+" ", " "+want+" ") {
				return true
			}
		}
	}
	return false
}

// pipeFDs counts this process's descriptors open on the pipe with inode ino (either end).
func pipeFDs(t *testing.T, ino uint64) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		if link, _ := os.Readlink("/proc/self/fd/" + e.Name()); link == "pipe:["+strconv.FormatUint(ino, 10)+"]" {
			n++
		}
	}
	return n
}

// A read finds what is there without the poller; a read that finds nothing waits in the
// poller; a read without waiting (tryRead) takes the pipe out of it again. Every byte arrives in
// order whichever way it was read.
func TestPipeReaderLeavesThePollerWhileBusy(t *testing.T) {
	r, w, ino := rawPipe(t)
	pr, err := newPipeReader(r)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	// readWaiting reads in a goroutine, checks the read waits in the poller, then writes line.
	readWaiting := func(line string) {
		t.Helper()
		got := make(chan string)
		go func() { // owner: the test; returns with the read
			n, _ := pr.Read(buf)
			got <- string(buf[:n])
		}()
		deadline := time.Now().Add(2 * time.Second)
		for !inPoller(t, ino) {
			if time.Now().After(deadline) {
				t.Fatal("a read that found nothing is not waiting in the poller")
			}
			time.Sleep(time.Millisecond)
		}
		unix.Write(w, []byte(line))
		if s := <-got; s != line {
			t.Fatalf("read %q, want %q", s, line)
		}
	}

	unix.Write(w, []byte("one\n"))
	if n, err := pr.Read(buf); err != nil || string(buf[:n]) != "one\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if inPoller(t, ino) {
		t.Fatal("the pipe was registered for a read that found data")
	}
	readWaiting("two\n")
	if n, err := pr.tryRead(buf); n != 0 || err != nil {
		t.Fatalf("a look at an empty pipe: %d, %v", n, err)
	}
	if inPoller(t, ino) {
		t.Fatal("the pipe stayed in the poller after a read without waiting")
	}
	unix.Write(w, []byte("three\n"))
	if n, err := pr.tryRead(buf); err != nil || string(buf[:n]) != "three\n" {
		t.Fatalf("tryRead %q, %v", buf[:n], err)
	}
	unix.Close(w)
	if n, err := pr.tryRead(buf); n != 0 || err != io.EOF {
		t.Fatalf("at the end of output: %d, %v", n, err)
	}
	if err := pr.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := pr.Read(buf); n != 0 || !errors.Is(err, os.ErrClosed) {
		t.Fatalf("after Close: %d, %v", n, err)
	}
	if n, err := pr.tryRead(buf); n != 0 || !errors.Is(err, os.ErrClosed) {
		t.Fatalf("after Close: %d, %v", n, err)
	}
	if n := pipeFDs(t, ino); n != 0 {
		t.Fatalf("%d descriptors of the pipe left open after Close", n)
	}
}

// Close ends a read waiting in the poller at once, and a read after Close fails.
func TestPipeReaderCloseEndsAWait(t *testing.T) {
	t.Parallel()
	r, w, ino := rawPipe(t)
	defer unix.Close(w)
	pr, err := newPipeReader(r)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { // owner: the test; returns when Close ends the read
		_, err := pr.Read(make([]byte, 8))
		done <- err
	}()
	deadline := time.Now().Add(2 * time.Second)
	for !inPoller(t, ino) {
		if time.Now().After(deadline) {
			t.Fatal("the read is not waiting in the poller")
		}
		time.Sleep(time.Millisecond)
	}
	pr.Close()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("the waiting read ended with %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not end the waiting read")
	}
	pr.Close()                        // twice is fine
	if n := pipeFDs(t, ino); n != 1 { // w is still open
		t.Fatalf("%d descriptors of the pipe open after Close, want only the write end", n)
	}
}

// A session on a flooding Tick's pipe reads it out of the poller (so the Tick's writes do not
// wake the runtime), and every update arrives in order.
func TestSessionReadsAFloodOutOfThePoller(t *testing.T) {
	t.Parallel()
	r, w, ino := rawPipe(t)
	const lines = 2000
	stopWriting := make(chan struct{})
	go func() { // owner: the test; returns after writing every line, or when told to stop
		defer unix.Close(w)
		st := newUpdateStream(lines)
		line := make([]byte, len(st.template))
		for range lines {
			io.ReadFull(st, line)
			if _, err := unix.Write(w, line); err != nil {
				return
			}
			select {
			case <-stopWriting:
				return
			default:
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()
	defer close(stopWriting)
	got := make(chan uint64, lines)
	s := NewSession(discardCloser{io.Discard}, r, SessionHooks{Update: func(st wire.State, seqs []uint64, _ time.Time) {
		for _, q := range seqs {
			got <- q
		}
	}})
	defer s.Close(nil)
	out := 0
	for range 400 {
		time.Sleep(time.Millisecond)
		if !inPoller(t, ino) {
			out++
		}
	}
	<-s.Done()
	if out == 0 {
		t.Fatal("the flooding Tick's pipe was in the poller at every look")
	}
	close(got)
	want := uint64(100000000001)
	for seq := range got {
		if seq != want {
			t.Fatalf("update seq %d, want %d", seq, want)
		}
		want++
	}
	if n := want - 100000000001; n != lines {
		t.Fatalf("%d of %d updates arrived (%v)", n, lines, s.Err())
	}
	if !errors.Is(s.Err(), ErrStdoutClosed) {
		t.Fatalf("session ended with %v", s.Err())
	}
}
