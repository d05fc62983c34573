package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/host"
)

// A real server with sandbox = "all": its first shell runs sandboxed and reaches the server only
// through the agent socket, where `tickmux ls` works and a view's attach is refused.
func TestEndToEndSandboxedPane(t *testing.T) {
	if _, err := host.SandboxAvailable(); err != nil {
		if os.Getenv("CI") == "true" { // scripts/install-test-deps installs bubblewrap: a skip would hide its absence
			t.Fatalf("no sandbox here: %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
	dir := t.TempDir()
	socket := filepath.Join(dir, "s.sock")
	if err := os.MkdirAll(filepath.Join(dir, "tickmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tickmux", "config.toml"), []byte("sandbox = \"all\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "checks.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
echo "ps: $(ps -e -o comm= | tr '\n' ' ')"
echo "socket: $TICKMUX_SOCKET sandbox=$TICKMUX_SANDBOX"
echo "tmp: $(ls -A /tmp/tickmux)"
tickmux ls
tickmux attach; echo "attach-exit: $?"
echo checks-done
exec sleep 300
`), 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	cmd := exec.Command(self, "server", "--socket", socket)
	cmd.Env = append(os.Environ(), envAsMain+"=1", "XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir, "HOME="+dir, "SHELL="+script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // owner: the test; returns when the server exits
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	ctl := func(args ...string) string {
		c := exec.Command(self, append(args, "--socket", socket)...)
		c.Env = append(os.Environ(), envAsMain+"=1")
		out, _ := c.CombinedOutput()
		return string(out)
	}
	var screen string
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(screen, "checks-done") {
		if time.Now().After(deadline) {
			t.Fatalf("the sandboxed shell's checks never finished; its screen:\n%s", screen)
		}
		time.Sleep(100 * time.Millisecond)
		screen = ctl("screen", "shell:1")
	}
	t.Logf("the sandboxed pane's screen:\n%s", screen)
	for _, want := range []string{
		"ps: bwrap checks.sh checks.sh ps tr\n", // the subshell of $(...) and the pipe's tr
		"socket: " + host.SandboxSocketPath + " sandbox=1",
		"tmp: agent.sock",
		"ready,sandboxed",
		"view/attach is not served on the agent socket",
		"attach-exit: 1",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the sandboxed pane's screen lacks %q", want)
		}
	}
	// From outside, on the agent socket itself: a view's attach and kill-server are refused.
	for _, method := range []string{"view/attach", "view/kill-server"} {
		nc, err := net.Dial("unix", agent.AgentSocketPath(socket))
		if err != nil {
			t.Fatal(err)
		}
		nc.Write([]byte(`{"id":1,"method":"` + method + `","params":{"term":"xterm"}}` + "\n"))
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, _ := bufio.NewReader(nc).ReadString('\n')
		nc.Close()
		if !strings.Contains(line, `"error"`) || !strings.Contains(line, "is not served on the agent socket") {
			t.Errorf("%s on the agent socket answered %q, want a refusal", method, line)
		}
	}
	if out := ctl("ls"); !strings.Contains(out, "shell:1") {
		t.Fatalf("the server is gone after the refusals: %s", out)
	}
}

// sandboxedPaneChecks types, in session's focused pane (a sandboxed shell), what shows the
// sandbox from inside: ps -e lists only the pane's own processes, /dev/pts no other terminal, and
// tickmux attach is refused (the agent socket serves no view).
func sandboxedPaneChecks(t *testing.T, r *tmuxRig, session string) {
	t.Helper()
	// Markers the typed line cannot match: there a $( follows them.
	r.keysTo(session, `echo "PSLIST: $(ps -e -o comm= | tr '\n' ' ')ENDPS"`, "Enter")
	found := regexp.MustCompile(`PSLIST: ([^$┃│]*?)ENDPS`)
	s := r.waitUntil(session, "list the sandbox's processes", func(s string) bool { return found.MatchString(s) })
	for _, comm := range strings.Fields(found.FindStringSubmatch(s)[1]) {
		switch comm {
		case "bwrap", "sh", "ps", "tr": // bwrap (the namespace's init), the shell, $(...), the pipe
		default:
			t.Errorf("ps -e in the sandbox lists %q: %q", comm, found.FindStringSubmatch(s)[1])
		}
	}
	r.keysTo(session, `echo "PTS: $(ls /dev/pts | tr '\n' ' ')ENDPTS"`, "Enter")
	r.waitIn(session, "PTS: ptmx ENDPTS")
	r.keysTo(session, `tickmux attach; echo "ATTACH=$?"`, "Enter")
	s = r.waitIn(session, "ATTACH=1")
	if !strings.Contains(s, "view/attach is not served on the agent") {
		t.Errorf("tickmux attach in the sandbox did not say why it was refused:\n%s", s)
	}
}

// prefix S opens a sandboxed shell (its border says so; inside, ps -e shows only its processes,
// /dev/pts no other terminal, attach is refused); prefix R brings the ended sandboxed pane back
// sandboxed; tickmux --sandbox on the running server opens a sandboxed shell for its view.
// Key table (README "Using tickmux"): prefix `S`, prefix `R`.
func TestEndToEndSandboxKeys(t *testing.T) {
	if _, err := host.SandboxAvailable(); err != nil {
		if os.Getenv("CI") == "true" { // scripts/install-test-deps installs bubblewrap: a skip would hide its absence
			t.Fatalf("no sandbox here: %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1 sh · ready ━")
	r.prefix("S", "shell:2  sandboxed  sh · ready")
	sandboxedPaneChecks(t, r, "e2e")
	if out, _ := r.cli("ls").CombinedOutput(); !regexp.MustCompile(`shell:1\s+shell\s+ready\s`).Match(out) ||
		!regexp.MustCompile(`shell:2\s+shell\s+ready,sandboxed\s`).Match(out) {
		t.Errorf("tickmux ls:\n%s", out)
	}

	// Any status: dash's exit, in a pid namespace, fails to give the terminal back to the
	// process group it started in (bwrap's, outside the namespace) and exits 2.
	r.keys("exit 3", "Enter")
	ended := regexp.MustCompile(`shell:2  sandboxed  /bin/sh · ended \(exit status \d\)`)
	r.waitUntil("e2e", "show shell:2 ended", func(s string) bool { return ended.MatchString(s) })
	r.prefix("R", "shell:3  sandboxed  sh · ready")
	r.typeLine(`echo "SB=$TICKMUX_SANDBOX"`, "SB=1")
	if out, _ := r.cli("ls").CombinedOutput(); !regexp.MustCompile(`shell:3\s+shell\s+ready,sandboxed\s`).Match(out) {
		t.Errorf("the respawned pane is not sandboxed; tickmux ls:\n%s", out)
	}

	r.startIn("second", "--sandbox")
	r.waitIn("second", "shell:4  sandboxed  sh · ready")
	if out, _ := r.cli("ls").CombinedOutput(); !regexp.MustCompile(`shell:4\s+shell\s+ready,sandboxed\s`).Match(out) {
		t.Errorf("tickmux --sandbox on a running server; tickmux ls:\n%s", out)
	}
}

// The same checks as an ordinary user (tests run as root): tickmux --sandbox starts a new
// server as uid tu whose first shell is sandboxed, and prefix S opens another.
func TestEndToEndSandboxAsUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("plays the user with setpriv: needs root")
	}
	u, err := user.Lookup("tu")
	if err != nil {
		t.Skipf("no user tu to run tickmux as: %v", err)
	}
	if _, err := host.SandboxAvailable(); err != nil {
		if os.Getenv("CI") == "true" { // scripts/install-test-deps installs bubblewrap: a skip would hide its absence
			t.Fatalf("no sandbox here: %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
	probe := exec.Command("setpriv", "--reuid="+u.Uid, "--regid="+u.Gid, "--clear-groups", "bwrap", "--unshare-user-try", "--unshare-pid",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("bwrap cannot make a sandbox as %s here: %v %s", u.Username, err, out)
	}
	r := newTmuxRig(t)
	// The binary and a home the user can reach: the rig's directory is root's, 0700.
	dir, err := os.MkdirTemp("", "tickmux-as-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	bin := filepath.Join(dir, "bin", "tickmux")
	for _, d := range []string{filepath.Dir(bin), home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(r.self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	var uid, gid int
	fmt.Sscan(u.Uid, &uid)
	fmt.Sscan(u.Gid, &gid)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, uid, gid); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(home, "tickmux.sock")
	asUser := fmt.Sprintf("setpriv --reuid=%s --regid=%s --clear-groups env -u XDG_RUNTIME_DIR HOME=%[3]s XDG_STATE_HOME=%[3]s XDG_CONFIG_HOME=%[3]s TICKMUX_SOCKET=%[4]s",
		u.Uid, u.Gid, home, sock)
	defer func() {
		kill := exec.Command("sh", "-c", asUser+" "+bin+" kill-server")
		kill.Env, kill.Dir = r.env, home // the test binary plays tickmux
		_ = kill.Run()
	}()
	// Started in the user's home: the checkout may lie in a 0700 directory the user cannot enter.
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "e2e", "-c", home, asUser+" "+bin+" --sandbox")
	r.waitFor("shell:1  sandboxed  sh · ready")
	r.typeLine(`echo "UID=$(id -u)"`, "UID="+u.Uid)
	sandboxedPaneChecks(t, r, "e2e")
	r.prefix("S", "shell:2  sandboxed  sh · ready")
	sandboxedPaneChecks(t, r, "e2e")
	ls := exec.Command("sh", "-c", asUser+" "+bin+" ls")
	ls.Env = r.env
	if out, _ := ls.CombinedOutput(); !regexp.MustCompile(`shell:1\s+shell\s+ready,sandboxed\s`).Match(out) ||
		!regexp.MustCompile(`shell:2\s+shell\s+ready,sandboxed\s`).Match(out) {
		t.Errorf("tickmux ls as %s:\n%s", u.Username, out)
	}
}

// Where bwrap cannot run (here: not on PATH), tickmux --sandbox starts no shell, sandboxed or
// not: it says why and exits 1, and no server is left.
func TestEndToEndSandboxFlagWithoutBubblewrap(t *testing.T) {
	r := newTmuxRig(t)
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "e2e",
		"sh -c 'PATH=/nonexistent "+r.self+" --sandbox; echo \"rc=$?\"; sleep 100'")
	s := r.waitFor("rc=")
	t.Logf("the terminal:\n%s", strings.TrimSpace(s))
	if !strings.Contains(s, "rc=1") || !strings.Contains(s, "bubblewrap (bwrap) is not on PATH") {
		t.Fatalf("tickmux --sandbox without bwrap:\n%s", s)
	}
	if out, err := r.cli("ls").CombinedOutput(); err == nil {
		t.Fatalf("a server runs after the refused start:\n%s", out)
	}
}
