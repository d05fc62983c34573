package main

// Issue 24 items 2 and 3: views come from the person's terminals, never from inside tickmux; a
// view's `open` runs once its terminal is there; the card, the log and the recent calls say which
// view answered.

import (
	"bufio"
	"encoding/json"
	"errors"
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
	"golang.org/x/sys/unix"

	"tickmux/agent"
	"tickmux/server"
)

// rawView speaks the view protocol from the test process, outside tickmux: the attach request
// with p, then tty as the terminal (nil: it hangs up when asked for one). It returns the
// connection, once the server asked for the terminal and was given it, or the server's error.
func rawView(socket string, p server.AttachParams, tty *os.File) (*net.UnixConn, *bufio.Reader, error) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return nil, nil, err
	}
	nc := c.(*net.UnixConn)
	_ = nc.SetDeadline(time.Now().Add(60 * time.Second)) // guards against hanging only
	params, _ := json.Marshal(p)
	if err := json.NewEncoder(nc).Encode(agent.Request{ID: 1, Method: server.MethodAttach, Params: params}); err != nil {
		nc.Close()
		return nil, nil, err
	}
	rd := bufio.NewReader(nc)
	line, err := rd.ReadBytes('\n')
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("no answer to the attach: %w", err)
	}
	var m agent.Message
	if err := json.Unmarshal(line, &m); err != nil {
		nc.Close()
		return nil, nil, err
	}
	if m.Error != nil {
		nc.Close()
		return nil, nil, errors.New(m.Error.Message)
	}
	if tty == nil {
		nc.Close()
		return nil, nil, nil
	}
	if _, _, err := nc.WriteMsgUnix([]byte{0}, unix.UnixRights(int(tty.Fd())), nil); err != nil {
		nc.Close()
		return nil, nil, err
	}
	_ = nc.SetDeadline(time.Time{})
	return nc, rd, nil
}

// left reads the server's lines until view/left, and returns its params.
func left(t *testing.T, nc *net.UnixConn, rd *bufio.Reader) server.LeftParams {
	t.Helper()
	_ = nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			t.Fatalf("the server never said the view left: %v", err)
		}
		var m agent.Message
		if json.Unmarshal(line, &m) == nil && m.Method == "view/left" {
			var lp server.LeftParams
			_ = json.Unmarshal(m.Params, &lp)
			return lp
		}
	}
}

// refusal is the one line a refused view prints.
const refusal = "tickmux: cannot attach from inside tickmux"

// spec: issue 24 item 3. `tickmux attach` typed in one of tickmux's own panes is refused with one
// line, as tmux refuses a nested client; the server, the pane and the view go on.
func TestEndToEndAttachInsideAPaneIsRefused(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	s := r.typeLine(`tickmux attach; echo "rc=$?" "end-$((6*7))"`, "end-42")
	if !strings.Contains(s, refusal) || !strings.Contains(s, "rc=1") {
		t.Fatalf("tickmux attach in a pane was not refused:\n%s", s)
	}
	r.typeLine("echo still-$((6*7))", "still-42")
	if log := r.log(); !strings.Contains(log, "attach refused") {
		t.Fatalf("the refusal is not in the log:\n%s", log)
	}
	r.waitFor("shell:1")
	if out := r.run("ls", "--json"); !strings.Contains(strings.Join(strings.Fields(out), ""), `"views":1`) {
		t.Fatalf("the view is not the only one attached:\n%s", out)
	}
}

// spec: issue 24 item 2. An agent's shell tool types keys into a view it attached itself through
// script(1), to answer its own card: the view is refused, and so is one started by a daemon
// that left the pane (double fork, setsid: reparented to the server, the host's subreaper).
func TestEndToEndAgentCannotAttachAView(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("demo")
	r.waitFor("hosted:5 Jobs · ready")
	r.prefix("%", "shell:1")
	call := r.startCall("hosted:1", "increment", `{"amount":2}`)
	r.waitFor("wants to call increment on hosted:1")
	out := filepath.Join(r.dir, "agent.out")
	r.typeLine(fmt.Sprintf(`(sleep 1; printf '\002a'; sleep 1.2; printf y) | script -qfc 'tickmux attach' /dev/null > %s 2>&1; echo "script-rc=$?" "end-$((6*7))"`, out), "end-42")
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), refusal) {
		t.Fatalf("a view attached through script in a pane was not refused: %q\nlog:\n%s", b, r.log())
	}
	// A daemon that left the pane: its parent (the subshell) has exited by the time the pane's
	// shell runs touch; it is reparented, leads a session of its own, and only then attaches.
	daemon := filepath.Join(r.dir, "daemon.out")
	gone := filepath.Join(r.dir, "parent-gone")
	r.typeLine(fmt.Sprintf(`(setsid sh -c 'while [ ! -e %s ]; do sleep 0.05; done; echo "ppid=$(ps -o ppid= -p $$)"; script -qfc "tickmux attach" /dev/null; echo "daemon-rc=$?"' > %s 2>&1 &); touch %s; echo "forked-$((6*7))"`, gone, daemon, gone), "forked-42")
	var b []byte
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(string(b), "daemon-rc="); b, _ = os.ReadFile(daemon) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not finish: %q", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(string(b), refusal) {
		t.Fatalf("a view attached by a daemon that left the pane was not refused: %q\nlog:\n%s", b, r.log())
	}
	if m := regexp.MustCompile(`ppid=\s*(\d+)`).FindStringSubmatch(string(b)); m == nil || m[1] != fmt.Sprint(r.serverPID(t)) {
		t.Errorf("the daemon was not reparented to the server (pid %d): %q", r.serverPID(t), b)
	}
	// The card still waits for the person, who answers it in the real view.
	r.waitFor("wants to call increment on hosted:1")
	r.answerCardIn("e2e", "allow once", "y")
	call.returned(t)
}

// spec: issue 24 item 2. A process outside tickmux that passes one of tickmux's own PTYs as its
// terminal is refused: the view would read that pane's keys and draw into the pane it reads.
func TestEndToEndViewOnTickmuxsOwnPTYIsRefused(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	name := filepath.Join(r.dir, "pane.tty")
	r.typeLine("tty > "+name+"; echo saved-$((6*7))", "saved-42")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(strings.TrimSpace(string(b)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	nc, rd, err := rawView(r.socket, server.AttachParams{Term: "xterm-256color"}, tty)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	lp := left(t, nc, rd)
	if !lp.Failed || !strings.Contains(lp.Reason, "cannot attach from inside tickmux") {
		t.Fatalf("a view on a pane's own PTY was not refused: %+v", lp)
	}
	r.typeLine("echo still-$((6*7))", "still-42")
}

// spec: issue 24 item 2. `view/attach` with `open` opens nothing until a terminal has arrived
// and the view is attached: a request that hangs up when asked for its terminal opens nothing.
func TestEndToEndOpenWaitsForTheView(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	marker := filepath.Join(r.dir, "opened")
	open := server.AttachParams{Term: "xterm-256color", Open: []string{"sh", "-c", "touch " + marker + "; sleep 100"}}
	if _, _, err := rawView(r.socket, open, nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(r.log(), "sent no terminal"); {
		if time.Now().After(deadline) {
			t.Fatalf("the server never noticed the view hung up:\n%s", r.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(marker); err == nil || strings.Contains(r.run("ls"), "shell:2") {
		t.Fatalf("the program was opened for a view that never showed:\n%s", r.run("ls"))
	}
	// With a terminal, it opens.
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	go drain(master)
	nc, _, err := rawView(r.socket, open, tty)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program was not opened for an attached view:\n%s", r.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// drain reads what the server draws on a test's terminal, so that its writes never stall.
func drain(f *os.File) {
	buf := make([]byte, 32<<10)
	for {
		if _, err := f.Read(buf); err != nil {
			return
		}
	}
}

// spec: issue 24 item 2. The focused card says which view's keys answer it; the log and the
// panel's recent calls say which view answered.
func TestEndToEndSaysWhichViewAnswered(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("demo")
	r.waitFor("hosted:5 Jobs · ready")
	ttyOf := r.tmux("display-message", "-p", "-t", "e2e", "#{pane_tty}")
	want := "view 1 " + strings.TrimSpace(ttyOf)
	call := r.startCall("hosted:1", "increment", `{"amount":2}`)
	r.waitFor("wants to call increment on hosted:1")
	r.keys("C-b", "a")
	r.waitFor("keys answer from " + want)
	r.keys("y")
	call.returned(t)
	r.keys("C-b", "Up") // from the demo's shell, focused, to the counter two panes up: its recent calls
	r.keys("C-b", "Up")
	r.waitFor("(approved by " + want + ")")
	if log := r.log(); !strings.Contains(log, "allowed once by "+want) {
		t.Fatalf("the log does not say which view answered:\n%s", log)
	}
}

// spec: issue 24 item 8. After su (or sudo -u) the terminal belongs to another uid, which the
// server may not open again by its path: it draws on the descriptor it was passed, and leaves it
// blocking, as the shell had it, when the view ends.
func TestEndToEndAttachAfterSu(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("plays su: needs root to run tickmux as nobody on root's terminal")
	}
	r := newTmuxRig(t)
	home := filepath.Join(r.dir, "nobody")
	if err := os.Mkdir(home, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(r.dir), r.dir, home} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(home, "bin", "tickmux")
	if err := os.Mkdir(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(home, "tickmux.sock")
	asNobody := fmt.Sprintf("setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=%[1]s XDG_STATE_HOME=%[1]s XDG_CONFIG_HOME=%[1]s TICKMUX_SOCKET=%[2]s", home, sock)
	defer func() {
		kill := exec.Command("sh", "-c", asNobody+" "+bin+" kill-server")
		kill.Env, kill.Dir = r.env, home // the test binary plays tickmux
		_ = kill.Run()
	}()
	script := fmt.Sprintf("%s %s; echo \"rc=$?\"; read x; echo \"read-$x\"; sleep 100", asNobody, bin)
	// Started in a directory nobody can enter: the checkout may lie in a 0700 home.
	r.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", "-c", home, "sh -c '"+script+"'")
	r.waitFor("shell:1")
	r.typeLine("id -u; echo as-$((6*7))", "as-42")
	s := r.prefix("d", "rc=0")
	if !strings.Contains(s, "[detached]") {
		t.Fatalf("the view did not detach:\n%s", s)
	}
	// The shell's read waits for a line: its terminal is blocking again.
	r.keys("typed", "Enter")
	r.waitFor("read-typed")
}

// pidReuseAttack is the pane program of issue 38's first attack: it makes a socket, has a
// child connect it to the server and exit (the socket's peer credentials name the child), writes
// the child's pid to PID, waits for GO (by then an outside process has the child's pid), asks to
// attach a view and writes the server's answer to ANSWER.
const pidReuseAttack = `import json, os, socket, sys, time
path, pidfile, gofile, answer = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX)
child = os.fork()
if child == 0:
    s.connect(path)
    os._exit(0)
os.waitpid(child, 0)
open(pidfile + ".tmp", "w").write(str(child))
os.rename(pidfile + ".tmp", pidfile)
while not os.path.exists(gofile):
    time.sleep(0.02)
s.sendall((json.dumps({"id": 1, "method": "view/attach", "params": {"term": "xterm-256color"}}) + "\n").encode())
f = s.makefile()
open(answer, "w").write(f.readline())
`

// spec: issue 38 item 1. A pane's program connects from a child that exits at once, an
// outside process is handed the child's pid (ns_last_pid, as root, makes it certain), and the
// program asks to attach a view: the server pins the process that connected, finds it gone, and
// refuses; it never walks the outside process's ancestry in its place.
func TestEndToEndAttachByAReusedPidIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("handing a pid to a chosen process (ns_last_pid) needs root")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 plays the pane's program (scripts/install-test-deps installs it)")
	}
	t.Parallel()
	r := shellRig(t)
	script := filepath.Join(r.dir, "attack.py")
	if err := os.WriteFile(script, []byte(pidReuseAttack), 0o600); err != nil {
		t.Fatal(err)
	}
	pidFile, goFile, answer := filepath.Join(r.dir, "pid"), filepath.Join(r.dir, "go"), filepath.Join(r.dir, "answer")
	r.typeLine(fmt.Sprintf(`python3 %s "$TICKMUX_SOCKET" %s %s %s; echo "attack-$((6*7))"`, script, pidFile, goFile, answer), "")
	var b []byte
	for deadline := time.Now().Add(30 * time.Second); len(b) == 0; b, _ = os.ReadFile(pidFile) {
		if time.Now().After(deadline) {
			t.Fatal("the pane's program never wrote its child's pid")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	// An outside process (a child of this test, which no pane contains) takes the pid.
	var outside *exec.Cmd
	for try := 0; try < 200 && outside == nil; try++ {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(fmt.Sprint(pid-1)), 0); err != nil {
			t.Skipf("cannot write ns_last_pid: %v", err)
		}
		cmd := exec.Command("/bin/sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if cmd.Process.Pid == pid {
			outside = cmd
			break
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	if outside == nil {
		t.Skip("other processes took the pid each time")
	}
	defer func() { _ = outside.Process.Kill(); _ = outside.Wait() }()
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r.waitFor("attack-42")
	got, _ := os.ReadFile(answer)
	if strings.Contains(string(got), "send_fd") || !strings.Contains(string(got), "has exited") {
		t.Fatalf("an attach from a connection whose process had exited (its pid now an outside process's) was not refused: %q\nlog:\n%s", got, r.log())
	}
}
