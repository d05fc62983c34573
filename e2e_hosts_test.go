package main

// Issue 40's "Done when", end to end: "many machines, one view, one queue". Each "machine" is a
// real OpenSSH server on loopback (internal/sshtest) with its own HOME, XDG directories and
// socket, running its own tickmux server; the person's tickmux runs in tmux (tmuxRig) with
// [[hosts]] for them, and reaches them as it would reach other machines: the real ssh client,
// the real `tickmux proxy` there.

import (
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

	"tickmux/agent"
	"tickmux/host/journal"
	"tickmux/internal/remotewire"
	"tickmux/internal/sshtest"
)

// tickmuxHost is a fake machine (an sshtest.Host) with its own tickmux server, started through
// ssh as the person would start it there; this test binary plays tickmux on it (envAsMain in
// every session).
type tickmuxHost struct {
	t    *testing.T
	name string
	ssh  *sshtest.Host
	self string
	// env runs a CLI verb on this host from outside its panes, as an agent there would: its
	// socket, state and config. Not the host's sshtest mark: what the test runs there is the
	// test's to end, and Freeze leaves it running (an agent's call waits on the server's socket).
	env []string
}

func startTickmuxHost(t *testing.T, name string, delay time.Duration) *tickmuxHost {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := sshtest.Start(t, sshtest.Options{Alias: name, Delay: delay,
		Env: map[string]string{envAsMain: "1", "GORACE": "atexit_sleep_ms=0"}})
	th := &tickmuxHost{t: t, name: name, ssh: h, self: self}
	th.env = append(os.Environ(), envAsMain+"=1", "GORACE=atexit_sleep_ms=0")
	for _, k := range []string{"HOME", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "TICKMUX_SOCKET"} {
		th.env = append(th.env, k+"="+h.Env[k])
	}
	// Panes opened from the CLI run unsandboxed there: the pane below must reach the server's
	// own control socket (the one a proxy is refused on).
	cfgDir := filepath.Join(h.Env["XDG_CONFIG_HOME"], "tickmux")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("sandbox = \"off\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The server, started over ssh (around the relay: this is set-up, not what is measured).
	start := exec.Command("ssh", append(h.SSHArgs(), "-o", "ProxyCommand=none", "-T", h.Dest(),
		fmt.Sprintf("setsid %s server -- %[1]s example counter </dev/null >%s 2>&1 &", self, filepath.Join(h.Dir, "server.out")))...)
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("starting the server on %s: %v\n%s", name, err, out)
	}
	return th
}

// verb runs a CLI verb on the host and returns its output.
func (th *tickmuxHost) verb(args ...string) (string, error) {
	cmd := exec.Command(th.self, args...)
	cmd.Env = th.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// counter waits for the host's counter Tick to be ready and returns its id there.
func (th *tickmuxHost) counter() string {
	th.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := th.verb("ls", "--json")
		var ls agent.ListResult
		if err == nil && json.Unmarshal([]byte(out), &ls) == nil {
			for _, tk := range ls.Ticks {
				if tk.Kind == "example.counter" && tk.Status == "ready" {
					return tk.ID
				}
			}
		}
		if time.Now().After(deadline) {
			th.t.Fatalf("the counter on %s is not ready after 30 s: %v %s\nits log:\n%s", th.name, err, out, th.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serverPID is the host's tickmux server process.
func (th *tickmuxHost) serverPID() int {
	th.t.Helper()
	mark := []byte(sshtest.Mark + "=" + th.ssh.Dir + "\x00")
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[1] == "server" && strings.Contains(string(append(env, 0)), string(mark)) {
			pids = append(pids, pid)
		}
	}
	if len(pids) != 1 {
		th.t.Fatalf("the tickmux server on %s: processes %v", th.name, pids)
	}
	return pids[0]
}

func (th *tickmuxHost) log() string {
	b, _ := os.ReadFile(filepath.Join(th.ssh.Env["XDG_STATE_HOME"], "tickmux", "tickmux.log"))
	return string(b)
}

// entries is the host's journal (tickmux log --json there).
func (th *tickmuxHost) entries() []journal.Entry {
	th.t.Helper()
	out, err := th.verb("log", "--json")
	if err != nil {
		th.t.Fatalf("tickmux log --json on %s: %v\n%s", th.name, err, out)
	}
	var es []journal.Entry
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e journal.Entry
		if line != "" && json.Unmarshal([]byte(line), &e) == nil {
			es = append(es, e)
		}
	}
	return es
}

// hostEntry is the [[hosts]] table that reaches th from the person's tickmux.
func (th *tickmuxHost) hostEntry() string {
	args := th.ssh.SSHArgs()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	return fmt.Sprintf("[[hosts]]\nname = %q\nssh = %q\nssh_args = [%s]\ntickmux = %q\nsocket = %q\n\n",
		th.name, th.ssh.Dest(), strings.Join(quoted, ", "), th.self, th.ssh.Env["TICKMUX_SOCKET"])
}

// echoTimes types n letters at the prompt of the focused shell pane, one at a time, each timed
// from tmux's send-keys to the first capture-pane that shows it, then erases them (C-u). first
// is the first letter: each round types its own, so that no earlier line matches.
func (r *tmuxRig) echoTimes(first rune, n int) []time.Duration {
	r.t.Helper()
	var times []time.Duration
	typed := ""
	for i := range n {
		ch := string(first + rune(i))
		want := "$ " + typed + ch
		start := time.Now()
		r.keys(ch)
		for !strings.Contains(r.screen(), want) {
			if time.Since(start) > 20*time.Second {
				r.t.Fatalf("the shell did not echo %q within 20 s:\n%s\nlog:\n%s", ch, r.screen(), r.log())
			}
		}
		times = append(times, time.Since(start))
		typed += ch
	}
	r.keys("C-u")
	r.waitGone("e2e", "$ "+typed)
	return times
}

// captureFloor is the median time of one capture-pane alone: the floor under echoTimes.
func (r *tmuxRig) captureFloor(n int) time.Duration {
	var times []time.Duration
	for range n {
		start := time.Now()
		r.screen()
		times = append(times, time.Since(start))
	}
	return median(times)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// logTime is the time of the first line of the rig's server log that contains text, after
// since (zero time and false when there is none).
func (r *tmuxRig) logTime(text string, since time.Time) (time.Time, bool) {
	for _, line := range strings.Split(r.log(), "\n") {
		if !strings.Contains(line, text) || len(line) < 26 {
			continue
		}
		at, err := time.ParseInLocation("2006/01/02 15:04:05.000000", line[:26], time.Local)
		if err == nil && !at.Before(since.Truncate(time.Microsecond)) {
			return at, true
		}
	}
	return time.Time{}, false
}

// waitLogLine waits until the rig's server log has a line with text after since.
func (r *tmuxRig) waitLogLine(text string, since time.Time) time.Time {
	r.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if at, ok := r.logTime(text, since); ok {
			return at
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the log has no %q after %s:\n%s", text, since.Format("15:04:05.000"), r.log())
		}
	}
}

// The "Done when", end to end, with real OpenSSH on loopback: hosts b and c, each an sshd
// with its own tickmux server, c behind a relay that holds every byte 375 ms each way; the
// person's tickmux in tmux with [[hosts]] for both.
//
//   - b's cards (an open, an agent's call) show in the local side panel ON HOST b; C-b a then y
//     there answers them on b: the open opens, the call returns, and b's journal names the local
//     view, "view 1 ... on HOST via ssh from 127.0.0.1". `tickmux proxy` in a pane on b is refused
//     and answers nothing. `tickmux ls` here lists what runs on b and c.
//   - b hangs (its sshd and every process of its sessions stopped, its server too): its card says
//     it cannot be answered, the status line says b is unreachable; meanwhile a card on c is
//     answered through c's slow link, and a key typed in a local shell echoes (the medians before
//     and during the hang are logged, not judged).
//   - b thaws: its card is answerable again, without restarting anything, and is answered.
//   - b's server is killed: b is unreachable with the reason; c's card is answered all the same.
func TestEndToEndHostsOneQueue(t *testing.T) {
	t.Parallel()
	const delay = 375 * time.Millisecond
	b := startTickmuxHost(t, "b", 0)
	c := startTickmuxHost(t, "c", delay)
	r := newTmuxRig(t)
	if err := os.MkdirAll(filepath.Join(r.dir, "tickmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "tickmux", "config.toml"), []byte(b.hostEntry()+c.hostEntry()), 0o600); err != nil {
		t.Fatal(err)
	}
	bCounter, cCounter := b.counter(), c.counter()
	t0 := time.Now()
	r.start()
	r.waitFor("$ ")
	upB := r.waitLogLine("remote: b up", t0)
	upC := r.waitLogLine("remote: c up", t0)
	t.Logf("hosts up: b %v, c (375 ms each way) %v after the local tickmux started", upB.Sub(t0).Round(time.Millisecond), upC.Sub(t0).Round(time.Millisecond))

	// An open on b (an agent opening a shell there): its card here, ON HOST b; y opens it there.
	goFile, rcFile, outFile, errFile := filepath.Join(b.ssh.Dir, "go"), filepath.Join(b.ssh.Dir, "rc"), filepath.Join(b.ssh.Dir, "pane.out"), filepath.Join(b.ssh.Dir, "pane.err")
	inFile, script := filepath.Join(b.ssh.Dir, "pane.in"), filepath.Join(b.ssh.Dir, "pane.sh")
	lines := append(requestLine(1, remotewire.MethodHello, remotewire.HelloParams{Version: remotewire.Version, Features: []string{remotewire.FeatureCards}}),
		requestLine(2, remotewire.MethodCards, struct{}{})...)
	if err := os.WriteFile(inFile, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, fmt.Appendf(nil, "until [ -e %s ]; do sleep 0.05; done\n%s proxy < %s > %s 2> %s\necho $? > %s.tmp; mv %[6]s.tmp %[6]s\nsleep 600\n",
		goFile, b.self, inFile, outFile, errFile, rcFile), 0o600); err != nil {
		t.Fatal(err)
	}
	open := startVerb(t, b.env, "open", "--shell", "--", "/bin/sh", script)
	r.waitUntil("e2e", "show b's open card", func(s string) bool {
		return strings.Contains(s, "ON HOST b") && strings.Contains(s, "wants to open a shell")
	})
	r.answerCardIn("e2e", "allow once", "y")
	if err := open.ended(t); err != nil {
		t.Fatalf("tickmux open on b: %v\n%s", err, open.out.String())
	}

	// An agent's call on b: its card here says its host.
	raised := time.Now()
	call := startVerb(t, b.env, "call", bCounter, "increment", `{"amount":2}`)
	s := r.waitUntil("e2e", "show b's call card", func(s string) bool { return strings.Contains(s, "ON HOST b") && strings.Contains(s, `"amount": 2`) })
	arriveB := time.Since(raised)
	if !strings.Contains(s, "wants to call increment on "+bCounter) {
		t.Errorf("b's card:\n%s", s)
	}

	// `tickmux proxy` in b's pane, with the card waiting: refused at its hello, it lists nothing
	// and answers nothing.
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var rc []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if rc, err = os.ReadFile(rcFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy in b's pane did not end\nb's log:\n%s", b.log())
		}
	}
	paneOut, _ := os.ReadFile(outFile)
	paneErr, _ := os.ReadFile(errFile)
	if strings.TrimSpace(string(rc)) != "1" || strings.Count(string(paneOut), "\n") != 1 || !strings.Contains(string(paneOut), `"error"`) ||
		!strings.Contains(string(paneErr), "cannot take a proxy from inside tickmux") {
		t.Fatalf("tickmux proxy in b's pane: exit %s, stdout %q, stderr %q", rc, paneOut, paneErr)
	}
	call.running(t)
	r.waitFor(`"amount": 2`)

	// The person's y here: the call returns on b, and b's journal names this view.
	r.answerCardIn("e2e", "allow once", "y")
	if err := call.ended(t); err != nil {
		t.Fatalf("the call on b after y: %v\n%s", err, call.out.String())
	}
	var entry journal.Entry
	for deadline := time.Now().Add(20 * time.Second); entry.View == nil; time.Sleep(50 * time.Millisecond) {
		for _, e := range b.entries() {
			if e.Kind == "call" && e.Tool == "increment" && e.Outcome != nil && e.Card != nil {
				entry = e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("b's journal has no answered increment:\n%v", b.entries())
		}
	}
	if v := *entry.View; !strings.Contains(v, "view 1") || !strings.Contains(v, " on ") || !strings.HasSuffix(v, " via ssh from 127.0.0.1") || entry.Decision != journal.Once {
		t.Errorf("b's journal: view %q, decision %q", v, entry.Decision)
	}
	t.Logf("b's journal names the view: %q", *entry.View)

	// `tickmux ls` here lists what runs on the other hosts, named after them.
	ls := r.run("ls")
	for _, want := range []string{"host b (up", "host c (up", "b:" + bCounter, "c:" + cCounter} {
		if !strings.Contains(ls, want) {
			t.Errorf("tickmux ls here does not say %q:\n%s", want, ls)
		}
	}

	// b hangs. A second card waits there first; the local echo before the hang.
	call2 := startVerb(t, b.env, "call", bCounter, "increment", `{"amount":3}`)
	r.waitUntil("e2e", "show b's second card", func(s string) bool { return strings.Contains(s, "ON HOST b") && strings.Contains(s, `"amount": 3`) })
	floor := r.captureFloor(20)
	before := r.echoTimes('a', 20)
	// The status line shows a message for 10 s, in the place of the hosts' states: the answer's
	// is gone before the hang, so that the hang's own word is timed.
	r.waitGone("e2e", "allowed once by")
	bServer := b.serverPID()
	frozen := b.ssh.Freeze()
	syscall.Kill(bServer, syscall.SIGSTOP) // (it carries b's mark: Freeze stopped it already)
	hungAt := time.Now()
	during := r.echoTimes('A', 20)
	s = r.waitUntil("e2e", "say b is unreachable, on its card and the status line", func(s string) bool {
		return strings.Contains(s, "host unreachable: cannot answer now") && strings.Contains(s, "b unreachable since")
	})
	seen := time.Since(hungAt)
	found := r.waitLogLine("remote: b unreachable", hungAt)
	if !strings.Contains(s, `"amount": 3`) {
		t.Errorf("b's card is not shown while b hangs:\n%s", s)
	}
	t.Logf("b hung (%d processes stopped): its link found it %v later (the log), the view said so %v later",
		len(frozen), found.Sub(hungAt).Round(time.Millisecond), seen.Round(time.Millisecond))
	// Its link tries again (ssh waits up to 10 s for the hung sshd's banner): still unreachable.
	r.waitUntil("e2e", "say b is unreachable while its link tries again", func(s string) bool {
		return strings.Contains(s, "b unreachable since") && strings.Contains(s, ", trying again")
	})
	lsAt := time.Now()
	ls = r.run("ls")
	if !strings.Contains(ls, "host b: ") || strings.Contains(ls, "host b (up") || !strings.Contains(ls, "c:"+cCounter) {
		t.Errorf("tickmux ls here while b hangs:\n%s", ls)
	}
	t.Logf("tickmux ls here while b hangs took %v", time.Since(lsAt).Round(time.Millisecond))

	// Meanwhile a card on c, behind its 375 ms relay: b's card comes first and cannot be answered;
	// j, then y answers c's.
	raised = time.Now()
	callC := startVerb(t, c.env, "call", cCounter, "increment", `{"amount":5}`)
	r.waitUntil("e2e", "show c's card", func(s string) bool { return strings.Contains(s, "ON HOST c") && strings.Contains(s, `"amount": 5`) })
	arriveC := time.Since(raised)
	r.answerCardIn("e2e", "allow once", "y")
	r.waitFor("host b unreachable: cannot answer now") // the status line: nothing was sent
	call2.running(t)
	r.keys("j")
	r.waitUntil("e2e", "focus c's card", func(s string) bool {
		i := strings.Index(s, "ON HOST c")
		return i >= 0 && strings.Contains(s[i:], "allow once")
	})
	answered := time.Now()
	r.keys("y")
	if err := callC.ended(t); err != nil {
		t.Fatalf("the call on c after y: %v\n%s", err, callC.out.String())
	}
	rtC := time.Since(answered)
	r.waitGone("e2e", `"amount": 5`)
	call2.running(t)
	r.keys("Escape")                 // out of card mode, b's card left waiting
	r.waitFor("b unreachable since") // once the answer's message is gone
	t.Logf("a call's card on screen here after the call started: %v from b, %v from c (375 ms each way, b hung); y on c's card to its call's return on c: %v",
		arriveB.Round(time.Millisecond), arriveC.Round(time.Millisecond), rtC.Round(time.Millisecond))

	// b comes back: its card is answerable again, nothing restarted.
	b.ssh.Thaw()
	syscall.Kill(bServer, syscall.SIGCONT)
	thawed := time.Now()
	r.waitUntil("e2e", "show b's card answerable", func(s string) bool {
		return strings.Contains(s, `"amount": 3`) && !strings.Contains(s, "host unreachable: cannot answer now") && !strings.Contains(s, "b unreachable since")
	})
	if s := r.screen(); strings.Contains(s, "allowed once by") {
		t.Errorf("a message hides the status line's host states:\n%s", s)
	}
	t.Logf("b answerable again %v after it thawed", time.Since(thawed).Round(time.Millisecond))
	if pid := b.serverPID(); pid != bServer {
		t.Errorf("b's server is %d after the thaw, %d before", pid, bServer)
	}
	r.answerCardIn("e2e", "allow once", "y")
	if err := call2.ended(t); err != nil {
		t.Fatalf("b's second call after y: %v\n%s", err, call2.out.String())
	}
	r.waitGone("e2e", `"amount": 3`)

	// b's server is killed: b is unreachable with the reason; c's card is answered all the same.
	callC2 := startVerb(t, c.env, "call", cCounter, "increment", `{"amount":7}`)
	r.waitUntil("e2e", "show c's second card", func(s string) bool { return strings.Contains(s, "ON HOST c") && strings.Contains(s, `"amount": 7`) })
	killed := time.Now()
	syscall.Kill(bServer, syscall.SIGKILL)
	r.waitLogLine("remote: b unreachable: no tickmux server runs on b: start one there with `tickmux`", killed)
	r.waitFor("b unreachable since")
	if ls := r.run("ls"); !strings.Contains(ls, "no tickmux server runs on b") || !strings.Contains(ls, "host c (up") {
		t.Errorf("tickmux ls with b's server killed:\n%s", ls)
	}
	if s := r.screen(); strings.Contains(s, "host unreachable: cannot answer now") {
		t.Errorf("c's card says it cannot be answered:\n%s", s)
	}
	answered = time.Now()
	r.answerCardIn("e2e", "allow once", "y")
	if err := callC2.ended(t); err != nil {
		t.Fatalf("the call on c after y, b's server killed: %v\n%s", err, callC2.out.String())
	}
	t.Logf("y on c's second card to its call's return: %v", time.Since(answered).Round(time.Millisecond))

	t.Logf("local echo, median (slowest) of %d keys typed in a shell pane, send-keys to the capture that shows it (one capture-pane alone: %v): %v (%v) before b hung, %v (%v) while it hung",
		len(before), floor.Round(100*time.Microsecond), median(before).Round(100*time.Microsecond), slices.Max(before).Round(100*time.Microsecond),
		median(during).Round(100*time.Microsecond), slices.Max(during).Round(100*time.Microsecond))
}
