package sshtest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func ssh(h *Host, args ...string) *exec.Cmd {
	return exec.Command("ssh", append(append(h.SSHArgs(), "-T", h.Dest()), args...)...)
}

// Two hosts on one machine are two machines to what runs in their sessions: each session has its
// host's own HOME, XDG directories and TICKMUX_SOCKET, and the extra variables asked for.
func TestEachHostItsOwnEnvironment(t *testing.T) {
	t.Parallel()
	a := Start(t, Options{Env: map[string]string{"FOO": "a b"}})
	b := Start(t, Options{Alias: "other"})
	if a.Dest() != "sshtest" || b.Dest() != "other" {
		t.Errorf("aliases %q and %q", a.Dest(), b.Dest())
	}
	for _, h := range []*Host{a, b} {
		out, err := ssh(h, `printf '%s|%s|%s|%s|%s|%s\n' "$HOME" "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" "$TICKMUX_SOCKET" "$FOO" "$USER"`).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s: %v\n%s", h.Dest(), err, out)
		}
		got := strings.Split(strings.TrimSpace(string(out)), "|")
		want := []string{h.Env["HOME"], h.Env["XDG_RUNTIME_DIR"], h.Env["XDG_STATE_HOME"], h.Env["TICKMUX_SOCKET"], h.Env["FOO"]}
		if len(got) != 6 || strings.Join(got[:5], "|") != strings.Join(want, "|") {
			t.Errorf("%s's session has %q, want %q", h.Dest(), got, want)
		}
		if !strings.HasPrefix(h.Env["TICKMUX_SOCKET"], h.Dir+"/") {
			t.Errorf("TICKMUX_SOCKET %q is not under %s", h.Env["TICKMUX_SOCKET"], h.Dir)
		}
	}
	if a.Env["FOO"] != "a b" || b.Env["FOO"] != "" {
		t.Errorf("FOO: %q, %q", a.Env["FOO"], b.Env["FOO"])
	}
	if exe, _ := os.Readlink("/proc/" + strconv.Itoa(a.Pid()) + "/exe"); exe != SSHD {
		t.Errorf("Pid %d runs %q, not %s", a.Pid(), exe, SSHD)
	}
}

// The host's key is the only one the client takes: another host's key under the same alias
// fails as ssh's host key check does, without a prompt.
func TestHostKeyIsChecked(t *testing.T) {
	t.Parallel()
	a := Start(t, Options{})
	b := Start(t, Options{})
	// a's client config with b's known_hosts: the same alias, another key.
	conf, err := os.ReadFile(filepath.Join(a.Dir, "ssh_config"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.ReplaceAll(string(conf), filepath.Join(a.Dir, "known_hosts"), filepath.Join(b.Dir, "known_hosts"))
	badFile := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(badFile, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ssh", "-F", badFile, "-T", a.Dest(), "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Host key verification failed") {
		t.Errorf("ssh with another host's key: %v, %q", err, out)
	}
}

// Stop kills sshd, the sessions still connected, and what a session left running detached from
// it (setsid, its own session, no longer below sshd).
func TestStopKillsEverySession(t *testing.T) {
	t.Parallel()
	h := Start(t, Options{})
	pids := filepath.Join(h.Dir, "pids")
	// One session detaches a process and ends; another stays connected.
	if out, err := ssh(h, "setsid sh -c 'echo $$ >> "+pids+"; exec sleep 300' </dev/null >/dev/null 2>&1 &").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	live := ssh(h, "echo $$ >> "+pids+"; echo started; exec sleep 300")
	stdout, err := live.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer live.Wait()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "started\n" {
		t.Fatalf("session said %q", line)
	}
	var started []int
	for _, f := range strings.Fields(readFile(t, pids)) {
		p, _ := strconv.Atoi(f)
		started = append(started, p)
	}
	if len(started) != 2 {
		t.Fatalf("pids %v", started)
	}
	sessions := h.Sessions()
	for _, p := range started {
		if !alive(p) || !slices.Contains(sessions, p) {
			t.Fatalf("session process %d: alive %v, in Sessions %v", p, alive(p), sessions)
		}
	}
	sshd := h.Pid()
	h.Stop()
	for _, p := range append(started, sshd) {
		if alive(p) {
			t.Errorf("process %d outlived Stop", p)
		}
	}
	if err := live.Wait(); err == nil {
		t.Error("the connected ssh ended well after its server was killed")
	}
	if out, err := ssh(h, "true").CombinedOutput(); err == nil || !strings.Contains(string(out), "Connection refused") {
		t.Errorf("ssh after Stop: %v, %q", err, out)
	}
}

// Freeze makes the host hang: a session's output stops, no new login completes; Thaw resumes
// both.
func TestFreezeHangsTheHost(t *testing.T) {
	t.Parallel()
	h := Start(t, Options{})
	s := ssh(h, "while :; do echo tick; sleep 0.02; done")
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	lines := make(chan string, 1000)
	go func() { // owner: this test; ends when ssh is killed
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	<-lines
	frozen := h.Freeze()
	if len(frozen) < 3 { // sshd, the connection, the session's shell (and its sleep)
		t.Errorf("Freeze stopped %v", frozen)
	}
	// Drain what was in flight, then nothing comes.
	for quiet := false; !quiet; {
		select {
		case <-lines:
		case <-time.After(500 * time.Millisecond):
			quiet = true
		}
	}
	start := time.Now()
	out, err := ssh(h, "-o", "ConnectTimeout=1", "true").CombinedOutput()
	if err == nil {
		t.Errorf("a login to a frozen host worked: %q", out)
	}
	t.Logf("a new login to the frozen host failed after %v: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(string(out)))
	h.Thaw()
	select {
	case <-lines:
	case <-time.After(10 * time.Second):
		t.Fatal("no output 10 s after Thaw")
	}
	if out, err := ssh(h, "echo back").CombinedOutput(); err != nil || string(out) != "back\n" {
		t.Errorf("after Thaw: %v, %q", err, out)
	}
}

// With Delay, every byte takes Delay each way: an echo through the session takes at least two.
func TestDelayHoldsBytes(t *testing.T) {
	t.Parallel()
	const delay = 375 * time.Millisecond
	h := Start(t, Options{Delay: delay})
	c := ssh(h, "cat")
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	fmt.Fprintln(in, "warm")
	if line, err := r.ReadString('\n'); line != "warm\n" {
		t.Fatalf("%q %v", line, err)
	}
	login := time.Since(start)
	var rtts []time.Duration
	for i := range 3 {
		start := time.Now()
		fmt.Fprintf(in, "line %d\n", i)
		if line, err := r.ReadString('\n'); line != fmt.Sprintf("line %d\n", i) {
			t.Fatalf("%q %v", line, err)
		}
		rtts = append(rtts, time.Since(start))
	}
	in.Close()
	io.Copy(io.Discard, r)
	if err := c.Wait(); err != nil {
		t.Errorf("ssh: %v", err)
	}
	t.Logf("login and first echo %v; echoes %v", login.Round(time.Millisecond), rtts)
	for _, d := range rtts {
		if d < 2*delay { // a lower bound the relay guarantees, not a timing guess
			t.Errorf("an echo took %v, less than twice the delay", d)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
