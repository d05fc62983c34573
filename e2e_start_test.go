package main

// Starting and attaching: one path, from main (cmd_tui.go, cmd_attach.go, server.Attach); no
// package init dials the socket or starts a server.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// `tickmux attach` dials the socket from main, after every package init: when a server accepts
// the connection, the process has already traced its last init (GODEBUG=inittrace=1 prints one
// line per package init; main's comes last). A view that dialled from an init would still be
// waiting there for the answer this server never sends.
func TestAttachDialsOnlyFromMain(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "attach", "--socket", sock)
	cmd.Env = append(os.Environ(), envAsMain+"=1", "GODEBUG=inittrace=1", "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	defer cmd.Wait()
	defer cmd.Process.Kill()
	traced := make(chan string, 1)
	go func() { // owner: this test; returns when the view's terminal closes
		var out []byte
		b := make([]byte, 4096)
		sent := false
		for {
			n, err := ptmx.Read(b)
			out = append(out, b[:n]...)
			if !sent && strings.Contains(string(out), "\ninit main @") {
				traced <- string(out)
				sent = true
			}
			if err != nil {
				if !sent {
					traced <- string(out)
				}
				return
			}
		}
	}()
	nc, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The view waits for the answer from here on; the trace it wrote before it dialled is
	// in the terminal already.
	select {
	case out := <-traced:
		if !strings.Contains(out, "\ninit main @") {
			t.Fatalf("the view's process ended before main's init was traced:\n%s", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the view dialled the socket before its package inits were over (main's init is not traced)")
	}
}

// Through a real terminal and the real server: `tickmux attach` with no server and on a dead
// server's socket fails and says why; `tickmux` on the dead server's socket starts a server and
// attaches; `tickmux attach` attaches, with a COLORTERM that JSON must escape too. Every terminal
// is left as it was.
func TestEndToEndStartAndAttach(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	dir := r.dir
	script := fmt.Sprintf(`stty -g > %[1]s/b1; %[2]s attach; echo "rc1=$?"; stty -g > %[1]s/a1
read next
stty -g > %[1]s/b2; %[2]s attach; echo "rc2=$?"; stty -g > %[1]s/a2
read next
stty -g > %[1]s/b3; %[2]s; echo "rc3=$?"; stty -g > %[1]s/a3
read next
stty -g > %[1]s/b4; %[2]s attach; echo "rc4=$?"; stty -g > %[1]s/a4
read next
stty -g > %[1]s/b5; COLORTERM='true"color' %[2]s attach; echo "rc5=$?"; stty -g > %[1]s/a5
echo all-done; sleep 100`, dir, r.self)
	if err := os.WriteFile(filepath.Join(dir, "script.sh"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	r.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", "sh "+filepath.Join(dir, "script.sh"))
	s := r.waitFor("rc1=1")
	if !strings.Contains(s, "no tickmux server is running") {
		t.Fatalf("attach with no server did not say so:\n%s", s)
	}
	// A dead server's socket: the file is there, nobody listens.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: r.socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	r.keys("Enter")
	s = r.waitFor("rc2=1")
	if !strings.Contains(s, "no tickmux server is running") {
		t.Fatalf("attach on a dead server's socket did not say no server runs:\n%s", s)
	}
	// The script waits here: tickmux's screen would otherwise cover rc2 before a poll saw it.
	r.keys("Enter")
	r.waitFor("shell:1") // tickmux started a server in its place
	r.prefix("d", "rc3=0")
	r.keys("Enter")
	r.waitFor("shell:1")
	r.prefix("d", "rc4=0")
	r.keys("Enter")
	r.waitFor("shell:1")
	r.prefix("d", "all-done")
	if s := r.screen(); !strings.Contains(s, "rc5=0") {
		t.Fatalf("the view with an odd COLORTERM did not end well:\n%s", s)
	}
	for i := 1; i <= 5; i++ {
		sameStty(t, filepath.Join(dir, fmt.Sprintf("b%d", i)), filepath.Join(dir, fmt.Sprintf("a%d", i)))
	}
	log := r.log()
	for _, want := range []string{
		`view-1 attached \(TERM=[^,)]+\)\n`,
		`view-2 attached \(TERM=[^,)]+\)\n`,
		`view-3 attached \(TERM=[^,)]+\)\n`,
	} {
		if !regexp.MustCompile(want).MatchString(log) {
			t.Errorf("the log does not match %q:\n%s", want, log)
		}
	}
	r.tmux("kill-session", "-t", "e2e") // its shell carries the rig's environment too
	r.killServer()
	r.waitAllEnded(10*time.Second, "kill-server")
}

// envForeignListener makes the test binary listen on the socket it names and print how many
// bytes each connection sent (run as another user by the test below).
const envForeignListener = "TICKMUX_TEST_FOREIGN_LISTENER"

func foreignListener(path string) int {
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Println("cannot listen:", err)
		return 1
	}
	fmt.Println("listening")
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() { // owner: foreignListener; returns when the client hangs up
			defer c.Close()
			n, _ := bufio.NewReader(c).Discard(1 << 20)
			fmt.Println("got", n)
		}()
	}
}

// A socket another user listens on (planted on the path): the view sends it nothing, whether
// attaching or starting, and refuses with the reason.
func TestEndToEndAttachRefusesAnotherUsersSocket(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to run a listener as another user")
	}
	r := newTmuxRig(t)
	foreign, err := os.MkdirTemp("", "tickmux-foreign-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(foreign)
	if err := os.Chmod(foreign, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary lies in a directory only we may read: the other user runs a copy.
	bin := filepath.Join(foreign, "listener")
	if err := copyExecutable(self, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(foreign, "s.sock")
	listener := exec.Command(bin)
	listener.Env = append(os.Environ(), envForeignListener+"="+sock)
	listener.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := listener.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := listener.Start(); err != nil {
		t.Fatal(err)
	}
	defer listener.Wait()
	defer listener.Process.Kill()
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "listening" {
		t.Fatalf("the other user's listener did not start: %q", lines.Text())
	}
	script := fmt.Sprintf(`TICKMUX_SOCKET=%[1]s %[2]s attach; echo "rc1=$?"
TICKMUX_SOCKET=%[1]s %[2]s; echo "rc2=$?"
echo all-done; sleep 100`, sock, r.self)
	if err := os.WriteFile(filepath.Join(r.dir, "script.sh"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	r.tmux("new-session", "-d", "-x", "160", "-y", "40", "-s", "e2e", "sh "+filepath.Join(r.dir, "script.sh"))
	s := r.waitFor("all-done")
	if strings.Count(s, "does not run as you") != 2 || !strings.Contains(s, "rc1=1") || !strings.Contains(s, "rc2=1") {
		t.Fatalf("attaching to another user's socket was not refused twice:\n%s", s)
	}
	r.tmux("kill-session", "-t", "e2e")
	listener.Process.Kill()
	var got []string
	for lines.Scan() {
		got = append(got, lines.Text())
	}
	for _, g := range got {
		if g != "got 0" {
			t.Errorf("the other user's socket was sent something: %q", got)
			break
		}
	}
	if len(got) == 0 {
		t.Error("nothing connected to the other user's socket: the test proves nothing")
	}
}

// viewPID finds the running view process started as `tickmux ARGS...` in this rig.
func (r *tmuxRig) viewPID(args ...string) int {
	r.t.Helper()
	want := strings.Join(append([]string{r.self}, args...), "\x00")
	for _, pid := range r.launched() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.TrimRight(string(cmdline), "\x00") == want {
			return pid
		}
	}
	r.t.Fatalf("no view process %q is running", args)
	return 0
}

// An attached view relays what its terminal tells it alone: a resize reaches the layout and the
// programs; SIGTERM detaches it (the terminal back as it was), SIGHUP ends it and the server
// restores the terminal it leaves.
func TestEndToEndAttachedViewRelays(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	dir := r.dir
	script := fmt.Sprintf(`stty -g > %[1]s/b1; %[2]s; echo "rc1=$?"; stty -g > %[1]s/a1
read next
stty -g > %[1]s/b2; %[2]s attach; echo "rc2=$?"; i=0; until stty -a | grep -q ' icanon' || [ $i -gt 200 ]; do sleep 0.1; i=$((i+1)); done; stty -g > %[1]s/a2
echo all-done; sleep 100`, dir, r.self)
	if err := os.WriteFile(filepath.Join(dir, "script.sh"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	r.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", "sh "+filepath.Join(dir, "script.sh"))
	r.waitFor("shell:1")
	r.typeLine(`echo "size=$(stty size)"`, "size=37 ") // 40 rows: the status bar and the pane's two borders
	r.tmux("resize-window", "-t", "e2e", "-x", "100", "-y", "30")
	r.keys("clear", "Enter")
	// The new size reaches the pane through the view's process and the server, after keys typed
	// at once may have run: the shell waits for it (5 s at most), then says what it has.
	r.typeLine(`i=0; until [ "$(stty size | cut -d' ' -f1)" != 37 ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done; echo "size=$(stty size)"`, "size=27 ")

	if err := syscall.Kill(r.viewPID(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s := r.waitFor("rc1=0")
	if !strings.Contains(s, "[detached]") {
		t.Fatalf("SIGTERM did not detach the view:\n%s", s)
	}
	r.keys("Enter")
	r.waitFor("shell:1")
	if err := syscall.Kill(r.viewPID("attach"), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	r.waitFor("all-done")
	for i := 1; i <= 2; i++ {
		sameStty(t, filepath.Join(dir, fmt.Sprintf("b%d", i)), filepath.Join(dir, fmt.Sprintf("a%d", i)))
	}
	r.tmux("kill-session", "-t", "e2e")
	r.killServer()
	r.waitAllEnded(10*time.Second, "kill-server")
}

// The server puts tickmux on PATH beside the rest of its set-up (cmd_server.go); the first pane's
// shell starts once it is there, and reaches the server by that name.
func TestEndToEndFirstShellFindsTickmux(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeLine(`tickmux ls >/dev/null && echo "found-$((6*7))"`, "found-42")
}
