package server

import (
	"tickmux/internal/peer"

	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// /proc/PID/stat read right whatever the command's name holds, and the controlling terminal's
// number it gives compared right with the terminal's fstat: a child started on a PTY (its
// controlling terminal, in its foreground) is seen in the foreground of that PTY, and stopped
// once stopped.
func TestProcStatOfAChildOnAPTY(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	odd := filepath.Join(t.TempDir(), "a) (b ) c")
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(odd, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(odd, "100")
	master, err := pty.Start(cmd) // a new session, the PTY its controlling terminal
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer cmd.Wait()
	defer cmd.Process.Kill()
	st, err := readProcStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getpid() || st.sid != cmd.Process.Pid || st.pgrp != cmd.Process.Pid {
		t.Fatalf("read %+v for the child %d of %d", st, cmd.Process.Pid, os.Getpid())
	}
	slave, err := os.OpenFile(ptsName(t, master), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	var fs unix.Stat_t
	if err := unix.Fstat(int(slave.Fd()), &fs); err != nil {
		t.Fatal(err)
	}
	if !sameDevice(st.ttyNr, fs.Rdev) {
		t.Fatalf("tty_nr %#x is not the PTY's device %#x", st.ttyNr, fs.Rdev)
	}
	if !foregroundOf(cmd.Process.Pid, fs.Rdev) {
		t.Fatal("the child in its terminal's foreground is not seen there")
	}
	// The view's look: the file opened once, read again at each look, allocating nothing (it
	// runs on every key's and every echo's path; an open per look cost 20-50 µs of it).
	kept := openStatFile(cmd.Process.Pid)
	defer kept.close()
	if kept.f == nil || !kept.foreground(fs.Rdev) {
		t.Fatalf("the kept stat file (%v) does not see the child in the foreground", kept.f)
	}
	if n := testing.AllocsPerRun(100, func() { kept.foreground(fs.Rdev) }); n != 0 {
		t.Fatalf("a look at the view's process allocates %v times: it opens the file again", n)
	}
	pinned, err := peer.Child(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	if inside, err := insideServer(pinned); !inside || err != nil {
		t.Fatalf("a child of this process is not seen inside it: %v %v", inside, err)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ { // the stop is asynchronous: wait for the state, which the kernel sets
		if st, _ := readProcStat(cmd.Process.Pid); st.state == 'T' {
			break
		}
		if i > 10000 {
			t.Fatal("the child never stopped")
		}
		syscall.Nanosleep(&syscall.Timespec{Nsec: 1e6}, nil)
	}
	if foregroundOf(cmd.Process.Pid, fs.Rdev) || kept.foreground(fs.Rdev) {
		t.Fatal("a stopped child is seen in the foreground")
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for i := 0; !kept.foreground(fs.Rdev); i++ { // the kept file says what the process is now
		if i > 10000 {
			t.Fatal("the kept stat file never saw the child continue")
		}
		syscall.Nanosleep(&syscall.Timespec{Nsec: 1e6}, nil)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !kept.foreground(fs.Rdev) {
		t.Fatal("a process gone is not seen in the foreground (its view's end detaches it)")
	}
}

func ptsName(t *testing.T, master *os.File) string {
	n, err := unix.IoctlGetUint32(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	return "/dev/pts/" + strconv.Itoa(int(n))
}
