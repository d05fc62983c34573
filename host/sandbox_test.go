package host

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

func TestSandboxArgv(t *testing.T) {
	head := []string{"/usr/bin/bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-cgroup-try"}
	mounts := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tail := func(dir string, argv ...string) []string {
		return cat([]string{"--setenv", EnvSandbox, "1", "--setenv", "TMPDIR", "/tmp", "--chdir", dir, "--"}, argv)
	}
	for _, tc := range []struct {
		name string
		plan sandboxPlan
		want []string
	}{
		{
			name: "root: no user namespace, no agent socket",
			plan: sandboxPlan{bwrap: "/usr/bin/bwrap", dir: "/src/app", argv: []string{"/bin/sh"}},
			want: cat(head, mounts, []string{"--bind", "/src/app", "/src/app", "--unsetenv", "TICKMUX_SOCKET"}, tail("/src/app", "/bin/sh")),
		},
		{
			name: "a user: user namespace, home writable, config hidden after it, agent socket",
			plan: sandboxPlan{bwrap: "/usr/bin/bwrap", userns: true, dir: "/home/u/app", write: []string{"/home/u"},
				hideDirs: []string{"/home/u/.config/tickmux", "/run/user/1000"}, agentSocket: "/run/user/1000/tickmux/default.agent.sock",
				argv: []string{"/usr/bin/bash", "-l"}},
			want: cat(head, []string{"--unshare-user-try"}, mounts,
				[]string{"--bind", "/home/u/app", "/home/u/app", "--bind", "/home/u", "/home/u",
					"--tmpfs", "/home/u/.config/tickmux", "--tmpfs", "/run/user/1000",
					"--ro-bind", "/run/user/1000/tickmux/default.agent.sock", SandboxSocketPath, "--setenv", "TICKMUX_SOCKET", SandboxSocketPath},
				tail("/home/u/app", "/usr/bin/bash", "-l")),
		},
		{
			name: "hides inside another hide or /tmp are one; files get /dev/null; keeps come back after",
			plan: sandboxPlan{bwrap: "/usr/bin/bwrap", dir: "/tmp/work", hideDirs: []string{"/run/user/0/tickmux", "/run/user/0", "/tmp/tickmux-0", "/run/user/0"},
				hideFiles: []string{"/etc/tickmux.toml", "/run/user/0/x.log"}, keep: []string{"/tmp/tickmux-bin-1", "/tmp/tickmux-bin-1"},
				argv: []string{"/tmp/work/prog"}},
			want: cat(head, mounts, []string{"--bind", "/tmp/work", "/tmp/work", "--tmpfs", "/run/user/0",
				"--ro-bind", "/dev/null", "/etc/tickmux.toml", "--ro-bind", "/tmp/tickmux-bin-1", "/tmp/tickmux-bin-1", "--unsetenv", "TICKMUX_SOCKET"},
				tail("/tmp/work", "/tmp/work/prog")),
		},
		{
			name: "a pane opened in / writes nothing",
			plan: sandboxPlan{bwrap: "/usr/bin/bwrap", dir: "/", argv: []string{"/bin/true"}},
			want: cat(head, mounts, []string{"--unsetenv", "TICKMUX_SOCKET"}, tail("/", "/bin/true")),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sandboxArgv(tc.plan); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// needSandbox skips a test where bwrap cannot make a sandbox (the error path has its own test).
func needSandbox(t *testing.T) {
	t.Helper()
	if _, err := SandboxAvailable(); err != nil {
		if os.Getenv("CI") == "true" { // scripts/install-test-deps installs bubblewrap: a skip would hide its absence
			t.Fatalf("no sandbox here: %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
}

// waitText waits until in's screen shows want and returns the screen.
func waitText(t *testing.T, in *Instance, want string) string {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		text := in.Terminal().Text()
		if strings.Contains(text, want) {
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never showed %q:\n%s", in.ID(), want, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// outsideTmp is a new directory outside /tmp, removed at the end of the test.
func outsideTmp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "tickmux-sandbox-test-")
	if err != nil {
		t.Skipf("no directory outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// A sandboxed pane sees only its own processes, no terminal but its own, and none of the
// directories the host hides; its PTY is still its controlling terminal.
func TestSandboxedPaneSeesOnlyItsOwn(t *testing.T) {
	needSandbox(t)
	// Outside /tmp, which the sandbox replaces anyway: the control socket's directory and the
	// runtime directory stand-ins must be hidden by name.
	hidden, runtime := outsideTmp(t), outsideTmp(t)
	if err := os.WriteFile(filepath.Join(hidden, "default.sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runtime, "secret"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	// Another terminal, as the person's or another pane's would be.
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	other := strings.TrimPrefix(slave.Name(), "/dev/pts/")
	h := newTestHost(t, Config{Sandbox: &Sandbox{Hide: []string{hidden}}})
	script := `echo ps:; ps -e -o pid=,comm=; echo pts: $(ls /dev/pts); echo hidden: $(ls -A ` + hidden + `) $(ls -A "$XDG_RUNTIME_DIR");` +
		` echo tty: $(tty) $TICKMUX_SANDBOX; echo viatty >/dev/tty; echo done; exec sleep 300`
	in, err := h.Open(OpenSpec{Shell: true, Sandbox: true, Argv: []string{"/bin/sh", "-c", script}, Cols: 100, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	if !in.Sandboxed() {
		t.Fatal("Sandboxed() is false for a pane opened with Sandbox")
	}
	if got := in.Argv(); got[0] != "/bin/sh" {
		t.Fatalf("Argv = %q, want the command as given", got)
	}
	text := waitText(t, in, "done")
	t.Logf("screen:\n%s", text)
	ps, _, _ := strings.Cut(strings.SplitN(text, "ps:", 2)[1], "pts:")
	var comms []string
	for _, l := range strings.Split(strings.TrimSpace(ps), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			comms = append(comms, f[1])
		}
	}
	// bwrap as the namespace's init, the shell, ps: nothing of the host's.
	if want := []string{"bwrap", "sh", "ps"}; !reflect.DeepEqual(comms, want) {
		t.Errorf("ps -e in the sandbox shows %q, want %q", comms, want)
	}
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "pts:"); ok {
			for _, n := range strings.Fields(rest) {
				if n == other {
					t.Errorf("/dev/pts in the sandbox lists the other terminal %s: %q", other, rest)
				}
			}
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "hidden:"); ok && strings.TrimSpace(rest) != "" {
			t.Errorf("the hidden directories show %q in the sandbox", rest)
		}
		// bwrap binds the PTY on its stdout at /dev/console, so tty names it so.
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "tty:"); ok && strings.TrimSpace(rest) != "/dev/console 1" {
			t.Errorf("tty in the sandbox: %q, want /dev/console (its PTY) and TICKMUX_SANDBOX=1", rest)
		}
	}
	if !strings.Contains(text, "viatty") {
		t.Error("writing to /dev/tty in the sandbox did not reach the pane")
	}
}

// Job control works in a sandboxed interactive bash: its PTY stays the controlling terminal
// (no --new-session), so C-z stops the foreground job and fg brings it back.
func TestSandboxedShellHasJobControl(t *testing.T) {
	needSandbox(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	h := newTestHost(t, Config{})
	in, err := h.Open(OpenSpec{Shell: true, Sandbox: true, Argv: []string{bash, "--norc", "--noprofile", "-i"},
		Env: []string{"PS1=sb>"}, Cols: 100, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, in, "sb>")
	type_ := func(s string) {
		if err := in.Process().Input([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	type_("sleep 300\r")
	time.Sleep(300 * time.Millisecond)
	type_("\x1a") // C-z
	waitText(t, in, "Stopped")
	type_("jobs; echo jobs-done\r")
	text := waitText(t, in, "jobs-done\n")
	if !strings.Contains(text, "sleep 300") {
		t.Fatalf("jobs does not list the stopped sleep:\n%s", text)
	}
	type_("fg\r")
	time.Sleep(300 * time.Millisecond)
	type_("\x03") // C-c ends the job brought back
	type_("echo back-$((6*7))\r")
	waitText(t, in, "back-42")
}

// A sandboxed pane ends entirely when it closes: a daemon that left its group and session
// (double fork, setsid, environment cleared: the reaper cannot find it by its tag) dies with the
// pid namespace.
func TestSandboxedPaneEndsEntirely(t *testing.T) {
	needSandbox(t)
	h := newTestHost(t, Config{})
	const mark = "3177.5"
	in, err := h.Open(OpenSpec{Shell: true, Sandbox: true, Argv: []string{"/bin/sh", "-c",
		"(env -i setsid sh -c 'sleep " + mark + " & exit' &); echo started; exec sleep 300"}})
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, in, "started")
	var daemon int
	deadline := time.Now().Add(hangGuard)
	for daemon == 0 {
		daemon = findSleep(mark)
		if time.Now().After(deadline) {
			t.Fatal("the daemon never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if sid, _ := unix.Getsid(daemon); sid == in.Process().Pid() {
		t.Fatalf("the daemon %d is still in the pane's session: it proves nothing", daemon)
	}
	if err := h.Remove(in.ID()); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(hangGuard)
	for processExists(daemon) && !isZombie(daemon) {
		if time.Now().After(deadline) {
			syscall.Kill(daemon, syscall.SIGKILL)
			t.Fatalf("the sandbox's daemon %d outlived the closed pane", daemon)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// findSleep is the pid of a running `sleep ARG`, or 0.
func findSleep(arg string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if string(b) == "sleep\x00"+arg+"\x00" && !isZombie(pid) {
			return pid
		}
	}
	return 0
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}

// Where bwrap is not on PATH, a sandboxed pane does not start (and never unsandboxed): the
// error says why and what to install.
func TestSandboxWithoutBwrapDoesNotStart(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	h := newTestHost(t, Config{})
	_, err := h.Open(OpenSpec{Shell: true, Sandbox: true, Argv: []string{"/bin/sh", "-c", "echo ran"}})
	if err == nil {
		t.Fatal("a sandboxed pane opened without bwrap on PATH")
	}
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), "apt install bubblewrap") {
		t.Fatalf("err = %v, want ErrNoSandbox saying to install bubblewrap", err)
	}
	if n := len(h.Instances()); n != 0 {
		t.Fatalf("%d instances after the failed open, want none", n)
	}
	// The policy decides the others: an agent's open is sandboxed unless it is off.
	for _, tc := range []struct {
		policy string
		spec   OpenSpec
		want   bool
	}{
		{"", OpenSpec{ByAgent: true}, true},
		{SandboxAgents, OpenSpec{}, false},
		{SandboxOff, OpenSpec{ByAgent: true}, false},
		{SandboxOff, OpenSpec{Sandbox: true}, true},
		{SandboxAll, OpenSpec{}, true},
	} {
		h := &Host{sandbox: Sandbox{Policy: tc.policy}}
		if got := h.Sandboxed(tc.spec); got != tc.want {
			t.Errorf("policy %q, %+v: Sandboxed = %v, want %v", tc.policy, tc.spec, got, tc.want)
		}
	}
}
