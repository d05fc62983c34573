package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type fakeEnvReport struct {
	Argv0      string `json:"argv0"`
	Cwd        string `json:"cwd"`
	InstanceID string `json:"instance_id"`
	Term       string `json:"term"`
	Colorterm  string `json:"colorterm"`
	Leak       string `json:"leak"`
	Lines      string `json:"lines"`
	Pid        int    `json:"pid"`
	Pgid       int    `json:"pgid"`
	Sid        int    `json:"sid"`
	StdinTTY   bool   `json:"stdin_tty"`
	StdoutTTY  bool   `json:"stdout_tty"`
	DevTTY     bool   `json:"dev_tty"`
	Cols       int    `json:"cols"`
	Rows       int    `json:"rows"`
	TTYFgPgrp  int    `json:"tty_fg_pgrp"`
}

func envOf(t *testing.T, in *Instance) fakeEnvReport {
	t.Helper()
	var r fakeEnvReport
	if err := json.Unmarshal(mustCall(t, in, "env", ""), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// spec: H-T1
func TestTickChannels(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	r := envOf(t, in)
	if r.StdinTTY || r.StdoutTTY {
		t.Errorf("stdin tty %v, stdout tty %v: both must be pipes", r.StdinTTY, r.StdoutTTY)
	}
	if !r.DevTTY {
		t.Error("the Tick cannot open /dev/tty")
	}
	if r.Sid != r.Pid || r.Pgid != r.Pid {
		t.Errorf("sid %d pgid %d pid %d: the Tick must lead a new session", r.Sid, r.Pgid, r.Pid)
	}
	if r.TTYFgPgrp != r.Pgid {
		t.Errorf("foreground group of the terminal %d, the Tick's group %d", r.TTYFgPgrp, r.Pgid)
	}
	// What it draws on /dev/tty reaches the view, not the protocol.
	if !strings.Contains(in.Terminal().Text(), "fake tick good ready") {
		t.Errorf("screen %q lacks the Tick's drawing", in.Terminal().Text())
	}
}

// spec: H-S1
func TestLaunchEnvironment(t *testing.T) {
	t.Setenv("TICKLOOP_LEAK", "from outside")
	t.Setenv("LINES", "99")
	h := newTestHost(t, Config{})
	dir := t.TempDir()
	// argv[0] given relative to the working directory is resolved to an absolute path.
	rel, err := filepath.Rel(dir, testExecutable(t))
	if err != nil {
		t.Fatal(err)
	}
	in, err := h.Open(OpenSpec{Argv: []string{rel}, Dir: dir, Env: []string{envFakeMode + "=good"}})
	if err != nil {
		t.Fatal(err)
	}
	waitReady(t, in)
	r := envOf(t, in)
	if r.Argv0 != testExecutable(t) {
		t.Errorf("argv[0] %q, want the absolute %q", r.Argv0, testExecutable(t))
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	if r.Cwd != dir && r.Cwd != realDir {
		t.Errorf("cwd %q, want %q", r.Cwd, dir)
	}
	if r.InstanceID != in.ID() || !strings.HasPrefix(r.InstanceID, "hosted:") {
		t.Errorf("TICKLOOP_INSTANCE_ID %q, instance %q", r.InstanceID, in.ID())
	}
	if r.Term != "xterm-256color" || r.Colorterm != "truecolor" {
		t.Errorf("TERM %q COLORTERM %q", r.Term, r.Colorterm)
	}
	if r.Leak != "" || r.Lines != "" {
		t.Errorf("inherited TICKLOOP_LEAK %q / LINES %q reached the Tick", r.Leak, r.Lines)
	}
	// The instance id never appears in a protocol message.
	if strings.Contains(string(in.Catalog().Raw), in.ID()) {
		t.Error("instance id found in a protocol message")
	}
}

// spec: H-S1
func TestLaunchErrorsSayWhatToDo(t *testing.T) {
	h := newTestHost(t, Config{})
	_, err := h.Open(OpenSpec{Argv: []string{"no-such-tick-anywhere"}})
	if err == nil || !strings.Contains(err.Error(), `cannot start "no-such-tick-anywhere": executable not found in PATH`) {
		t.Fatalf("err %v", err)
	}
	_, err = h.Open(OpenSpec{Argv: []string{"true"}, Dir: "/no/such/dir"})
	if err == nil || !strings.Contains(err.Error(), "/no/such/dir") {
		t.Fatalf("err %v", err)
	}
	_, err = h.Open(OpenSpec{})
	if err == nil {
		t.Fatal("opened an empty command")
	}
}

// spec: H-S2
func TestTerminalSizeAndResize(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	if r := envOf(t, in); r.Cols != 120 || r.Rows != 30 {
		t.Fatalf("initial size %dx%d, want 120x30", r.Cols, r.Rows)
	}
	if err := in.Process().Resize(100, 40); err != nil {
		t.Fatal(err)
	}
	if r := envOf(t, in); r.Cols != 100 || r.Rows != 40 {
		t.Fatalf("size after resize %dx%d, want 100x40", r.Cols, r.Rows)
	}
	if c, r := in.Terminal().Size(); c != 100 || r != 40 {
		t.Fatalf("emulator size %dx%d", c, r)
	}
}

// processExists reports whether pid is alive and not a zombie.
func processExists(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for processExists(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is still running", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Not even a zombie: the host reaped it.
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		deadline := time.Now().Add(hangGuard)
		for err == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			_, err = os.Stat("/proc/" + strconv.Itoa(pid))
		}
		if err == nil {
			t.Fatalf("%s (pid %d) left a zombie: %s", what, pid, b)
		}
	}
}

// spec: H-X1
func TestTerminateReachesTheWholeGroup(t *testing.T) {
	h := newTestHost(t, Config{})
	in := openReady(t, h, "ignoreterm")
	var child struct{ Pid int }
	json.Unmarshal(mustCall(t, in, "spawn", `{}`), &child)
	var daemon struct{ Pid int }
	json.Unmarshal(mustCall(t, in, "spawn", `{"setsid":true}`), &daemon)
	if !processExists(child.Pid) || !processExists(daemon.Pid) {
		t.Fatal("children did not start")
	}
	tick := in.Process().Pid()
	start := time.Now()
	in.Close()
	// The Tick ignores SIGTERM, so only SIGKILL after the grace ended it.
	if took := time.Since(start); took < TerminateGrace {
		t.Errorf("a Tick ignoring SIGTERM ended after %v, before the %v grace", took, TerminateGrace)
	}
	waitGone(t, tick, "the Tick")
	waitGone(t, child.Pid, "a child in the Tick's group that ignores SIGTERM")
	// Reached through the reaper: it left the group with setsid but still carries the instance
	// id in its environment. A child that also cleared its environment would not be found.
	waitGone(t, daemon.Pid, "a grandchild that left the group with setsid")
	if st := in.EndInfo(); st == nil || st.ExitStatus != "signal: killed" {
		t.Errorf("end %+v, want the Tick killed", st)
	}
}

// spec: H-X1
func TestTerminateIsPromptForAWellBehavedTick(t *testing.T) {
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	pid := in.Process().Pid()
	in.Close()
	waitGone(t, pid, "the Tick")
	// Closing the session closes its stdin, and SIGTERM follows: either may end it first.
	if st := in.EndInfo(); st.ExitStatus != "signal: terminated" && st.ExitStatus != "exit status 0" {
		t.Errorf("exit %q, want SIGTERM or EOF to have ended it", st.ExitStatus)
	}
}

// spec: H-X2
func TestTickExitingOnItsOwnEndsTheSession(t *testing.T) {
	h := newTestHost(t, Config{Approver: &autoApprover{}})
	in := openReady(t, h, "good")
	var child struct{ Pid int }
	json.Unmarshal(mustCall(t, in, "spawn", `{}`), &child)
	// A call in flight when the Tick exits becomes unknown.
	held := make(chan error, 1)
	go func() {
		_, err := callJSON(t, in, "noanswer", "")
		held <- err
	}()
	waitInFlight(t, in, 1)
	_, err := callJSON(t, in, "exit", `{"code":3}`)
	if EffectOf(err) != "unknown" {
		t.Fatalf("the exit call: %v, want effect unknown", err)
	}
	if err := <-held; EffectOf(err) != "unknown" {
		t.Fatalf("the held call: %v, want effect unknown", err)
	}
	end := waitEnded(t, in)
	if end.ExitCode != 3 || !strings.Contains(end.Reason, "exited") || !strings.Contains(end.Reason, "exit status 3") {
		t.Fatalf("end %+v, want the exit status shown", end)
	}
	waitGone(t, child.Pid, "the exited Tick's stubborn child")
}

func waitInFlight(t *testing.T, in *Instance, n int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for in.SessionStats().InFlight < n {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %d requests in flight", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// spec: H-X1
func TestShellPaneGetsHangup(t *testing.T) {
	h := newTestHost(t, Config{})
	in, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "trap '' TERM; echo up; exec sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(in.ID(), "shell:") || in.Status() != StatusReady {
		t.Fatalf("id %s status %s", in.ID(), in.Status())
	}
	pid := in.Process().Pid()
	in.Close()
	waitGone(t, pid, "the shell")
	if st := in.EndInfo(); st.ExitStatus != "signal: hangup" {
		t.Errorf("a shell pane ended by %q, want SIGHUP like a closing terminal", st.ExitStatus)
	}
}

func TestScrollbackLimit(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{Scrollback: 10})
	in, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "seq 1 100; sleep 30"}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(in.Terminal().Text(), "100") {
		if time.Now().After(deadline) {
			t.Fatalf("screen %q", in.Terminal().Text())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := in.Terminal().ScrollbackLen(); n != 10 {
		t.Fatalf("scrollback holds %d lines, want the configured 10", n)
	}
}

// Input never blocks and keeps what is typed in order, whether the terminal takes it at once
// (written by Input itself) or it waits for the writer: 40,000 pieces (about 270 KB, more than a
// PTY holds) typed at a program that is stopped, the second half while it reads them.
func TestInputKeepsTheOrderOfWhatIsTyped(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "typed")
	var want strings.Builder
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&want, "<%d>", i)
	}
	p, err := Launch(LaunchSpec{Argv: []string{"/bin/sh", "-c",
		"stty raw -echo; kill -STOP $$; head -c " + strconv.Itoa(want.Len()) + " > " + out}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitStopped(t, p.Pid())
	direct := 0
	for i := 0; i < 40000; i++ {
		if i == 20000 {
			// The second half is typed while the program reads: the terminal has room again
			// while pieces still wait for the writer, and none may overtake them.
			syscall.Kill(p.Pid(), syscall.SIGCONT)
		}
		p.inMu.Lock()
		if !p.inWriting {
			direct++ // nothing waits ahead of this piece: the terminal may take it at once
		}
		p.inMu.Unlock()
		if err := p.Input(fmt.Appendf(nil, "<%d>", i)); err != nil {
			t.Fatal(err)
		}
	}
	if direct == 0 || direct == 40000 {
		t.Errorf("%d of 40000 pieces found nothing waiting ahead of them: the test did not mix the two ways", direct)
	}
	select {
	case <-p.Exited():
	case <-time.After(hangGuard):
		t.Fatal("the program never read all that was typed")
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Fatalf("the program read %d bytes, not what was typed in order (%d bytes); first difference at %d",
			len(got), want.Len(), firstDiff(string(got), want.String()))
	}
	t.Logf("%d of 40000 pieces found nothing waiting ahead of them", direct)
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A program stopped when its pane closes still ends on the first signal, not on the SIGKILL
// after the grace: it is continued, as a terminal's hangup continues the foreground group.
func TestCloseEndsAStoppedProgramWithItsFirstSignal(t *testing.T) {
	t.Parallel()
	p, err := Launch(LaunchSpec{Argv: []string{"/bin/sh", "-c", "kill -STOP $$; sleep 60"}, Cols: 20, Rows: 2, Scrollback: -1})
	if err != nil {
		t.Fatal(err)
	}
	waitStopped(t, p.Pid())
	p.Close()
	if got := p.ExitStatus(); got != "signal: hangup" {
		t.Fatalf("the stopped program ended with %q, want the hangup", got)
	}
}

// waitStopped waits until process pid is stopped (state T): nothing typed at it is read from
// there on until it continues.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	stat := "/proc/" + strconv.Itoa(pid) + "/stat"
	for deadline := time.Now().Add(hangGuard); ; {
		b, _ := os.ReadFile(stat)
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && len(b) > i+2 && b[i+2] == 'T' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program never stopped: %s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A pane's frame asks for the name of its foreground program at every draw, a key's echo
// included: /proc/PID/comm is opened once for the same process and read again, not opened at
// every draw; an exec shows at once, another process opens its own.
func TestForegroundNameOpensOncePerProcess(t *testing.T) {
	var opens int
	var mu sync.Mutex
	orig := openComm
	openComm = func(pid int) (*os.File, error) {
		mu.Lock()
		opens++
		mu.Unlock()
		return orig(pid)
	}
	t.Cleanup(func() { openComm = orig })
	count := func() int { mu.Lock(); defer mu.Unlock(); return opens }
	h := newTestHost(t, Config{})
	in, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "read line; exec sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Process()
	if n := p.ForegroundName(); n != "sh" {
		t.Fatalf("name %q, want sh", n)
	}
	for i := 0; i < 10; i++ {
		p.ForegroundName()
	}
	if n := count(); n != 1 {
		t.Fatalf("11 draws opened the name of the same process %d times", n)
	}
	if err := p.Input([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(hangGuard)
	for p.ForegroundName() != "sleep" { // the exec: the same process, the same file
		if time.Now().After(deadline) {
			t.Fatalf("the foreground program is %q after its exec, want sleep", p.ForegroundName())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := count(); n != 1 {
		t.Fatalf("the name was opened %d times for one process", n)
	}
}

// Cork holds input until Uncork, which sends it in one write; a paste that begins sends what was
// held first, so that it goes in before the paste, as typed.
func TestCorkedInputGoesInOneWrite(t *testing.T) {
	h := newTestHost(t, Config{})
	in, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "stty -echo; echo ready; exec cat"}})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Process()
	waitText := func(want string) {
		t.Helper()
		deadline := time.Now().Add(hangGuard)
		for !strings.Contains(in.Terminal().Text(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("screen %q, want %q", in.Terminal().Text(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitText("ready")
	before := p.InputWrites()
	p.Cork()
	for _, k := range []string{"a", "b", "c"} {
		if err := p.Input([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.InputWrites() - before; n != 0 {
		t.Fatalf("corked input was written (%d writes)", n)
	}
	p.Uncork()
	if n := p.InputWrites() - before; n != 1 {
		t.Fatalf("three keys uncorked went in %d writes, want 1", n)
	}
	p.Cork()
	if err := p.Input([]byte("d")); err != nil {
		t.Fatal(err)
	}
	w := p.BeginPaste()
	if err := w.Write([]byte("PASTE"), nil); err != nil {
		t.Fatal(err)
	}
	w.Close(nil)
	if err := p.Input([]byte("e\n")); err != nil {
		t.Fatal(err)
	}
	waitText("abcdPASTEe")
}
