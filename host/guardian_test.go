package host

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// envGuardedJob is the sleep the guarded tickmux's shell runs in the background.
const envGuardedJob = "HOSTTEST_GUARDED_JOB"

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
	h := New(Config{})
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
	fmt.Printf("SHELL %d\nTICK %d\n", sh.Process().Pid(), tk.Process().Pid())
	time.Sleep(time.Minute)
	return 0
}

// After tickmux is killed with SIGKILL, its panes end as under tmux: the shell gets the hangup and
// passes it to its background job, the Tick gets SIGTERM and, ignoring it (and the hangup), SIGKILL after 2 s.
// (Before the guardian, a parent-death SIGKILL killed the shell first and `sleep … &` lived on.)
// spec: H-X1
func TestKill9EndsShellsJobsAndTicks(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is needed to play an interactive shell with job control")
	}
	job := fmt.Sprintf("sleep 302%d", os.Getpid()) // unique: found by its command line
	cmd := exec.Command(testExecutable(t))
	cmd.Env = append(os.Environ(), envFakeMode+"=guardparent", envGuardedJob+"="+job)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pids := map[string]int{}
	sc := bufio.NewScanner(out)
	for len(pids) < 3 && sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 {
			pids[f[0]], _ = strconv.Atoi(f[1])
		} else {
			t.Fatalf("the guarded tickmux: %s", sc.Text())
		}
	}
	if pids["SHELL"] == 0 || pids["TICK"] == 0 || pids["TICKMUX"] == 0 {
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
