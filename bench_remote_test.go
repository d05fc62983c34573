package main

// Issue 40's benchmarks (numbers for docs/performance.md, no thresholds): a pane of another host
// shown in the local tickmux against `ssh -tt HOST tmux attach` to a tmux on that same host,
// both reached through one real sshd on loopback (internal/sshtest) and both driven the same way,
// through an outer tmux: send-keys in, capture-pane out.
//
//	TICKMUX_BENCH_REMOTE=1 go test -count=1 -run TestBenchRemotePanes -v .
//
// (a) key echo: a letter typed at the remote shell's prompt, from send-keys to the first
// capture-pane that shows it; the median of 30 a round, three rounds alternating tickmux and
// tmux, and of the 90. A key that shows no echo within 3 s is said (LOST KEY), counted and not
// timed; BENCH_DEBUG=1 adds both hosts' screens and logs then.
// (b) the bytes the local ssh client read (/proc/PID/io rchar: the encrypted stream from the
// host, and what it was given to send) while `yes` ran 10 s in the remote shell, two rounds.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tickmux/internal/sshtest"
)

func TestBenchRemotePanes(t *testing.T) {
	if os.Getenv("TICKMUX_BENCH_REMOTE") != "1" {
		t.Skip("a benchmark: TICKMUX_BENCH_REMOTE=1 runs it")
	}
	r := newTmuxRig(t)
	box := sshtest.Start(t, sshtest.Options{Alias: "box", Env: map[string]string{envAsMain: "1", "GORACE": "atexit_sleep_ms=0",
		"SHELL": "/bin/sh", "PS1": "$ "}})
	boxSSH := func(command string) {
		t.Helper()
		cmd := exec.Command("ssh", append(box.SSHArgs(), "-T", box.Dest(), command)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ssh box %s: %v\n%s", command, err, out)
		}
	}

	// On box: its tickmux server with a shell, and a tmux server with a shell.
	logFile := filepath.Join(box.Dir, "server.out")
	boxSSH(fmt.Sprintf("setsid %s server --plain -- /bin/sh </dev/null >%s 2>&1 &", r.self, logFile))
	tmuxSock := filepath.Join(box.Dir, "tmux.sock")
	boxSSH(fmt.Sprintf("tmux -f /dev/null -S %s new-session -d -x 200 -y 48 /bin/sh", tmuxSock))
	t.Cleanup(func() { exec.Command("tmux", "-S", tmuxSock, "kill-server").Run() })
	remoteCLI := func(args ...string) string {
		cmd := exec.Command(r.self, args...)
		cmd.Env = append(os.Environ(), envAsMain+"=1", "TICKMUX_SOCKET="+box.Env["TICKMUX_SOCKET"], "XDG_STATE_HOME="+box.Env["XDG_STATE_HOME"],
			"XDG_CONFIG_HOME="+box.Env["XDG_CONFIG_HOME"], "HOME="+box.Env["HOME"])
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(remoteCLI("ls"), "shell:1"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logFile)
			t.Fatalf("the server on box never listed its shell: %s", b)
		}
	}
	t.Cleanup(func() { remoteCLI("kill-server") })

	// Here: tickmux with box in its [[hosts]], showing box's shell (the side panel hidden, so
	// that the pane is about as large as tmux's); and ssh -tt box tmux attach in another session.
	cfg := fmt.Sprintf("[[hosts]]\nname = \"box\"\nssh = %q\nssh_args = [%q, %q]\ntickmux = %q\n",
		box.Dest(), box.SSHArgs()[0], box.SSHArgs()[1], r.self)
	if err := os.MkdirAll(filepath.Join(r.dir, "tickmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "tickmux", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r.start()
	r.waitFor("shell:1")
	r.waitFor("box:")
	r.keys("C-b", "1")
	r.waitFor("box:shell:1")
	r.keys("C-b", "t")
	const tmuxSession = "ssh"
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", tmuxSession,
		fmt.Sprintf("ssh -tt %s %s %s tmux -S %s attach", box.SSHArgs()[0], box.SSHArgs()[1], box.Dest(), tmuxSock))
	sizes := map[string]string{}
	for _, s := range []string{"e2e", tmuxSession} {
		r.keysTo(s, "clear; stty size", "Enter")
		out := r.waitUntil(s, "show stty's size", func(text string) bool {
			return regexp.MustCompile(`(?m)^[│┃ ]*\d+ \d+\s`).MatchString(text)
		})
		m := regexp.MustCompile(`(?m)^[│┃ ]*(\d+) (\d+)\s`).FindStringSubmatch(out)
		sizes[s] = m[2] + "x" + m[1]
	}
	t.Logf("the remote shell's size: %s in tickmux, %s in tmux", sizes["e2e"], sizes[tmuxSession])

	if os.Getenv("BENCH_DEBUG") == "1" {
		benchOnFail = func() string {
			b, _ := os.ReadFile(logFile)
			return "remote:\n" + remoteCLI("screen", "shell:1") + "\nlocal log:\n" + r.log() + "\nbox's log:\n" + string(b)
		}
	}
	// (a) key echo, rounds alternating.
	floor := r.captureFloor(20)
	var mux, tm []time.Duration
	for round := range 3 {
		a := r.echoIn("e2e", 30)
		b := r.echoIn(tmuxSession, 30)
		t.Logf("round %d: key echo, median (p90) of 30: tickmux %v (%v), ssh+tmux %v (%v)", round+1,
			median(a).Round(10*time.Microsecond), p90(a).Round(10*time.Microsecond), median(b).Round(10*time.Microsecond), p90(b).Round(10*time.Microsecond))
		mux, tm = append(mux, a...), append(tm, b...)
	}
	t.Logf("key echo over loopback ssh, median of %d keys (one capture-pane alone: %v): tickmux %v, ssh -tt box tmux attach %v: ratio (tmux/tickmux) %.2f",
		len(mux), floor.Round(10*time.Microsecond), median(mux).Round(10*time.Microsecond), median(tm).Round(10*time.Microsecond),
		float64(median(tm))/float64(median(mux)))

	t.Logf("keys lost (no echo within 3 s, typed again, not timed): tickmux %d, ssh+tmux %d", benchLost["e2e"], benchLost[tmuxSession])

	// (b) yes for 10 s in each: the bytes the local ssh read.
	tmuxSSH := func() int64 {
		pid, err := strconv.Atoi(strings.TrimSpace(r.tmux("display-message", "-p", "-t", tmuxSession, "#{pane_pid}")))
		if err != nil {
			t.Fatal(err)
		}
		return rchar(t, sshUnder(t, pid))
	}
	flood := func(session string, read func() int64) int64 {
		r.keysTo(session, "clear; yes", "Enter")
		r.waitUntil(session, "show yes running", func(s string) bool {
			return regexp.MustCompile(`(?m)^[│┃ ]*y\s*[│┃]?\n[│┃ ]*y\s`).MatchString(s)
		})
		r0 := read()
		time.Sleep(10 * time.Second)
		r1 := read()
		r.keysTo(session, "C-c")
		r.keysTo(session, "clear; echo done-$((6*7))", "Enter")
		r.waitIn(session, "done-42")
		return r1 - r0
	}
	for round := range 2 {
		a := flood("e2e", func() int64 {
			_, read := linkBytes(t, r, box)
			if read < 0 {
				t.Fatal("the link's ssh was not found")
			}
			return read
		})
		b := flood(tmuxSession, tmuxSSH)
		t.Logf("round %d: yes for 10 s, bytes the local ssh read: tickmux %d (%.0f/s), ssh+tmux %d (%.0f/s): ratio (tmux/tickmux) %.2f",
			round+1, a, float64(a)/10, b, float64(b)/10, float64(b)/float64(a))
	}
}

// echoIn types n letters at the shell prompt ("$ " or "# ") of session's pane, one at a time, each timed
// from send-keys to the first capture-pane that shows it, then erases them (C-u).
func (r *tmuxRig) echoIn(session string, n int) []time.Duration {
	r.t.Helper()
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	r.keysTo(session, "clear", "Enter")
	prompt := "$ "
	r.waitUntil(session, "clear", func(s string) bool {
		if strings.Contains(s, "clear") {
			return false
		}
		// A prompt alone on its line (capture-pane drops the spaces that end a line); root's sh
		// ignores PS1 from the environment.
		m := regexp.MustCompile(`(?m)^[│┃]?([$#])\s*[│┃]?$`).FindStringSubmatch(s)
		if m != nil {
			prompt = m[1] + " "
		}
		return m != nil
	})
	var times []time.Duration
	typed := ""
	for i := 0; len(times) < n; i++ {
		ch := string(letters[i%len(letters)])
		want := prompt + typed + ch
		start := time.Now()
		r.keysTo(session, ch)
		lost := false
		for !lost && !strings.Contains(r.screenOf(session), want) {
			if time.Since(start) > 3*time.Second {
				// Lost (or very late): said, not timed; the line is erased and typing goes on.
				lost = true
				extra := ""
				if benchOnFail != nil {
					extra = benchOnFail()
				}
				r.t.Logf("%s: LOST KEY: %q typed after %q did not echo within 3 s:\n%s\n%s", session, ch, typed, r.screenOf(session), extra)
				benchLost[session]++
			}
		}
		if lost {
			r.keysTo(session, "C-u")
			time.Sleep(time.Second)
			if typed != "" {
				r.waitGone(session, prompt+typed)
			}
			typed = ""
			continue
		}
		times = append(times, time.Since(start))
		typed += ch
	}
	r.keysTo(session, "C-u")
	r.waitGone(session, prompt+typed)
	return times
}

func p90(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*9/10]
}

// rchar is what process pid has read (/proc/PID/io).
func rchar(t *testing.T, pid int) int64 {
	t.Helper()
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(io), "\n") {
		var n int64
		if _, err := fmt.Sscanf(l, "rchar: %d", &n); err == nil {
			return n
		}
	}
	t.Fatalf("no rchar in /proc/%d/io", pid)
	return 0
}

// benchOnFail, when set, says more when an echo never shows (BENCH_DEBUG=1); benchLost counts
// the keys that did not echo within 3 s, by session.
var (
	benchOnFail func() string
	benchLost   = map[string]int{}
)

// sshUnder is pid when it is ssh, else its ssh child (tmux runs a pane's command with sh -c).
func sshUnder(t *testing.T, pid int) int {
	t.Helper()
	for range 3 {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) == "ssh" {
			return pid
		}
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		f := strings.Fields(string(children))
		if len(f) != 1 {
			break
		}
		pid, _ = strconv.Atoi(f[0])
	}
	t.Fatalf("no ssh under the tmux pane's process")
	return 0
}
