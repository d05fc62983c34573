package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"tickmux/server/mirror"
)

// ptyView is `tickmux attach` on a terminal of our own (a PTY the test sizes at will), its
// output drained and kept.
type ptyView struct {
	master *os.File
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	done   chan struct{}
}

func (r *tmuxRig) attachOnPTY(cols, rows uint16) *ptyView {
	r.t.Helper()
	return r.attachOnPTYReading(cols, rows, true)
}

// attachOnPTYReading is attachOnPTY; with read false nothing ever reads the view's terminal (a
// terminal that stopped reading: scroll lock, a hung terminal emulator).
func (r *tmuxRig) attachOnPTYReading(cols, rows uint16, read bool) *ptyView {
	r.t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		r.t.Fatal(err)
	}
	v := &ptyView{master: master, done: make(chan struct{})}
	v.cmd = exec.Command(r.self, "attach")
	v.cmd.Env = append(r.env, "TERM=xterm-256color")
	v.cmd.Stdin, v.cmd.Stdout, v.cmd.Stderr = slave, slave, slave
	v.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := v.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	slave.Close()
	go func() { // owner: the test; ends when the view's terminal closes (the view exited)
		defer close(v.done)
		if !read {
			return
		}
		buf := make([]byte, 64<<10)
		for {
			n, err := master.Read(buf)
			v.mu.Lock()
			v.out.Write(buf[:n])
			if v.out.Len() > 64<<20 { // a frame is a few MB at most: keep the last ones
				v.out.Next(v.out.Len() - 16<<20)
			}
			v.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	r.t.Cleanup(func() {
		v.cmd.Process.Kill()
		v.cmd.Wait()
		master.Close()
		<-v.done
	})
	return v
}

func (v *ptyView) output() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.out.String()
}

// resize sets the view's terminal size; the kernel sends the view SIGWINCH, which it relays.
func (v *ptyView) resize(t *testing.T, cols, rows uint16) {
	t.Helper()
	if err := pty.Setsize(v.master, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		t.Fatal(err)
	}
}

// paneSize is the size of pane id's terminal, from `tickmux screen --json`.
func (r *tmuxRig) paneSize(id string) (cols, rows int) {
	r.t.Helper()
	var res struct{ Cols, Rows int }
	if err := json.Unmarshal([]byte(r.run("screen", id, "--json")), &res); err != nil {
		r.t.Fatal(err)
	}
	return res.Cols, res.Rows
}

// maxServerKB bounds the server's RSS with a view at the cap (about 74 MB measured at 1000x500,
// one shell pane); a view of 65535x65535 would need hundreds of GB uncapped.
var maxServerKB = func() int {
	if raceOn {
		return 1600 << 10
	}
	return 400 << 10
}()

func rssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("the server (pid %d) is gone: %v", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// A view's size is never trusted: a terminal of 65535x65535 (what `stty rows 65535 cols 65535`
// makes) attaches over the real socket, is drawn at the cap with the note saying so, and the
// server keeps its memory and goes on serving the other view; so do a terminal that reports
// 0x0 and resizes to absurd sizes while attached.
// Issue 24 item 1. README "Sessions: detach, attach, several views": the size cap.
func TestEndToEndHugeViewIsCapped(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("sh · ready")
	r.typeLine("echo one-$((1+1))", "one-2")
	pid := r.serverPID(t)

	huge := r.attachOnPTY(65535, 65535)
	waitPane := func(what string, ok func(cols, rows int) bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if c, rw := r.paneSize("shell:1"); ok(c, rw) {
				return
			} else if time.Now().After(deadline) {
				t.Fatalf("the pane is %dx%d, never %s\nlog:\n%s", c, rw, what, r.log())
			}
		}
	}
	// The huge view is the latest: the layout takes its size, at the cap.
	waitPane("sized by the huge view", func(c, rw int) bool { return c > 200 })
	if c, rw := r.paneSize("shell:1"); c > mirror.MaxViewCols || rw > mirror.MaxViewRows {
		t.Fatalf("a 65535x65535 view made a %dx%d pane, past the cap %dx%d", c, rw, mirror.MaxViewCols, mirror.MaxViewRows)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(huge.output(), "too large: drawn at 1000x500"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the huge view never showed the note; its output ends with %q", tail(huge.output(), 400))
		}
	}
	if kb := rssKB(t, pid); kb > maxServerKB {
		t.Fatalf("the server's RSS is %d kB with a 65535x65535 view: not bounded by the cap", kb)
	}

	// Sizes changed while attached go through the same cap: no size, zero or huge.
	for _, s := range []struct {
		cols, rows uint16
		pane       func(c, rw int) bool
	}{
		{0, 0, func(c, rw int) bool { return c <= 80 && rw <= 24 }},
		{65535, 1, func(c, rw int) bool { return true }}, // too small for the layout: survived
		{1, 65535, func(c, rw int) bool { return true }},
		{65535, 30, func(c, rw int) bool { return c > 200 && rw < 30 }},
		{100, 65535, func(c, rw int) bool { return c < 100 && rw > 50 }},
		{65535, 65535, func(c, rw int) bool { return c > 200 && rw > 50 }},
	} {
		huge.resize(t, s.cols, s.rows)
		waitPane(fmt.Sprintf("sized by the view resized to %dx%d", s.cols, s.rows), s.pane)
		if kb := rssKB(t, pid); kb > maxServerKB {
			t.Fatalf("the server's RSS is %d kB after a resize to %dx%d", kb, s.cols, s.rows)
		}
	}
	// A view attached at 0x0 gets 80x24.
	zero := r.attachOnPTY(0, 0)
	waitPane("sized 80x24 by the view of no size", func(c, rw int) bool { return c <= 80 && rw <= 24 })
	_ = zero

	// The other view still takes keys and shows their echo; typing there makes its size the
	// layout's again.
	r.typeLine("echo two-$((2+1))", "two-3")
	waitPane("sized by the tmux view again", func(c, rw int) bool { return c <= 200 && rw <= 50 })
	if kb := rssKB(t, pid); kb > maxServerKB {
		t.Fatalf("the server's RSS is %d kB", kb)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// A view whose terminal never reads (its output buffer full) holds up nobody: the App's own
// goroutine writes a key's echo frame to a view only when the terminal takes it at once, so the
// other view's keys keep echoing, the stalled view is dropped after writeStall (its process
// told to leave), and the server goes on.
func TestEndToEndViewThatNeverReads(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("sh · ready")
	r.typeLine("echo one-$((1+1))", "one-2")
	stuck := r.attachOnPTYReading(80, 24, false) // small frames: an echo's is written at once
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(r.log(), "view-2 attached"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the stuck view never attached:\n%s", r.log())
		}
	}
	// Frames for 4 s, far more than the stuck terminal's buffer holds; then keys one at a time
	// while it is full or being dropped.
	r.typeLine("e=$(($(date +%s)+4)); while [ $(date +%s) -lt $e ]; do seq 1 300; done; echo flood-$((2+2))", "flood-4")
	for i := 0; i < 5; i++ {
		r.typeSlowly(fmt.Sprintf("echo k%d-$((%d*3))", i, i), fmt.Sprintf("k%d-%d", i, i*3))
	}
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(r.log(), "view-2 left"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the view that never reads was never dropped:\n%s", r.log())
		}
	}
	// The view's process writes its goodbye to its own terminal, which waits for a reader, as a
	// tmux client's would; once the terminal reads again it says why it left and exits.
	var said bytes.Buffer
	read := make(chan struct{})
	go func() { // owner: the test; ends when the view's terminal closes
		defer close(read)
		said.ReadFrom(stuck.master)
	}()
	for deadline := time.Now().Add(30 * time.Second); !exited(stuck.cmd.Process.Pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the dropped view's process is still running once its terminal reads")
		}
	}
	stuck.master.Close()
	<-read
	if !strings.Contains(said.String(), "stopped reading") {
		t.Fatalf("the dropped view did not say why; its terminal ends with %q", tail(said.String(), 400))
	}
	r.typeSlowly("echo after-$((4*4))", "after-16")
}

// exited reports whether process pid has ended (gone, or a zombie its parent has not waited on).
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}
