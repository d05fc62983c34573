package main

// End-to-end: the real TUI in a real terminal, driven by tmux (send-keys, capture-pane), with an
// agent's call coming through the real control socket and answered by a keypress.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

type tmuxRig struct {
	t       *testing.T
	self    string
	dir     string
	tmuxSoc string
	socket  string
	env     []string
}

func newTmuxRig(t *testing.T) *tmuxRig {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("TICKMUX_SKIP_TMUX") == "1" {
			t.Skip("tmux is missing and TICKMUX_SKIP_TMUX=1")
		}
		t.Fatal("tmux is missing: run ./scripts/install-test-deps first (the README's test command does), or set TICKMUX_SKIP_TMUX=1 to skip")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &tmuxRig{t: t, self: self, dir: dir, tmuxSoc: filepath.Join(dir, "tmux.sock"), socket: filepath.Join(dir, "tickmux.sock")}
	// A plain sh for shell panes, and a HOME of our own: the person's shell startup files (a
	// slow pyenv rehash, say) are not what is tested here.
	r.env = append(os.Environ(), envAsMain+"=1", "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir, "NO_COLOR=",
		"TICKMUX_SOCKET="+r.socket, "SHELL=/bin/sh", "HOME="+dir, "PS1=$ ",
		// tickmux is played by this test binary: under -race it would sleep a second at every
		// exit (the race detector's default), which is no part of tickmux's own exit time.
		"GORACE=atexit_sleep_ms=0",
		// Claude Code started in a pane must not update itself: an earlier run updated the
		// machine's global npm Claude Code (issue 44 item 9). Tests change nothing outside the
		// checkout.
		"DISABLE_AUTOUPDATER=1")
	t.Cleanup(func() {
		exec.Command("tmux", "-S", r.tmuxSoc, "kill-server").Run()
		r.killServer()
	})
	return r
}

// killServer ends the tickmux server the test started, and anything it left: no test leaves a
// server running. kill-server returns once every program has been told to end; the server ends a
// moment later, its log complete: wait for that (10 s at most) before killing what is left.
func (r *tmuxRig) killServer() {
	var servers []int
	for _, pid := range r.launched() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[1] == "server" {
			servers = append(servers, pid)
		}
	}
	kill := exec.Command(r.self, "kill-server", "--socket", r.socket)
	kill.Env = r.env
	_ = kill.Run()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !slices.ContainsFunc(servers, alive) {
			break
		}
	}
	for _, pid := range r.launched() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func (r *tmuxRig) tmux(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", r.tmuxSoc}, args...)...)
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r *tmuxRig) start(args ...string) { r.startIn("e2e", args...) }

// startIn runs tickmux with args in a new tmux session (a terminal of its own).
func (r *tmuxRig) startIn(session string, args ...string) {
	cmdline := r.self
	for _, a := range args {
		cmdline += " " + a
	}
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", session, cmdline)
}

func (r *tmuxRig) screen() string { return r.screenOf("e2e") }

func (r *tmuxRig) screenOf(session string) string {
	r.t.Helper()
	cmd := exec.Command("tmux", "-S", r.tmuxSoc, "capture-pane", "-p", "-t", session)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// waitFor polls the screen; the deadline only guards against hanging.
func (r *tmuxRig) waitFor(want string) string { return r.waitIn("e2e", want) }

func (r *tmuxRig) waitIn(session, want string) string {
	r.t.Helper()
	return r.waitUntil(session, "show "+strconv.Quote(want), func(s string) bool { return strings.Contains(s, want) })
}

// waitGone polls until the screen no longer shows text.
func (r *tmuxRig) waitGone(session, text string) string {
	r.t.Helper()
	return r.waitUntil(session, "lose "+strconv.Quote(text), func(s string) bool { return !strings.Contains(s, text) })
}

func (r *tmuxRig) waitUntil(session, what string, ok func(string) bool) string {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := r.screenOf(session)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the screen of %s did not %s:\n%s\nlog:\n%s%s%s", session, what, s, r.log(), r.paneTermios(session), r.serverGoroutines())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// paneTermios is the settings of session's terminal (what tickmux's view reads), for a screen
// that did not come: a terminal left in canonical mode holds input without a newline back.
func (r *tmuxRig) paneTermios(session string) string {
	tty := strings.TrimSpace(r.tmux("display", "-p", "-t", session, "#{pane_tty}"))
	if tty == "" {
		return ""
	}
	out, _ := exec.Command("stty", "-a", "-F", tty).CombinedOutput()
	inq := ""
	if f, err := os.OpenFile(tty, os.O_RDONLY|unix.O_NOCTTY, 0); err == nil {
		if n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ); err == nil {
			inq = fmt.Sprintf("%d bytes waiting to be read\n", n)
		}
		f.Close()
	}
	// What the server's pane holds, beside what the view shows: which of the two stopped.
	pane, _ := r.cli("screen", "shell:1").CombinedOutput()
	return "\nthe terminal " + tty + ":\n" + inq + string(out) + "\nshell:1 in the server (tickmux screen):\n" + string(pane)
}

// serverGoroutines asks the rig's server for its goroutines (SIGUSR2) and returns them, for a
// screen that did not come: what the server waited on. "" when there is no server or no dump.
func (r *tmuxRig) serverGoroutines() string {
	dir := filepath.Join(r.dir, "tickmux")
	before, _ := filepath.Glob(filepath.Join(dir, "goroutines-*.txt"))
	for _, pid := range r.launched() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[1] == "server" {
			syscall.Kill(pid, syscall.SIGUSR2)
		}
	}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		after, _ := filepath.Glob(filepath.Join(dir, "goroutines-*.txt"))
		if len(after) > len(before) {
			time.Sleep(100 * time.Millisecond) // written in one go; let it finish
			b, _ := os.ReadFile(after[len(after)-1])
			const most = 64 << 10
			if len(b) > most {
				b = append(b[:most], "\n(cut)"...)
			}
			return "\nthe server's goroutines:\n" + string(b)
		}
	}
	return ""
}

func (r *tmuxRig) log() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "tickmux", "tickmux.log"))
	return string(b)
}

func (r *tmuxRig) keys(keys ...string) { r.keysTo("e2e", keys...) }

// typeLine types line and Enter, and waits for want on the screen.
func (r *tmuxRig) typeLine(line, want string) string {
	r.t.Helper()
	r.keys(line, "Enter")
	return r.waitFor(want)
}

// prefix types the prefix, then key, and waits for want on the screen.
func (r *tmuxRig) prefix(key, want string) string {
	r.t.Helper()
	r.keys("C-b", key)
	return r.waitFor(want)
}

func (r *tmuxRig) keysTo(session string, keys ...string) {
	r.tmux(append([]string{"send-keys", "-t", session}, keys...)...)
}

// cli runs a tickmux verb against the running TUI.
func (r *tmuxRig) cli(args ...string) *exec.Cmd {
	cmd := exec.Command(r.self, args...)
	cmd.Env = r.env
	return cmd
}

// README "Two commands": `go run . demo`, driven through the real TUI in tmux.
func TestEndToEndDemoInTmux(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("demo")
	r.waitFor("hosted:5 Jobs · ready")
	r.waitFor("agent panel")
	// The log counts the logtail's one tool in the singular.
	if log := r.log(); !strings.Contains(log, "1 tool)") || strings.Contains(log, "1 tools") {
		t.Errorf("the log's tool counts:\n%s", log)
	}

	// The focused shell says what to type to see an approval card; typed as it says, the card
	// comes, and the keys it names answer it.
	s := r.waitFor("A card asks first: C-b a, then y allows it (n denies).")
	// The shell is the person's shell and nothing else: no plumbing of the demo's in its command
	// line, which the panel, ls and a send card show (issue 42 item 6).
	if ls := r.run("ls"); strings.Contains(ls, "printf") || strings.Contains(ls, "DEMO_HINT") || strings.Contains(s, "printf") {
		t.Errorf("the demo shows its plumbing:\n%s\n%s", ls, s)
	}
	var typed string
	for _, line := range strings.Split(s, "\n") {
		if _, rest, ok := strings.Cut(line, "┃  tickmux call "); ok {
			typed, _, _ = strings.Cut(rest, "┃")
			typed = "tickmux call " + strings.TrimSpace(typed)
		}
	}
	if typed != `tickmux call hosted:1 increment '{"amount":2}'` {
		t.Fatalf("the demo shell's hint says to type %q:\n%s", typed, s)
	}
	r.keys(typed, "Enter")
	r.waitFor("wants to call increment on hosted:1")
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFor(`"value": 2`)

	// The person types into a Tick (the counter, two panes up).
	r.prefix("Up", "hosted:1")
	r.prefix("Up", "hosted:1")
	r.keys("+")
	r.waitFor(`"value": 3`)

	// An agent calls a mutating tool over the control socket: a card appears.
	call := r.startCall("--json", "hosted:1", "increment", `{"amount":2}`)
	r.waitFor("wants to call increment on hosted:1")
	r.waitFor("⚑ 1 pending")
	// Typing y into the pane does not answer it. The sentinel: + typed after it counts, and the
	// frame that shows it still shows the card pending (an answer takes it away at the key).
	r.keys("y", "+")
	if s := r.waitFor(`"value": 4`); !strings.Contains(s, "⚑ 1 pending") {
		t.Fatalf("y typed into the pane answered the card:\n%s", s)
	}
	call.stillWaiting(t)
	r.prefix("a", "allow once")
	r.keys("y")
	out := call.returned(t)
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("call output %q: %v", out, err)
	}
	if !strings.Contains(out, "6") {
		t.Fatalf("call result %s does not carry the new value 6", out)
	}
	r.waitFor(`"value": 6`)

	// Split the focused pane: a shell in the same terminal, typed into.
	r.prefix("%", "shell:2")
	r.typeLine("echo from-the-shell-$((6*7))", "from-the-shell-42")

	// A program in a pane reaches this tickmux with the CLI (TICKMUX_SOCKET is set for it).
	r.keys(r.self+" ls", "Enter")
	r.waitFor("hosted:2")

	// Every program tickmux started, and their children, carry TICKMUX_SOCKET=<this socket>.
	if n := len(r.launched()); n < 7 {
		t.Fatalf("found %d processes started by tickmux, want at least 7 (5 Ticks and two shells)", n)
	}

	// Quit: every program ends with tickmux.
	r.prefix("Q", "quit tickmux")
	r.keys("y")
	r.waitAllEnded(20*time.Second, "tickmux")
	if _, err := os.Stat(r.socket); err == nil {
		t.Error("the control socket was left behind")
	}
}

// waitAllEnded waits until no process tickmux started is alive; what names the end they must not
// outlive.
func (r *tmuxRig) waitAllEnded(limit time.Duration, what string) {
	r.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		alive := r.launched()
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("processes outlived %s: %v", what, alive)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// launched lists the live processes whose environment names this rig's control socket: what
// tickmux started (the TUI itself gets it from the rig too, and is counted while it runs).
func (r *tmuxRig) launched() []int {
	marker := []byte("TICKMUX_SOCKET=" + r.socket + "\x00")
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(env, 0), marker) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue // a zombie has exited; its parent has yet to reap it
		}
		pids = append(pids, pid)
	}
	return pids
}
