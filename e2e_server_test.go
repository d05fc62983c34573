package main

// End-to-end tests of the server: views that detach and attach, several views at once, a server
// killed outright, and the terminal modes a view gets (mouse, bracketed paste, a restored tty).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// agentCall starts `tickmux call` in the background, as an agent would.
type agentCall struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	done chan error
}

// lockedBuffer is output read while the process still writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (r *tmuxRig) startCall(args ...string) *agentCall {
	r.t.Helper()
	c := &agentCall{cmd: r.cli(append([]string{"call"}, args...)...), done: make(chan error, 1)}
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	go func() { c.done <- c.cmd.Wait() }() // owner: the test; returns when the call process exits
	r.t.Cleanup(func() { c.cmd.Process.Kill() })
	return c
}

// returned waits for the call's answer; the deadline only guards against hanging.
func (c *agentCall) returned(t *testing.T) string {
	t.Helper()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("tickmux call: %v\n%s", err, c.out.String())
		}
		return c.out.String()
	case <-time.After(30 * time.Second):
		t.Fatalf("the call did not return:\n%s", c.out.String())
	}
	return ""
}

// stillWaiting fails when the call has returned. It does not wait: the caller first waits for
// a sentinel, something that shows the step that could have answered the call is over.
func (c *agentCall) stillWaiting(t *testing.T) {
	t.Helper()
	select {
	case err := <-c.done:
		t.Fatalf("the call returned without an answer (%v):\n%s", err, c.out.String())
	default:
	}
}

// run runs a CLI verb and returns its output.
// startDemoSavingStty starts tickmux demo in session e2e from a shell that saves its terminal's
// settings (stty -g) to the file before, runs afterDemo once the view ends, saves them again to
// after, then runs tail; it returns when the demo is ready.
func (r *tmuxRig) startDemoSavingStty(afterDemo, tail string) (before, after string) {
	r.t.Helper()
	before, after = filepath.Join(r.dir, "stty.before"), filepath.Join(r.dir, "stty.after")
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "e2e",
		fmt.Sprintf("stty -g > %s; %s demo; %s stty -g > %s; %s; sleep 100", before, r.self, afterDemo, after, tail))
	r.waitFor("hosted:5 Jobs · ready")
	return before, after
}

// answerCardIn focuses the card in session's view with prefix a, waits for shows, and types key.
func (r *tmuxRig) answerCardIn(session, shows, key string) {
	r.t.Helper()
	r.keysTo(session, "C-b", "a")
	r.waitIn(session, shows)
	r.keysTo(session, key)
}

func (r *tmuxRig) run(args ...string) string {
	r.t.Helper()
	out, err := r.cli(args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("tickmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// serverPID finds the tickmux server the rig's tickmux started (t: the test or subtest that
// fails when there is none).
func (r *tmuxRig) serverPID(t testing.TB) int {
	t.Helper()
	for _, pid := range r.launched() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[1] == "server" {
			return pid
		}
	}
	t.Fatalf("no tickmux server among the rig's processes\nlog:\n%s", r.log())
	return 0
}

// waitNoView waits until the server has no view attached (`ls --json`), failing with why if it
// keeps one.
func (r *tmuxRig) waitNoView(why string) {
	r.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(strings.Join(strings.Fields(r.run("ls", "--json")), ""), `"views":0`); {
		if time.Now().After(deadline) {
			r.t.Fatal(why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The test: a view closed while a card waits; the server keeps everything; a new view
// shows the same panes, their scrollback and the card, and answers it.
// README "Sessions: detach, attach, several views": detach with prefix `d`, `tickmux attach`.
func TestEndToEndDetachAndAttach(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("demo")
	r.waitFor("hosted:5 Jobs · ready")
	// A shell with output that scrolls: its scrollback must survive the view. (The demo focuses
	// its own shell, shell:1, below the Ticks: the new one splits it.)
	r.prefix("%", "shell:2")
	r.typeLine("seq 1001 1100; echo before-$((6*7))", "before-42")

	call := r.startCall("hosted:1", "increment", `{"amount":2}`) // progress on stderr
	r.waitFor("wants to call increment on hosted:1")

	// The terminal goes away before the card is answered.
	r.tmux("kill-session", "-t", "e2e")
	ls := r.run("ls")
	for i := 1; i <= 5; i++ {
		if !strings.Contains(ls, fmt.Sprintf("hosted:%d", i)) {
			t.Fatalf("ls lost hosted:%d after the view closed:\n%s", i, ls)
		}
	}
	if !strings.Contains(ls, "shell:1") || !strings.Contains(ls, "no view is attached") {
		t.Fatalf("ls does not list the shell or does not say no view is attached:\n%s", ls)
	}
	// The agent's progress says so too.
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(call.out.String(), "no view is attached"); {
		if time.Now().After(deadline) {
			t.Fatalf("the waiting call's progress never said no view is attached:\n%s", call.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	call.stillWaiting(t) // the server has seen the view go (the progress above), and the call waits
	// The programs go on: the clock's seq moves with no view attached.
	seqOf := func(ls, id string) string {
		for _, line := range strings.Split(ls, "\n") {
			if f := strings.Fields(line); len(f) > 6 && f[0] == id {
				return f[len(f)-2]
			}
		}
		return ""
	}
	before := seqOf(ls, "hosted:3")
	deadline := time.Now().Add(10 * time.Second)
	for seqOf(r.run("ls"), "hosted:3") == before {
		if time.Now().After(deadline) {
			t.Fatalf("the clock's seq stayed at %s with no view attached", before)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A new view in a new terminal.
	r.startIn("again", "attach")
	r.waitIn("again", "hosted:5 Jobs · ready")
	r.waitIn("again", "wants to call increment on hosted:1")
	r.waitIn("again", "before-42")
	// Scroll mode in the shell (the focused pane) reaches lines that scrolled off before.
	r.keysTo("again", "C-b", "[")
	r.keysTo("again", "PgUp", "PgUp", "PgUp")
	r.waitIn("again", "┃1030 ")
	r.keysTo("again", "q")

	r.answerCardIn("again", "allow once", "y")
	if out := call.returned(t); !strings.Contains(strings.ReplaceAll(out, " ", ""), `"value":2`) {
		t.Fatalf("call result %s does not carry the new value 2", out)
	}
	r.waitGone("again", "wants to call increment")

	// A grant made with r belongs to the server: it still holds with no view attached.
	call = r.startCall("hosted:1", "increment", `{"amount":1}`)
	r.waitIn("again", "wants to call increment on hosted:1")
	r.answerCardIn("again", "allow for this revision", "r")
	call.returned(t)
	r.keysTo("again", "C-b", "d")
	r.waitNoView("prefix d did not detach the view")
	if out := r.startCall("hosted:1", "increment", `{"amount":1}`).returned(t); !strings.Contains(strings.ReplaceAll(out, " ", ""), `"value":4`) {
		t.Fatalf("a call covered by the grant, with no view attached: %s", out)
	}
}

// Two views at once: the card shows in both, is answered in one and leaves both; a card mode
// entered in one view never takes a key typed in the other.
// README "Sessions: detach, attach, several views": several views.
func TestEndToEndTwoViews(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("demo")
	r.waitFor("hosted:5 Jobs · ready")
	// tickmux demo on a running server says so and attaches.
	r.tmux("new-session", "-d", "-x", "150", "-y", "45", "-s", "second", r.self+" demo; sleep 100")
	r.waitIn("second", "hosted:5 Jobs · ready")

	call := r.startCall("--json", "hosted:1", "increment", `{"amount":5}`)
	r.waitIn("e2e", "wants to call increment on hosted:1")
	r.waitIn("second", "wants to call increment on hosted:1")

	// The first view enters card mode; y typed in the second goes to its own focused pane.
	r.keysTo("e2e", "C-b", "a")
	r.waitIn("e2e", "APPROVE")
	r.keysTo("second", "y")
	r.keysTo("second", "-l", "after-y-typed")
	r.waitIn("second", "yafter-y-typed") // the sentinel: the view took y, as a key for its pane
	call.stillWaiting(t)
	if s := r.screenOf("e2e"); !strings.Contains(s, "wants to call increment on hosted:1") {
		t.Fatalf("the card left the first view after a y typed in the second:\n%s", s)
	}
	r.keysTo("second", "C-u")

	// The second view answers in its own card mode.
	r.answerCardIn("second", "APPROVE", "y")
	if out := call.returned(t); !strings.Contains(strings.ReplaceAll(out, " ", ""), `"value":5`) {
		t.Fatalf("call result %s does not carry the new value 5", out)
	}
	r.waitGone("e2e", "wants to call increment")
	r.waitGone("second", "wants to call increment")

	// prefix d detaches one view; the other goes on.
	r.keysTo("second", "C-b", "d")
	if s := r.waitIn("second", "[detached]"); !strings.Contains(s, "a tickmux already runs") {
		t.Fatalf("tickmux demo on a running server did not say so:\n%s", s)
	}
	// The first view was reading the card the second answered: keys typed there within the
	// settle time after it went away reach nothing; later ones reach the pane again.
	time.Sleep(time.Second)
	r.keys("C-b", "Up") // from the demo's shell, focused, to the counter two panes up
	r.keys("C-b", "Up")
	r.keys("+")
	r.waitFor(`"value": 6`)

	// tickmux -- CMD on a running server opens CMD there and attaches.
	r.tmux("new-session", "-d", "-x", "150", "-y", "45", "-s", "third", r.self+" -- "+r.self+" example notes; sleep 100")
	r.waitIn("third", "hosted:6 Notes")
	r.waitIn("e2e", "hosted:6 Notes")
}

// A server killed outright leaves no program and no socket behind, the view's terminal is
// restored, and the next tickmux starts.
// README "Sessions: detach, attach, several views": `tickmux kill-server` and a server killed outright.
func TestEndToEndServerKilled(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	before, after := r.startDemoSavingStty("rc=$?;", "echo view-ended-$rc")
	pid := r.serverPID(r.t)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r.waitFor("view-ended-1")
	if s := r.screen(); !strings.Contains(s, "the server went away") {
		t.Fatalf("the view did not say the server went away:\n%s", s)
	}
	sameStty(t, before, after)
	r.tmux("kill-session", "-t", "e2e") // its shell carries the rig's environment too
	r.waitAllEnded(10*time.Second, "the killed server")
	if _, err := os.Stat(r.socket); err == nil {
		t.Fatal("the killed server's socket was left behind")
	}
	r.startIn("next", "")
	r.waitIn("next", "shell:1")
}

func sameStty(t *testing.T, before, after string) {
	t.Helper()
	b, err1 := os.ReadFile(before)
	a, err2 := os.ReadFile(after)
	if err1 != nil || err2 != nil || len(b) == 0 {
		t.Fatalf("stty -g was not recorded: %v %v", err1, err2)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("the terminal was not restored:\nbefore %s\nafter  %s", b, a)
	}
}

// Issue 11 item 4: errors before or after the screen started are printed on the normal screen,
// and the terminal is left as it was.
// README "Sessions: detach, attach, several views".
func TestEndToEndErrorsRestoreTheTerminal(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	dir := r.dir
	// A program that cannot start; a server that has no views (tickmux serve); a view detached.
	script := fmt.Sprintf(`stty -g > %[1]s/b1; %[2]s -- /nonexistent; echo "rc1=$?"; stty -g > %[1]s/a1
%[2]s serve 2> %[1]s/serve.err & sp=$!; i=0; until %[2]s ls >/dev/null 2>&1 || [ $i -gt 400 ]; do sleep 0.05; i=$((i+1)); done
stty -g > %[1]s/b2; %[2]s; echo "rc2=$?"; stty -g > %[1]s/a2; kill $sp; wait $sp
read next
stty -g > %[1]s/b3; %[2]s; echo "rc3=$?"; stty -g > %[1]s/a3
stty -g > %[1]s/b4; TERM=no-such-terminal %[2]s attach; echo "rc4=$?"; stty -g > %[1]s/a4
echo all-done; sleep 100`, dir, r.self)
	if err := os.WriteFile(filepath.Join(dir, "script.sh"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	r.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", "sh "+filepath.Join(dir, "script.sh"))
	s := r.waitFor("rc1=1")
	if !strings.Contains(s, `cannot start "/nonexistent"`) {
		t.Fatalf("the start-up error is not on the normal screen:\n%s", s)
	}
	s = r.waitFor("rc2=1")
	if !strings.Contains(s, "has no views") {
		t.Fatalf("attaching to a headless tickmux did not say why it failed:\n%s", s)
	}
	r.keys("Enter") // the script waits for it: the next view would cover the screen
	r.waitFor("shell:1")
	s = r.prefix("d", "all-done")
	if !strings.Contains(s, "rc4=1") || !strings.Contains(s, `does not know the terminal TERM="no-such-terminal"`) {
		t.Fatalf("attaching from an unknown terminal did not fail with the reason:\n%s", s)
	}
	for i := 1; i <= 4; i++ {
		sameStty(t, filepath.Join(dir, fmt.Sprintf("b%d", i)), filepath.Join(dir, fmt.Sprintf("a%d", i)))
	}
}

// Issue 11 item 1: a view gets mouse reporting and bracketed paste; a paste reaches a program
// that asked for bracketed paste as one paste (bash keeps both lines unexecuted), and a paste
// is never keys the prefix or a card could take.
// README "Terminal panes and `tickmux snap`": mouse and bracketed paste through a view.
func TestEndToEndMouseAndPaste(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.env = append(r.env, "SHELL=/bin/bash", "INPUTRC=/dev/null")
	r.tmux("new-session", "-d", "-x", "160", "-y", "40", "-s", "e2e", r.self)
	r.waitFor("shell:1 bash · ready") // named after the command in its foreground
	r.typeLine("echo ready-$((2*2))", "ready-4")
	if got := strings.TrimSpace(r.tmux("display", "-p", "-t", "e2e", "#{mouse_any_flag}")); got != "1" {
		t.Fatalf("tmux sees mouse_any_flag=%s: the view never turned the mouse on", got)
	}
	// A paste of two commands: bash asked for bracketed paste, so neither runs.
	r.tmux("set-buffer", "-b", "p", "echo one-$((1+1))\necho two-$((1+2))")
	r.tmux("paste-buffer", "-p", "-b", "p", "-t", "e2e")
	r.waitFor("echo two-$((1+2))")
	r.cancelLine("echo two-$((1+2))^C")
	// The sentinel: a command typed after the paste runs after anything the paste ran.
	if s := r.typeLine("echo after-paste-$((3*3))", "after-paste-9"); strings.Contains(s, "one-2") || strings.Contains(s, "two-3") {
		t.Fatalf("the paste ran a line at once:\n%s", s)
	}
	// A paste holding the prefix and d never detaches; nor does it answer a card.
	r.tmux("set-buffer", "-b", "q", "\x02d")
	r.tmux("paste-buffer", "-p", "-b", "q", "-t", "e2e")
	// The paste is text on bash's line, as xterm would send it (^B kept): once it is there, the
	// view has read past it (a sentinel), and a detach would have happened.
	if s := r.waitFor("^Bd"); strings.Contains(s, "[detached]") {
		t.Fatalf("a pasted prefix detached the view:\n%s", s)
	}
	r.cancelLine("^Bd^C")
	r.typeLine("echo still-$((3*3))", "still-9")
}

// cancelLine types C-c until bash shows want, the line it cancelled. bash now and then misses a
// ^C that comes soon after a paste holding a control character (its input arrives in order: a
// raw reader in the pane sees the paste, then the ^C): again.
func (r *tmuxRig) cancelLine(want string) {
	r.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		r.keys("C-c")
		if r.waitUntilOr("e2e", 2*time.Second, func(s string) bool { return strings.Contains(s, want) }) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("C-c never cleared the pasted line:\n%s", r.screen())
		}
	}
}

// kill -9 of the view process detaches it: the server restores the terminal (the shell gets it
// back as it was) and every program goes on.
// README "Sessions: detach, attach, several views": killing the `tickmux` process in the terminal detaches.
func TestEndToEndViewKilled(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	// The server restores the terminal once it sees the view gone: wait for it (20 s at most).
	before, after := r.startDemoSavingStty("i=0; until stty -a | grep -q ' icanon' || [ $i -gt 200 ]; do sleep 0.1; i=$((i+1)); done;", "echo view-ended")
	view := 0
	for _, pid := range r.launched() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); len(args) == 2 && args[1] == "demo" {
			view = pid
		}
	}
	if view == 0 {
		t.Fatal("the view process was not found")
	}
	if err := syscall.Kill(view, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r.waitFor("view-ended")
	sameStty(t, before, after)
	ls := r.run("ls")
	if !strings.Contains(ls, "hosted:5") {
		t.Fatalf("the programs did not outlive the view:\n%s", ls)
	}
	r.startIn("again", "attach")
	r.waitIn("again", "hosted:5 Jobs · ready")
}

// The view's terminal goes away while it is scrolled back in the shell, and a view of the same
// size attaches: it shows the pane live (the attach draws only what changed, over the frame drawn
// whole when the last view left) and takes keys. It detaches, and a view of another size shows
// the layout at its own size.
// README "Sessions: detach, attach, several views".
func TestEndToEndAttachAfterAScrolledViewLeft(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeLine("seq -f 'row %g' 500; echo printed-$((6*7))", "printed-42")
	r.prefix("[", "SCROLL")
	r.keys("PgUp")
	r.waitGone("e2e", "printed-42")
	r.tmux("kill-session", "-t", "e2e")
	r.waitNoView("the view did not leave with its terminal")
	r.startIn("again", "attach") // 200x50, as the view that left
	if s := r.waitIn("again", "printed-42"); strings.Contains(s, "SCROLL") {
		t.Fatalf("the new view shows the pane scrolled back:\n%s", s)
	}
	r.keysTo("again", "echo again-$((6*7))", "Enter")
	r.waitIn("again", "again-42")
	r.keysTo("again", "C-b", "d")
	r.waitNoView("prefix d did not detach the view")
	r.tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", "small", r.self+" attach")
	s := r.waitIn("small", "again-42")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if strings.Contains(s, "sized") || len(lines) != 30 || !strings.Contains(lines[29], "C-b ? help") {
		t.Fatalf("the 120x30 view does not show the layout at its size:\n%s", s)
	}
}
