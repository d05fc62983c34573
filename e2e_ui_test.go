package main

// End-to-end checks of keys a person types in a real terminal (tmux send-keys into the real
// binary): what reaches a pane's program, scroll-mode search, tabs, and closing panes.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shellRig starts tickmux with one shell pane and waits for its prompt.
func shellRig(t *testing.T) *tmuxRig {
	t.Helper()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	r.typeLine("echo shell-up-$((6*7))", "shell-up-42")
	return r
}

// Key table (README "Using tickmux"): prefix `g`, then `C-g`: no key without the prefix is taken from a pane.
func TestEndToEndCtrlGReachesTheProgram(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.keys("cat -v", "Enter")
	r.waitFor("shell:1 cat ") // cat reads the terminal now, not the shell (the pane's title says so)
	s := r.typeLine("C-g", "^G")
	if strings.Contains(s, "LOCKED") {
		t.Fatalf("a bare C-g locked tickmux:\n%s", s)
	}
}

// Key table (README "Using tickmux"): prefix `[`: scroll mode and its search.
func TestEndToEndScrollSearch(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeLine("seq -f 'line %g' 2000; echo all-$((6*7))-printed", "all-42-printed") // not as typed: the output's
	r.prefix("[", "SCROLL")
	r.keys("?")
	r.keys("-l", "line 1234")
	r.waitFor("(search up) line 1234")
	r.keys("Enter")
	// Enter copied and left scroll mode before the fix. The sentinel: the next search's query
	// shows, which it could not had Enter left scroll mode (? would go to the shell).
	r.keys("?")
	r.keys("-l", "line 12")
	s := r.waitUntil("e2e", "show the next search's query", func(s string) bool {
		return strings.Contains(s, "(search up) line 12") && !strings.Contains(s, "(search up) line 1234")
	})
	if !strings.Contains(s, "SCROLL") || strings.Contains(s, "copied") {
		t.Fatalf("Enter after the query did not search:\n%s", s)
	}
	r.keys("Enter")
	r.waitFor("line 1233")
	r.keys("n")
	r.keys("n")
	// The match is highlighted on the cursor's line; the status bar still says SCROLL.
	s = r.waitFor("line 1231")
	if !strings.Contains(s, "SCROLL") {
		t.Fatalf("n left scroll mode:\n%s", s)
	}
	// / searches down, as tmux's vi copy mode (issue 42 item 19).
	r.keys("/")
	r.keys("-l", "line 124")
	r.waitFor("(search down) line 124")
	r.keys("Enter")
	r.waitFor("line 1240")
	r.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(r.screen(), "SCROLL") {
		if time.Now().After(deadline) {
			t.Fatalf("q did not leave scroll mode:\n%s", r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A program that left a daemon holding its terminal (setsid, environment cleared) neither keeps
// its pane from closing nor tickmux from quitting.
// spec: H-X1
func TestEndToEndCloseWithADaemonLeftBehind(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	pidFile := filepath.Join(r.dir, "daemon.pid")
	r.prefix("%", "shell:2")
	r.keys("env -i setsid sleep 300 & echo $! > "+pidFile+"; echo daemon-started-$((6*7))", "Enter")
	r.waitFor("daemon-started-42")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	daemon, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(daemon, syscall.SIGKILL) })

	r.prefix("x", "close shell:2")
	r.keys("y")
	r.waitGone("e2e", "shell:2")
	r.prefix("%", "shell:3")
	r.keys("env -i setsid sleep 300 & echo $! >> "+pidFile+"; echo second-daemon-$((6*7))", "Enter")
	r.waitFor("second-daemon-42")
	b, _ = os.ReadFile(pidFile)
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
		}
	}

	// Quitting ends every pane, the one with a daemon too, and tickmux exits.
	r.quit()
	r.waitExited(5 * time.Second)
}

// quit asks tickmux to quit and confirms.
func (r *tmuxRig) quit() {
	r.t.Helper()
	r.prefix("Q", "quit tickmux")
	r.keys("y")
}

// waitExited waits until tickmux has exited (tmux's pane is dead or gone).
func (r *tmuxRig) waitExited(limit time.Duration) {
	r.t.Helper()
	start := time.Now()
	for {
		out, err := exec.Command("tmux", "-S", r.tmuxSoc, "list-panes", "-a", "-F", "#{pane_dead} #{pane_current_command}").CombinedOutput()
		if err != nil || strings.HasPrefix(string(out), "1") || !strings.Contains(string(out), filepath.Base(r.self)) {
			return
		}
		if time.Since(start) > limit {
			r.t.Fatalf("tickmux still runs %v after quitting:\n%s", limit, r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A program's OSC 52 reaches the person's clipboard (here tmux's buffers, set-clipboard on) only
// when the config says clipboard = "on".
// README "Using tickmux", Config: `clipboard`.
func TestEndToEndProgramClipboard(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		r := newTmuxRig(t)
		if on {
			os.MkdirAll(filepath.Join(r.dir, "tickmux"), 0o700)
			os.WriteFile(filepath.Join(r.dir, "tickmux", "config.toml"), []byte("clipboard = \"on\"\n"), 0o600)
		}
		r.start()
		r.tmux("set-option", "-g", "set-clipboard", "on")
		r.waitFor("shell:1")
		// "from-the-program" in base64.
		r.typeLine(`printf '\033]52;c;ZnJvbS10aGUtcHJvZ3JhbQ==\007'; echo osc-sent-$((6*7))`, "osc-sent-42")
		// The sentinel: a later frame. The OSC 52 goes out with the frame of the draw that took
		// it, which drew osc-sent-42 or came before; tmux has read it once it shows a later one.
		r.typeLine("echo later-$((7*7))", "later-49")
		// Off: nothing arrived; on: it arrives (polled: tmux's buffer is set apart from the screen).
		out, _ := exec.Command("tmux", "-S", r.tmuxSoc, "show-buffer").CombinedOutput()
		got := strings.Contains(string(out), "from-the-program")
		for deadline := time.Now().Add(20 * time.Second); on && !got && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			out, _ = exec.Command("tmux", "-S", r.tmuxSoc, "show-buffer").CombinedOutput()
			got = strings.Contains(string(out), "from-the-program")
		}
		if got != on {
			t.Fatalf("clipboard on=%v: tmux's buffer %q", on, out)
		}
		// Copy mode copies either way.
		r.typeLine("echo copy-me-$((6*7)); echo next", "copy-me-42")
		r.prefix("[", "SCROLL")
		r.keys("k", "k", "y")
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, _ = exec.Command("tmux", "-S", r.tmuxSoc, "show-buffer").CombinedOutput()
			if strings.Contains(string(out), "copy-me-42") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("copy mode did not copy (on=%v): buffer %q\n%s", on, out, r.screen())
			}
			time.Sleep(50 * time.Millisecond)
		}
		exec.Command("tmux", "-S", r.tmuxSoc, "kill-server").Run()
	}
}

// The README's CLI examples work from a pane: tickmux is found by name, an open of the bundled
// example is approved and shows, and an open of a missing program fails before any card.
func TestEndToEndCLIFromAPane(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeLine("tickmux ls && echo ls-ok-$((6*7))", "ls-ok-42")
	s := r.typeLine("tickmux open -- no-such-program-for-tickmux; echo open-failed-with-$?", "open-failed-with-1")
	if strings.Contains(s, "pending") || !strings.Contains(s, "not found") {
		t.Fatalf("the open of a missing program:\n%s", s)
	}
	r.typeLine("clear; tickmux open -- tickmux example counter && echo opened-ok", "1 pending")
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFor("opened-ok")
	r.waitFor("hosted:1")
}

// Tabs as tmux's windows, through the real key path: a new tab, moving between tabs, the list on
// the status bar; and prefix ] pasting what scroll mode copied.
// Key table (README "Using tickmux"): prefix `c` / `n` `p` / `0`…`9`, prefix `]`.
func TestEndToEndTabsAndPasteBuffer(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeLine("echo tab-zero-$((6*7))", "tab-zero-42")
	r.prefix("c", "shell:2")
	s := r.waitFor("1:")
	if strings.Contains(s, "tab-zero-42") || !strings.Contains(s, "0:") {
		t.Fatalf("the new tab:\n%s", s)
	}
	r.typeLine("echo in-tab-$((6*7))", "in-tab-42")
	r.prefix("p", "tab-zero-42")
	r.prefix("1", "in-tab-42")
	r.prefix(",", "rename tab 1")
	r.keys("C-u")
	r.keys("-l", "work")
	r.keys("Enter")
	r.waitFor("1:work*")
	// The current tab's mark, then a space before the next, as tmux's status line reads.
	r.prefix("0", "* 1:work ")
	r.prefix("1", "1:work*")

	// Copy a line in scroll mode, paste it at the prompt with prefix ].
	r.typeLine("echo copied-$((6*7))-line", "copied-42-line")
	r.prefix("[", "SCROLL")
	r.keys("k", "y")
	r.waitGone("e2e", "SCROLL")
	r.keys("C-b", "]")
	r.keys("Enter")
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(r.screen(), "copied-42-line") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("prefix ] did not paste the copied line:\n%s", r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A view whose terminal was reset while its process was stopped (its shell had the terminal) is
// drawn whole when the process continues, with its modes set again: SIGCONT is a redraw. Through
// tmux: send-keys -R resets the pane's terminal, blank and with mouse reporting off.
func TestEndToEndRedrawAfterContinue(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	r.typeLine("echo redraw-me-$((6*7))", "redraw-me-42")
	mouse := func(string) bool {
		return strings.TrimSpace(r.tmux("display", "-p", "-t", "e2e", "#{mouse_sgr_flag}#{mouse_any_flag}")) == "11"
	}
	r.waitUntil("e2e", "the view reports the mouse", mouse)
	pid := r.viewPID()
	r.tmux("send-keys", "-R", "-t", "e2e")
	r.waitGone("e2e", "redraw-me-42")
	if mouse("") {
		t.Fatal("send-keys -R left mouse reporting on: the test proves nothing")
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	r.waitFor("redraw-me-42")
	r.waitFor("shell:1")
	r.waitUntil("e2e", "mouse reporting set again", mouse)
	r.typeLine("echo still-typing-$((6*7))", "still-typing-42")
}

// Key table (README "Using tickmux"): in scroll mode `n` repeats the search in its direction and
// `N` goes the other way, without turning the search round: N N N walks on, it does not bounce
// between two matches. The cursor's line is read back by copying it (y) into tmux's buffer.
func TestEndToEndScrollSearchNAndN(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.tmux("set-option", "-g", "set-clipboard", "on")
	r.typeLine("seq -f 'line %g' 2000; echo all-$((6*7))-printed", "all-42-printed") // not as typed: the output's
	copied := func(want string) {
		t.Helper()
		r.keys("y")
		r.waitGone("e2e", "SCROLL")
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, _ := exec.Command("tmux", "-S", r.tmuxSoc, "show-buffer").CombinedOutput()
			if strings.TrimSpace(string(out)) == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cursor's line is %q, want %q\n%s", out, want, r.screen())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	search := func(keys ...string) {
		t.Helper()
		r.prefix("[", "SCROLL")
		r.keys("?")
		r.keys("-l", "line 1234")
		r.keys("Enter")
		r.keys("?")
		r.keys("-l", "line 12")
		r.waitFor("(search up) line 12")
		r.keys("Enter")
		for _, k := range keys {
			r.keys(k)
		}
	}
	// From line 1234, searching up: 1233, then n n: 1231, then N N N: 1232, 1233, 1234.
	search("n", "n", "N", "N", "N")
	copied("line 1234")
	// And n after N still goes up, the search's own direction: 1233, N 1234, n 1233, n 1232.
	search("N", "n", "n")
	copied("line 1232")
}

// README Config: only the default config path may be missing; `--config` naming a file that is
// not there stops tickmux with an error that names it, and no server is left running.
func TestEndToEndMissingConfigIsAnError(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	missing := filepath.Join(r.dir, "no-such-config.toml")
	r.tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", "e2e",
		"sh -c '"+r.self+" --config "+missing+"; echo exit-status-$?; sleep 600'")
	s := r.waitFor("exit-status-")
	if !strings.Contains(s, "exit-status-2") || !strings.Contains(s, "does not exist") || !strings.Contains(s, "no-such-config.toml") {
		t.Fatalf("a missing --config file:\n%s", s)
	}
	if _, err := os.Stat(r.socket); err == nil {
		t.Fatalf("a server runs after the missing config:\n%s", s)
	}
	// With a server running too (which has its own config), for tickmux and attach.
	r.tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", "srv", r.self)
	r.waitIn("srv", "shell:1")
	for i, cmd := range []string{"", " attach"} {
		win := fmt.Sprintf("again%d", i)
		r.tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", win,
			"sh -c '"+r.self+" --config "+missing+cmd+"; echo exit-status-$?; sleep 600'")
		s := r.waitIn(win, "exit-status-")
		if !strings.Contains(s, "exit-status-2") || !strings.Contains(s, "no-such-config.toml") {
			t.Fatalf("a missing --config file with a server running (tickmux%s):\n%s", cmd, s)
		}
	}
}

// A config the server cannot read: the server that tickmux starts reads it first and fails, and
// tickmux says what is wrong with the file and exits 2, with nothing left running.
func TestEndToEndBadConfigIsAnError(t *testing.T) {
	r := newTmuxRig(t)
	bad := filepath.Join(r.dir, "bad-config.toml")
	if err := os.WriteFile(bad, []byte("scrollback = [oops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.tmux("new-session", "-d", "-x", "160", "-y", "30", "-s", "e2e",
		"sh -c '"+r.self+" --config "+bad+"; echo exit-status-$?; sleep 600'")
	s := r.waitFor("exit-status-")
	if !strings.Contains(s, "exit-status-2") || !strings.Contains(s, "bad-config.toml") {
		t.Fatalf("a config tickmux cannot read:\n%s", s)
	}
	if _, err := os.Stat(r.socket); err == nil {
		t.Fatalf("a server runs after the bad config:\n%s", s)
	}
}

// After a detach the view says how to come back, with a command that works for the build in use:
// here a tickmux found on PATH by its name, and the hint typed as it is shows the session again.
// (A `go run` build, whose executable is in the go command's cache, is told `go run . attach`:
// TestComeBack in server.)
func TestEndToEndDetachSaysHowToComeBack(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	bin := filepath.Join(r.dir, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := copyExecutable(r.self, filepath.Join(bin, "tickmux")); err != nil {
		t.Fatal(err)
	}
	r.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", "env PATH="+bin+":"+os.Getenv("PATH")+" sh")
	r.typeLine("tickmux", "shell:1")
	r.typeLine("echo before-detach-$((6*7))", "before-detach-42")
	s := r.prefix("d", "[detached]")
	var hint string
	for _, line := range strings.Split(s, "\n") {
		if _, rest, ok := strings.Cut(line, "[detached] to come back: "); ok {
			hint = strings.TrimSpace(rest)
		}
	}
	if hint != "tickmux attach" {
		t.Fatalf("the hint after a detach is %q, want %q:\n%s", hint, "tickmux attach", s)
	}
	r.typeLine("clear; "+hint, "before-detach-42")
	r.waitFor("shell:1")
}

// A program opened at the prompt as a Tick that is not one fails its initialization: the pane and
// the panel say so, and Enter runs it again as a plain program (issue 42 item 16); the end is said
// once (the exit status not twice on the panel) and logged once.
func TestEndToEndNotATickSuggestsPlain(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	cmd := `sh -c 'echo plain-$((6*7)) >&2; sleep 1; exit 3'`
	r.prefix(":", "command:")
	r.keys("-l", cmd)
	r.keys("Enter")
	// The panel wraps the hint at a word: "... plain program: sh -c" / "'echo ... exit 3'".
	r.waitFor("not a Tick? Enter runs it again as a plain program: sh -c ")
	s := r.waitFor("'echo plain-$((6*7)) >&2; sleep 1; exit 3'")
	if strings.Contains(s, "(exit status 3) (exit status 3)") || strings.Contains(s, "(exit status 3) (exit") {
		t.Fatalf("the exit status is said twice:\n%s", s)
	}
	r.waitFor("(exit status 3)")
	if n := strings.Count(r.log(), "hosted:1 ended"); n != 1 {
		t.Fatalf("the end was logged %d times:\n%s", n, r.log())
	}
	r.keys("Enter")
	r.waitFor("shell:2")
	r.waitGone("e2e", "hosted:1 ") // the border; the status line may still say how it ended
	r.waitFor("plain-42")
	r.waitFor("ended: the program exited (exit status 3)")
}

// tickmux -- top runs top as a Tick, which it is not: the pane says so and Enter runs top as a
// plain program, in the same place; tickmux --plain -- CMD runs CMD as a plain program from the
// start, as tmux new CMD does, and on a running tickmux says where to open it instead (issue 42
// item 16).
func TestEndToEndTopIsNoTick(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("top"); err != nil {
		t.Skip("no top on this machine")
	}
	r := newTmuxRig(t)
	r.start("--", "top")
	r.waitFor("not a Tick? Enter runs it again as a plain program: top")
	if s := r.screen(); strings.Contains(s, "load average") {
		t.Fatalf("top ran as a plain program before the key:\n%s", s)
	}
	r.keys("Enter")
	r.waitFor("shell:1 top")
	r.waitFor("load average")
	r.waitGone("e2e", "hosted:1 ") // the border; the status line may still say how it ended
}

// A program that never answers tick/describe (its "hello" has no line end) fails its
// initialization when the 10 s are up, and Enter runs it as a plain program: hello shows.
func TestEndToEndSilentProgramIsNoTick(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("--", "sh", "-c", "'printf hello-$((6*7)); sleep 100'")
	r.waitFor("hosted:1")
	r.waitFor("not a Tick? Enter runs it again as a plain program: sh -c 'printf hello-$((6*7)); sleep 100'")
	if s := r.screen(); strings.Contains(s, "hello-42") {
		t.Fatalf("ran as a plain program before the key:\n%s", s)
	}
	r.keys("Enter")
	r.waitFor("shell:1")
	r.waitFor("hello-42")
}

func TestEndToEndPlainFlag(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("--plain", "--", "sh", "-c", "'printf hello-$((6*7)); sleep 100'")
	s := r.waitFor("hello-42")
	if !strings.Contains(s, "shell:1") || strings.Contains(s, "hosted:") || strings.Contains(s, "not a Tick") {
		t.Fatalf("--plain did not open a plain program:\n%s", s)
	}
	// With a tickmux running, --plain -- CMD opens CMD there as a plain program and attaches.
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "second", r.self+" --plain -- sh -c 'printf second-$((6*7)); sleep 100'")
	s = r.waitIn("second", "second-42")
	if !strings.Contains(s, "shell:2") || strings.Contains(s, "hosted:") || strings.Contains(s, "not a Tick") {
		t.Fatalf("--plain on a running tickmux did not open a plain program:\n%s", s)
	}
}

// The mouse wheel scrolls a shell back, and the pane's badge says how far ([N/M]), as scroll
// mode's does. Key table (README "Using tickmux"): the mouse wheel scrolls too.
func TestEndToEndWheelShowsTheScrollBadge(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	// The marker is not in the command line as typed: the wheel must come once the output is
	// in, or it finds no scrollback to scroll (it did, now and then, under load).
	r.typeLine("seq -f 'wheel %g' 300; echo all-$((6*7))-printed", "all-42-printed")
	r.waitUntil("e2e", "the mouse reported", func(string) bool {
		return strings.TrimSpace(r.tmux("display", "-p", "-t", "e2e", "#{mouse_sgr_flag}#{mouse_any_flag}")) == "11"
	})
	for i := 1; i <= 4; i++ {
		r.keys("-l", "\x1b[<64;20;20M")
		badge := fmt.Sprintf("[%d/", 3*i)
		r.waitUntil("e2e", "show the scroll badge "+badge, func(s string) bool { return strings.Contains(s, badge) })
	}
	// A second pane; the wheel over the first, unfocused, scrolls it and shows its badge.
	r.prefix("%", "shell:2")
	r.keys("-l", "\x1b[<64;20;20M")
	r.waitUntil("e2e", "show the scroll badge [15/", func(s string) bool { return strings.Contains(s, "[15/") })
}

// copiedIs waits until tmux's buffer (set-clipboard on) holds want: what scroll mode copied.
func (r *tmuxRig) copiedIs(want string) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("tmux", "-S", r.tmuxSoc, "show-buffer").CombinedOutput()
		if string(out) == want {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("copied %q, want %q\n%s", out, want, r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Key table (README "Using tickmux"): scroll mode's tmux copy-mode-vi motions `0 $ w b e H M L
// C-u C-d` and `V` line selection, each read back by what `y` copies.
func TestEndToEndScrollMotions(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.tmux("set-option", "-g", "set-clipboard", "on")
	r.typeLine("clear; printf 'alpha beta gamma\\nsecond line here\\n'; echo motions-$((6*7))", "motions-42")
	scroll := func(keys ...string) {
		t.Helper()
		r.prefix("[", "SCROLL")
		r.keys(keys...)
		r.keys("y")
		r.waitGone("e2e", "SCROLL")
	}
	// The cursor starts on the prompt; three lines up is "alpha beta gamma".
	scroll("k", "k", "k", "0", "w", "v", "e")
	r.copiedIs("beta")
	scroll("k", "k", "k", "$", "v", "b")
	r.copiedIs("gamma")
	scroll("k", "k", "k", "0", "e", "e", "e", "v", "0")
	r.copiedIs("alpha beta gamma")
	scroll("k", "k", "k", "V", "j")
	r.copiedIs("alpha beta gamma\nsecond line here")
	scroll("H", "j") // clear left the printed lines at the top
	r.copiedIs("second line here")

	// H M L and half pages on a full screen: the pane has 47 rows, the last one the prompt.
	r.typeLine("seq 1001 1300; echo end-$((6*7))", "end-42")
	scroll("H")
	r.copiedIs("1256") // rows 0…44: 1256…1300, then end-42 and the prompt
	scroll("M")
	r.copiedIs("1279")
	scroll("L", "k", "k")
	r.copiedIs("1300")
	scroll("H", "C-u") // half of 47 rows
	r.copiedIs("1233")
	scroll("H", "C-u", "C-d")
	r.copiedIs("1256")
}

// A zoomed pane says so on its border and on the status bar (tmux's Z flag), also in the tab
// list. Key table (README "Using tickmux"): prefix `z`.
func TestEndToEndZoomIndicator(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.prefix("%", "shell:2")
	s := r.prefix("z", "Z zoomed")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if bar := lines[len(lines)-1]; !strings.Contains(bar, "sh Z") {
		t.Fatalf("the status bar does not flag the zoomed pane: %q", bar)
	}
	r.prefix("c", "shell:3")
	r.prefix("0", "*Z 1:")
	r.prefix("z", "0:")
	r.waitGone("e2e", "Z zoomed")
	r.waitGone("e2e", "*Z")
}

// titlesOnTop counts the pane titles on the screen's first row: how many panes share the top.
func titlesOnTop(s string) int { return strings.Count(strings.SplitN(s, "\n", 2)[0], "shell:") }

// tmux's layouts, break-pane, choose-tree and kill-window keys, through the real key path.
// Key table (README "Using tickmux"): prefix `Space`, `M-1`…`M-5`, `!`, `w`, `&`, `F`.
func TestEndToEndLayoutsBreakTreeKill(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.prefix("%", "shell:2")
	r.prefix("\"", "shell:3")
	top := func(want int, what string) {
		t.Helper()
		r.waitUntil("e2e", fmt.Sprintf("show %d panes along the top (%s)", want, what), func(s string) bool { return titlesOnTop(s) == want })
	}
	r.prefix("M-1", "layout: even-horizontal")
	top(3, "even-horizontal")
	r.prefix("M-2", "layout: even-vertical")
	top(1, "even-vertical")
	r.prefix("M-3", "layout: main-horizontal")
	top(1, "main-horizontal")
	r.prefix("M-4", "layout: main-vertical")
	top(2, "main-vertical")
	r.prefix("Space", "layout: tiled") // the one after main-vertical
	top(2, "tiled")
	r.prefix("Space", "layout: even-horizontal")
	top(3, "even-horizontal again")

	// Break the focused pane (shell:3) into a tab of its own: two tabs, it alone in the second.
	r.prefix("!", "1:sh*")
	top(1, "shell:3 alone")
	// Choose shell:1 in tab 0 from the tree.
	s := r.prefix("w", "choose a tab or a pane")
	if !strings.Contains(s, "(0) 0:") || !strings.Contains(s, "(1) 1:") || !strings.Contains(s, "shell:3 sh (focused)") {
		t.Fatalf("the tree:\n%s", s)
	}
	r.keys("Up", "Up", "Up") // from shell:3 to tab 1, shell:2, shell:1
	r.keys("Enter")
	r.waitGone("e2e", "choose a tab or a pane")
	r.waitFor("0:sh*")
	r.typeLine("echo in-shell-$((6*7))", "in-shell-42")
	if s := r.screen(); titlesOnTop(s) != 2 {
		t.Fatalf("not back in tab 0:\n%s", s)
	}
	// Kill tab 0 (two shells) after the question: tab 1 is left, with shell:3.
	r.prefix("&", "kill tab 0")
	r.keys("y")
	r.waitGone("e2e", "shell:1")
	r.waitGone("e2e", "shell:2")
	r.waitFor("shell:3")
	if out := r.tmux("list-panes", "-t", "e2e", "-F", "#{pane_dead}"); strings.TrimSpace(out) != "0" {
		t.Fatalf("tickmux ended with the tab: %q", out)
	}
}

// A shell's pane is named after the command in its foreground, as tmux's automatic-rename names
// windows (sh, then sleep while it runs), and a title the program sets (OSC 2) wins.
func TestEndToEndPaneTitles(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.waitFor("shell:1 sh ")
	r.keys("sleep 30", "Enter")
	r.waitFor("shell:1 sleep ")
	r.keys("C-c")
	r.waitFor("shell:1 sh ")
	r.typeLine(`printf '\033]2;my-title-%s\007' 42; echo set-$((6*7))`, "set-42")
	r.waitFor("shell:1 my-title-42")
}

// spec: issue 29 (quiet key echo). Typed one key a read, as a person types, a line reaches the
// shell whole and in order, most of it through a typing lane (the server's log counts what went
// through one); a prefix read after them closes the lane, so the key after it acts as the
// prefix's (a split), not as text for the shell.
func TestEndToEndTypingTakesTheLane(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeSlowly("echo lane-$((6*7))-typed-one-key-a-read", "lane-42-typed-one-key-a-read")
	r.typeSlowly("echo again-$((6*7))", "again-42")
	r.keys("C-b")
	r.keys("-l", "%")
	r.waitFor("shell:2")
	r.typeSlowly("echo second-$((6*7))", "second-42")
	if s := r.screen(); strings.Contains(s, "%echo") {
		t.Fatalf("the key after the prefix went to the shell:\n%s", s)
	}
	r.killServer()
	m := regexp.MustCompile(`(\d+) keys typed through a lane`).FindStringSubmatch(r.log())
	if m == nil {
		t.Fatalf("the server did not log its lanes:\n%s", r.log())
	}
	n, _ := strconv.Atoi(m[1])
	t.Logf("%d keys typed through a lane", n)
	if n == 0 {
		t.Fatalf("no key typed one a read went through a lane:\n%s", r.log())
	}
}

// prefix & on the only tab and prefix x on the last pane end tickmux, and their questions say so
// (issue 42 item 13); n keeps it running, y ends it.
func TestEndToEndLastPaneQuestionSaysTickmuxEnds(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.prefix("&", "kill the last tab (sh) and end tickmux? (y/n)")
	r.keys("n")
	r.waitGone("e2e", "end tickmux?")
	r.typeLine("echo still-here-$((6*7))", "still-here-42")
	r.prefix("x", "close the last pane (shell:1) and end tickmux? (y/n)")
	r.keys("y")
	r.waitExited(10 * time.Second)
}

// `exit` in a shell closes its pane, as tmux does (issue 42 item 15); `exit 3` leaves the pane
// ended with its status, for the reason to be read; `exit` in the last shell ends tickmux, as
// tmux ends a session with its last pane.
func TestEndToEndExitClosesTheShellsPane(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.prefix("%", "shell:2")
	r.typeLine("echo in-two-$((6*7))", "in-two-42")
	r.keys("exit", "Enter")
	r.waitGone("e2e", "shell:2")
	r.typeLine("echo back-in-one-$((6*7))", "back-in-one-42") // the focus went back to shell:1
	r.prefix("%", "shell:3")
	r.typeLine("echo in-three-$((6*7))", "in-three-42")
	r.keys("exit 3", "Enter")
	r.waitFor("ended: the program exited (exit status 3)")
	if s := r.screen(); !strings.Contains(s, "shell:3") || !strings.Contains(s, "shell:1") {
		t.Fatalf("the failed shell's pane closed:\n%s", s)
	}
	r.prefix("x", "")
	r.waitGone("e2e", "shell:3")
	r.keys("exit", "Enter")
	r.waitExited(10 * time.Second)
}

// The status bar keeps up (issue 42 item 8): C-g just after prefix g leaves LOCKED at once; a
// layout message goes though a key asked for a tick meanwhile; a title a program sets shows on
// the bar in the frame that shows it on the border; and the bar lists the shown tab's panes.
func TestEndToEndStatusBarKeepsUp(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.keys("C-b", "g", "C-g")
	r.typeLine("echo unlocked-$((6*7))", "unlocked-42")
	if l := lastLine(r.screen()); strings.Contains(l, "LOCKED") || strings.Contains(l, "locked") {
		t.Fatalf("the status bar says locked after C-g:\n%s", l)
	}

	r.prefix("%", "shell:2")
	r.prefix("Space", "layout: ")
	r.typeLine("echo after-layout-$((6*7))", "after-layout-42") // Enter asks for the titles' ticks
	r.waitGone("e2e", "layout: ")

	// A title set on a key that is not Enter: the border and the bar in the same frame.
	r.typeLine(`sh -c 'stty raw -echo; echo waiting-$((6*7)); dd bs=1 count=1 2>/dev/null; printf "\033]2;vim-like\007"; exec cat'`, "waiting-42")
	r.keys("x")
	s := r.waitFor("shell:2 vim-like")
	if l := lastLine(s); !strings.Contains(l, "shell:2 vim-like") {
		t.Fatalf("the border says vim-like, the status bar not:\n%s", s)
	}

	r.prefix("c", "1:")
	r.waitFor("shell:3")
	r.waitUntil("e2e", "list only tab 1's pane on the status bar", func(s string) bool {
		l := lastLine(s)
		return strings.Contains(l, "shell:3") && !strings.Contains(l, "shell:1") && !strings.Contains(l, "shell:2")
	})
}

// lastLine is the screen's last non-empty row: the status bar.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n ")
	return s[strings.LastIndex(s, "\n")+1:]
}

// At 80x24 the demo's first card is answered without paging, and what was cut is whole (issue 42
// item 7): the Counter's border keeps its approval badge, y allows the card at once (the panel
// gives a focused card all its rows), and at 200 columns the : prompt's hint ends "Esc cancel".
func TestEndToEndDemoCardAt80x24(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "e2e", r.self+" demo")
	r.waitFor("hosted:5 Jobs")
	// tmux's shared borders at 80x24 (issue 42 item 21): no pane boxes, the titles on the lines
	// between panes; the Log and Jobs panes show more than their footers. (Each Tick's title
	// shows once it is ready.)
	s := r.waitUntil("e2e", "show the Counter's title first", func(s string) bool { return strings.HasPrefix(s, "─ hosted:1 Counter") })
	if strings.ContainsAny(s, "┏┌┗└") {
		t.Errorf("the demo at 80x24 draws boxes:\n%s", s)
	}
	call := r.startCall("hosted:1", "increment", `{"amount":2}`)
	r.waitFor("hosted:1 Counter  ⚑ approval ")
	r.keys("C-b", "a")
	s = r.waitFor("y allow once")
	if strings.Contains(s, "more than the panel shows") {
		t.Fatalf("the demo's first card does not fit at 80x24:\n%s", s)
	}
	r.keys("y")
	if out := call.returned(t); !strings.Contains(out, `"value": 2`) {
		t.Fatalf("the call: %s", out)
	}

	r.tmux("resize-window", "-t", "e2e", "-x", "200", "-y", "50")
	r.waitUntil("e2e", "be 200 columns wide", func(s string) bool {
		return strings.Contains(s, "agent panel") && len([]rune(strings.SplitN(s, "\n", 2)[0])) >= 190
	})
	r.prefix(":", "command:")
	r.waitFor("S-Tab field · Esc cancel")
}

// remain_on_exit = "on" in the config keeps a shell's pane after exit, ended with its status.
func TestEndToEndRemainOnExitKeepsThePane(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	if err := os.MkdirAll(filepath.Join(r.dir, "tickmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "tickmux", "config.toml"), []byte("remain_on_exit = \"on\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.start()
	r.waitFor("shell:1")
	r.typeLine("echo shell-up-$((6*7))", "shell-up-42")
	r.keys("exit", "Enter")
	r.waitFor("ended: the program exited (exit status 0)")
	r.waitFor("shell:1")
}
