package host

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/host/guardian"
)

// envGuardedJob is the sleep the guarded tickmux's shell runs in the background.
const envGuardedJob = "HOSTTEST_GUARDED_JOB"

// envGuardEarly, set to "1", has the guarded tickmux start its guardian at init, as the tickmux
// server does (guardian.EnvEarly).
const envGuardEarly = "HOSTTEST_GUARD_EARLY"

// guardParentMain stands between the test and the guarded tickmux, as a login shell or tmux
// would: a subreaper of its own that reaps what tickmux leaves. (Were the test process the
// subreaper, its own stray killer would end the orphans, whose instance ids it has seen end.)
func guardParentMain() int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envFakeMode+"=guarded")
	if os.Getenv(envGuardEarly) == "1" { // as the tickmux server starts it: at init, then adopted
		cmd.Env = append(cmd.Env, guardian.EnvEarly+"=1")
	}
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	fmt.Printf("TICKMUX %d\n", cmd.Process.Pid)
	for { // reap until the test kills us
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err == syscall.ECHILD {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// guardedMain plays a tickmux that is about to be killed with SIGKILL: it opens a bash with a
// background job and a Tick that ignores SIGTERM and SIGHUP, prints their pids, and waits.
func guardedMain() int {
	var outMu sync.Mutex
	h := New(Config{Logf: func(format string, args ...any) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Printf("LOG %s\n", strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
	}})
	sh, err := h.Open(OpenSpec{Shell: true, Argv: []string{"bash", "--norc", "--noprofile", "-i"}})
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	self, _ := os.Executable()
	tk, err := h.Open(OpenSpec{Argv: []string{self}, Env: []string{envFakeMode + "=ignoreall"}})
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	<-tk.Ready()
	_ = sh.Process().Input([]byte(os.Getenv(envGuardedJob) + " &\n"))
	outMu.Lock()
	fmt.Printf("GUARDIAN %d\nSHELL %d\nTICK %d\n", processGuardian().Pid(), sh.Process().Pid(), tk.Process().Pid())
	outMu.Unlock()
	time.Sleep(time.Minute)
	return 0
}

// After tickmux is killed with SIGKILL, its panes end as under tmux: the shell gets the hangup and
// passes it to its background job, the Tick gets SIGTERM and, ignoring it (and the hangup), SIGKILL after 2 s.
// (Before the guardian, a parent-death SIGKILL killed the shell first and `sleep … &` lived on.)
// spec: H-X1
func TestKill9EndsShellsJobsAndTicks(t *testing.T) {
	testKill9(t, false)
}

// When the guardian dies (kill -9 of it by hand, the OOM killer), tickmux reaps it (no zombie),
// starts a new one that takes over every group and PTY master, and logs it; a kill -9 of tickmux
// after that still ends the shell, its job and the Tick that ignores SIGTERM, after its grace.
// (Before, nothing noticed: the guardian stayed a zombie and tickmux's kill -9 left all of them.)
// spec: H-X1
func TestGuardianDiesAndIsReplaced(t *testing.T) {
	testKill9(t, true)
}

func testKill9(t *testing.T, killGuardianFirst bool) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is needed to play an interactive shell with job control")
	}
	job := fmt.Sprintf("sleep 302%d", os.Getpid()) // unique: found by its command line
	if killGuardianFirst {
		job = fmt.Sprintf("sleep 303%d", os.Getpid())
	}
	cmd := exec.Command(testExecutable(t))
	cmd.Env = append(os.Environ(), envFakeMode+"=guardparent", envGuardedJob+"="+job)
	if killGuardianFirst {
		cmd.Env = append(cmd.Env, envGuardEarly+"=1") // the server's way: started at init, adopted
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pids := map[string]int{}
	logs := make(chan string, 100)
	sc := bufio.NewScanner(out)
	for len(pids) < 4 && sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 0 && f[0] == "LOG":
			t.Logf("guarded tickmux: %s", sc.Text())
		case len(f) == 2:
			pids[f[0]], _ = strconv.Atoi(f[1])
		default:
			t.Fatalf("the guarded tickmux: %s", sc.Text())
		}
	}
	go func() { // owner: the test; ends when the guarded tickmux's output does
		for sc.Scan() {
			select {
			case logs <- sc.Text():
			default:
			}
		}
		close(logs)
	}()
	if pids["SHELL"] == 0 || pids["TICK"] == 0 || pids["TICKMUX"] == 0 || pids["GUARDIAN"] == 0 {
		t.Fatalf("the guarded tickmux did not start its panes: %v", pids)
	}
	var jobPid int
	deadline := time.Now().Add(hangGuard)
	for jobPid == 0 {
		jobPid = findCmdline(job)
		if time.Now().After(deadline) {
			t.Fatal("the shell never started the background job")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { syscall.Kill(jobPid, syscall.SIGKILL) })

	if killGuardianFirst {
		old := pids["GUARDIAN"]
		if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// The log names the new guardian; it is tickmux's child, runs as a guardian, and holds a
		// copy of each PTY master (the shell's and the Tick's terminals).
		var line string
		for timeout := time.After(hangGuard); line == ""; {
			var l string
			var ok bool
			select {
			case l, ok = <-logs:
			case <-timeout:
			}
			if !ok {
				break
			}
			t.Logf("guarded tickmux: %s", l)
			if strings.Contains(l, fmt.Sprintf("guardian: the guardian (pid %d) is gone: it was killed by signal 9 (killed); started a new guardian (pid ", old)) {
				line = l
			}
		}
		if line == "" {
			t.Fatal("tickmux did not log a new guardian after the old one was killed")
		}
		var fresh int
		fmt.Sscanf(line[strings.Index(line, "started a new guardian (pid ")+len("started a new guardian (pid "):], "%d", &fresh)
		if !strings.HasSuffix(line, "which now watches 2 process groups") {
			t.Errorf("the new guardian does not watch both groups: %s", line)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", old)); err == nil {
			t.Errorf("the killed guardian %d was not reaped (a zombie is left)", old)
		}
		if ppid, env := parentAndEnv(fresh); ppid != pids["TICKMUX"] || !strings.Contains("\x00"+env, "\x00"+EnvGuardian+"=1\x00") {
			t.Fatalf("pid %d (parent %d) is not tickmux's new guardian", fresh, ppid)
		}
		// The masters reach it with the messages, which it reads in its own time.
		for deadline := time.Now().Add(hangGuard); ptyMasters(fresh) != 2; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the new guardian holds %d PTY masters, want 2 (the shell's and the Tick's)", ptyMasters(fresh))
			}
		}
	}

	killed := time.Now()
	if err := syscall.Kill(pids["TICKMUX"], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	gone := map[string]time.Duration{}
	for time.Since(killed) < 10*time.Second && len(gone) < 3 {
		for name, pid := range map[string]int{"shell": pids["SHELL"], "job": jobPid, "Tick": pids["TICK"]} {
			if _, ok := gone[name]; !ok && !processAlive(pid) {
				gone[name] = time.Since(killed)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("after kill -9 of tickmux, gone after: %v", gone)
	for _, name := range []string{"shell", "job", "Tick"} {
		if _, ok := gone[name]; !ok {
			t.Errorf("the %s outlived tickmux's kill -9 by 10 s", name)
		}
	}
	if d, ok := gone["Tick"]; ok && d < TerminateGrace/2 {
		t.Errorf("the Tick that ignores SIGTERM was gone after %v: it did not get its grace", d)
	}
}

// parentAndEnv returns a process's parent pid and its environment (NUL-separated).
func parentAndEnv(pid int) (int, string) {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return 0, string(env)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0, string(env)
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid, string(env)
}

// ptyMasters counts the PTY masters a process holds open.
func ptyMasters(pid int) int {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	n := 0
	for _, e := range fds {
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); l == "/dev/ptmx" || strings.HasPrefix(l, "/dev/pts/ptmx") {
			n++
		}
	}
	return n
}

// guardFailMain plays a tickmux whose guardian dies and cannot be started again (its binary
// is gone): it prints what its panes say, and exits.
func guardFailMain() int {
	var outMu sync.Mutex
	say := func(format string, args ...any) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Printf(strings.ReplaceAll(format, "\n", " ")+"\n", args...)
	}
	h := New(Config{Logf: func(format string, args ...any) { say("LOG "+format, args...) }})
	defer h.Close()
	sh, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh"}})
	if err != nil {
		say("ERROR %v", err)
		return 1
	}
	if e := sh.GuardError(); e != "" {
		say("ERROR the first pane is unguarded: %s", e)
		return 1
	}
	g := processGuardian()
	g.mu.Lock()
	g.exe = os.Getenv(envGuardExe)
	old := g.pid
	g.mu.Unlock()
	syscall.Kill(old, syscall.SIGKILL)
	// A replacement that dies before it is told of the panes shows its own error on the way
	// (broken pipe); the pane's last word is that no new one could be started.
	for deadline := time.Now().Add(hangGuard); !strings.Contains(sh.GuardError(), "no new one could be started"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			say("ERROR the pane never said it is unguarded")
			return 1
		}
	}
	say("PANE %s", sh.GuardError())
	sh2, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh"}})
	if err != nil {
		say("ERROR %v", err)
		return 1
	}
	say("NEW %s", sh2.GuardError())
	return 0
}

// envGuardExe is what guardFailMain's replacement guardians run.
const envGuardExe = "HOSTTEST_GUARD_EXE"

// A guardian that dies as soon as it starts is not replaced for ever: after maxRestarts within
// restartWindow the panes say they are unguarded, and why.
func TestGuardianThatDiesAtOnceIsNotRestartedForever(t *testing.T) {
	t.Parallel()
	exe, err := exec.LookPath("true")
	if err != nil {
		t.Skip("true(1) plays a guardian that exits at once")
	}
	cmd := exec.Command(testExecutable(t))
	cmd.Env = append(os.Environ(), envFakeMode+"=guardfail", envGuardExe+"="+exe)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the tickmux whose guardian failed: %v", err)
	}
	// Up to the moment the pane said it is unguarded (a pane opened later tries once more).
	before, _, _ := strings.Cut(string(out), "\nPANE ")
	if n := strings.Count(before, "LOG guardian: the guardian (pid "); n != maxRestarts+1 {
		t.Errorf("%d guardians ended, want %d (the first and %d replacements)", n, maxRestarts+1, maxRestarts)
	}
	for _, want := range []string{
		"\nPANE the guardian (pid ",
		fmt.Sprintf("it exited with status 0, and no new one could be started: if tickmux is killed now, the programs in its panes keep running; quit tickmux normally, or start it again: %d guardians started in the last 10s died", maxRestarts),
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}

// Every failure of the guardian path is logged and shown on the pane: a guardian that died and
// could not be replaced leaves the open panes unguarded (GuardError, which the pane's border and
// the panel show), and a pane opened then is unguarded too, with the reason. (Before, Launch
// dropped the error of Watch: the pane was unprotected, silently.)
func TestGuardianFailureShownOnThePane(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testExecutable(t))
	cmd.Env = append(os.Environ(), envFakeMode+"=guardfail", envGuardExe+"=/nonexistent/tickmux")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the tickmux whose guardian failed: %v", err)
	}
	lines := map[string]string{}
	var logged []string
	for _, l := range strings.Split(string(out), "\n") {
		kind, rest, _ := strings.Cut(l, " ")
		if kind == "LOG" {
			logged = append(logged, rest)
		} else if kind != "" {
			lines[kind] = rest
		}
	}
	for _, kind := range []string{"PANE", "NEW"} {
		if !strings.Contains(lines[kind], "no new one could be started") || !strings.Contains(lines[kind], "/nonexistent/tickmux") ||
			!strings.Contains(lines[kind], "quit tickmux normally, or start it again") {
			t.Errorf("%s pane: %q, want why no guardian watches it and what to do", kind, lines[kind])
		}
	}
	log := strings.Join(logged, "\n")
	for _, want := range []string{"guardian: the guardian (pid ", "shell:1: the guardian (pid ", "shell:2: "} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// findCmdline returns the pid of a live process whose command line is cmdline, or 0.
func findCmdline(cmdline string) int {
	entries, _ := os.ReadDir("/proc")
	want := strings.ReplaceAll(cmdline, " ", "\x00") + "\x00"
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == want && processAlive(pid) {
			return pid
		}
	}
	return 0
}

// processAlive reports whether pid runs (a zombie does not).
func processAlive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return !(i > 0 && len(stat) > i+2 && stat[i+2] == 'Z')
}

// TestGuardianSkipsHeavyInits: the guardian starts before the packages that import unicode
// (reflect, fmt, the JSON schema, terminal and UI libraries) initialise, so it holds none of
// what their inits allocate and touch. The runtime's init trace of a guardian must list no
// init of package unicode: every such package waits for it.
func TestGuardianSkipsHeavyInits(t *testing.T) {
	t.Parallel()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), EnvGuardian+"=1", "GODEBUG=inittrace=1")
	cmd.Stdin = theirs
	var trace strings.Builder
	cmd.Stderr = &trace
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	theirs.Close()
	ours.Close() // the guardian reads EOF at once: nothing to watch, it exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("guardian: %v\n%s", err, trace.String())
	}
	var inits []string
	for _, line := range strings.Split(trace.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			inits = append(inits, f[1])
		}
	}
	if !slices.Contains(inits, "os") {
		t.Fatalf("no init trace from the guardian:\n%s", trace.String())
	}
	if slices.Contains(inits, "unicode") {
		t.Errorf("the guardian ran after package unicode initialised: %v", inits)
	}
}
