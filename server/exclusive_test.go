package server

import (
	"testing"

	"golang.org/x/sys/unix"
)

// spec: issue 38 item 4. The view's terminal is exclusive while the server has it in raw mode,
// the shell's again whenever it goes back to the shell (suspended, stopped, the view's end), and
// the server's own descriptor keeps working throughout.
func TestViewTerminalExclusiveWhileDrawn(t *testing.T) {
	m, s, tty := openPair(t)
	excl := func() bool { return isExclusive(int(s.Fd())) }
	if excl() {
		t.Fatal("the terminal is exclusive before the view took it")
	}
	if err := tty.Start(); err != nil {
		t.Fatal(err)
	}
	if !excl() {
		t.Fatal("the terminal is not exclusive while the view is drawn")
	}
	if _, err := tty.Write([]byte("drawn")); err != nil {
		t.Fatalf("the server's descriptor no longer writes: %v", err)
	}
	buf := make([]byte, 64)
	if n, err := m.Read(buf); err != nil || string(buf[:n]) != "drawn" {
		t.Fatalf("the terminal showed %q, %v", buf[:n], err)
	}
	tty.release(nil) // prefix C-z
	if excl() {
		t.Fatal("the terminal stays exclusive while the view is suspended")
	}
	if !tty.resume() || !excl() {
		t.Fatal("the terminal is not exclusive again once the view resumed")
	}
	if err := tty.Stop(); err != nil {
		t.Fatal(err)
	}
	if excl() {
		t.Fatal("the terminal stays exclusive after the view")
	}
}

// A terminal that was exclusive before the view is opened all the same (through the descriptor
// passed) and stays exclusive after it.
func TestViewTerminalExclusiveBefore(t *testing.T) {
	_, s := openPTY(t)
	if err := setExclusive(int(s.Fd()), true); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Dup(int(s.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	tty, err := openViewTty(fd)
	if err != nil {
		t.Fatalf("an exclusive terminal was refused: %v", err)
	}
	if err := tty.Start(); err != nil {
		t.Fatal(err)
	}
	_ = tty.Stop()
	tty.Close()
	if !isExclusive(int(s.Fd())) {
		t.Fatal("the view made a terminal that was exclusive before it shared")
	}
}

// The view's process is undumpable while attached (prctl PR_GET_DUMPABLE says 0), dumpable again
// after; the terminal the server left exclusive (killed before it could say) is shared again.
func TestGuardViewUndumpable(t *testing.T) {
	_, s := openPTY(t)
	fd := int(s.Fd())
	release := guardView(fd)
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
		t.Fatalf("while attached, PR_GET_DUMPABLE = %d, %v; want 0", d, err)
	}
	if err := setExclusive(fd, true); err != nil { // as the server does
		t.Fatal(err)
	}
	release()
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 1 {
		t.Fatalf("after the view, PR_GET_DUMPABLE = %d, %v; want 1", d, err)
	}
	if isExclusive(fd) {
		t.Fatal("the terminal stays exclusive after the view")
	}
}
