package host

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A paste waits for the program: however large, at most the paste window of it waits in the
// process, and it reaches the program whole and in order, with input typed meanwhile after it.
// Issue 24 item 6.
func TestPasteWaitsForTheProgram(t *testing.T) {
	t.Parallel()
	const piece = 4096 // what the test writes at a time
	var paste bytes.Buffer
	for i := 0; paste.Len() < 1<<20; i++ {
		fmt.Fprintf(&paste, "piece %d\r", i)
	}
	want := append(append(bytes.Clone(paste.Bytes()), "END"...), "KEYS"...)
	out := filepath.Join(t.TempDir(), "got")
	p, err := Launch(LaunchSpec{Argv: []string{"/bin/sh", "-c", fmt.Sprintf("stty raw -echo; kill -STOP $$; exec head -c %d > %s", len(want), out)}, Cols: 20, Rows: 2, Scrollback: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitStopped(t, p.Pid())

	w := p.BeginPaste()
	if err := p.Input([]byte("KEYS")); err != nil { // typed elsewhere during the paste
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { // owner: the test; ends once the paste is written
		b := paste.Bytes()
		for len(b) > 0 {
			n := min(len(b), piece)
			if err := w.Write(b[:n], nil); err != nil {
				done <- err
				return
			}
			b = b[n:]
		}
		w.Close([]byte("END"))
		done <- nil
	}()
	// The program reads nothing: the paste fills its window and waits.
	queued := func() int {
		p.inMu.Lock()
		defer p.inMu.Unlock()
		return p.inBytes - p.heldBytes
	}
	// Filled: the window less the piece the process's writer may hold, taken from the queue and
	// blocked in its write to the full terminal (the paste is woken when that write ends, so the
	// queue can stay a piece short of the window; a poll that missed the moment it was full saw
	// only that, under load).
	for deadline := time.Now().Add(hangGuard); queued() < pasteWindow-piece; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the paste never filled its window: %d bytes queued", queued())
		}
	}
	if n := queued(); n > pasteWindow+piece {
		t.Fatalf("%d bytes of the paste wait in the process, more than the window (%d) and a piece", n, pasteWindow)
	}
	select {
	case err := <-done:
		t.Fatalf("the paste of 1 MiB went in while the program read nothing (%v)", err)
	default:
	}
	syscall.Kill(p.Pid(), syscall.SIGCONT)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(out); err == nil && fi.Size() == int64(len(want)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the program never read the whole paste")
		}
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Fatalf("the program read %d bytes, not the paste, its end and the keys typed meanwhile in order", len(got))
	}
}

// A program that reads none of a paste does not hold its writer for ever: the rest is dropped,
// the paste is still closed, and input goes on.
func TestPasteToAStoppedProgramGivesUp(t *testing.T) {
	defer func(d time.Duration) { pasteStall = d }(pasteStall)
	pasteStall = 50 * time.Millisecond
	p, err := Launch(LaunchSpec{Argv: []string{"/bin/sh", "-c", "stty raw -echo; kill -STOP $$; exec cat > /dev/null"}, Cols: 20, Rows: 2, Scrollback: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitStopped(t, p.Pid())
	w := p.BeginPaste()
	piece := bytes.Repeat([]byte("x"), 4096)
	for i := 0; ; i++ {
		err := w.Write(piece, nil)
		if errors.Is(err, ErrPasteStalled) {
			break
		}
		if err != nil || i > 1<<10 {
			t.Fatalf("after %d pieces: %v; want ErrPasteStalled", i, err)
		}
	}
	w.Close([]byte("END"))
	if err := p.Input([]byte("typed")); err != nil {
		t.Fatalf("input after a stalled paste: %v", err)
	}
}
