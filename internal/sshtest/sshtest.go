// Package sshtest runs a real OpenSSH server for tests: each Host is a /usr/sbin/sshd on
// 127.0.0.1 with its own host key, one authorized client key, and its own environment for every
// session (HOME, XDG_RUNTIME_DIR, XDG_STATE_HOME, XDG_CONFIG_HOME and TICKMUX_SOCKET under its own
// directory), so that several Hosts on one machine are several "machines", each with its own
// tickmux server. The client side is an ssh config file: `ssh -F FILE ALIAS` (Host.SSHArgs,
// Host.Dest) logs in with the generated key, checks the generated host key, and never prompts.
//
// It works as root (sshd then needs its privilege separation directory, /run/sshd, which Start
// makes when it is missing: /run is emptied at boot and only systemd's tmpfiles would make it)
// and as any other user whose login shell runs commands (sshd then logs in only its own user).
// Without /usr/sbin/sshd the test skips, and fails under CI=true, where
// scripts/install-test-deps installs it: a skip there would hide its absence.
//
// Stop (run by the test's cleanup) kills sshd, every process below it (the connections and their
// sessions) and every process that still carries the Host's mark in its environment (what a
// session left running after it ended, as a tickmux server that detached from it).
package sshtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// SSHD is the OpenSSH server the Hosts run.
const SSHD = "/usr/sbin/sshd"

// Mark is the variable every session of a Host gets, set to the Host's directory: Stop kills
// every process that carries it.
const Mark = "TICKMUX_SSHTEST_HOST"

// Options shape a Host.
type Options struct {
	// Env is set (sshd's SetEnv) in every session, over the defaults: HOME, XDG_RUNTIME_DIR,
	// XDG_STATE_HOME, XDG_CONFIG_HOME and TICKMUX_SOCKET, each under the Host's directory.
	Env map[string]string
	// Delay, when > 0, puts a relay between ssh and sshd (the client's ProxyCommand, python3)
	// that holds every byte Delay in each direction, as a slow network would.
	Delay time.Duration
	// Alias is the Host name in the client's config ("sshtest" when empty).
	Alias string
}

// Host is one running sshd and the client configuration that reaches it.
type Host struct {
	// Dir holds the keys, the configurations, sshd's log and the sessions' directories. Its path
	// is short (under the temporary directory, not the test's), for the sockets made below it.
	Dir string
	// Env is what every session gets (SetEnv): the defaults, Options.Env, and Mark.
	Env map[string]string

	t        testing.TB
	alias    string
	port     int
	config   string // the client's config file
	user     string
	cmd      *exec.Cmd
	exited   chan struct{} // closed once cmd is waited
	stopOnce sync.Once
}

// Start starts a Host; the test's cleanup stops it.
func Start(t testing.TB, opts Options) *Host {
	t.Helper()
	if st, err := os.Stat(SSHD); err != nil || st.Mode()&0o111 == 0 {
		skip(t, "no OpenSSH server here (%s: %v); scripts/install-test-deps installs it", SSHD, err)
	}
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			skip(t, "no %s here (%v); scripts/install-test-deps installs it", tool, err)
		}
	}
	if opts.Delay > 0 {
		if _, err := exec.LookPath("python3"); err != nil {
			skip(t, "Options.Delay needs python3 for its relay: %v", err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("sshtest: who runs this test: %v", err)
	}
	if shell := loginShell(u.Uid); shell != "" && (filepath.Base(shell) == "nologin" || filepath.Base(shell) == "false") {
		skip(t, "user %s's login shell is %s: sshd runs every session's command through it, so no command can run", u.Username, shell)
	}
	if os.Geteuid() == 0 {
		// sshd running as root insists on its privilege separation directory (owned by root,
		// not writable by others). Debian's package makes it only through systemd's tmpfiles.
		if err := os.Mkdir("/run/sshd", 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			skip(t, "sshd as root needs /run/sshd: %v", err)
		}
	}

	dir, err := os.MkdirTemp("", "sshtest-")
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{Dir: dir, t: t, alias: opts.Alias, user: u.Username, exited: make(chan struct{})}
	if h.alias == "" {
		h.alias = "sshtest"
	}
	t.Cleanup(func() {
		h.Stop()
		if !t.Failed() {
			os.RemoveAll(dir)
		} else {
			t.Logf("sshtest: %s kept (sshd's log: %s)", dir, filepath.Join(dir, "sshd.log"))
		}
	})

	h.Env = map[string]string{
		"HOME":            filepath.Join(dir, "home"),
		"XDG_RUNTIME_DIR": filepath.Join(dir, "run"),
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"TICKMUX_SOCKET":  filepath.Join(dir, "run", "tickmux.sock"),
	}
	for k, v := range opts.Env {
		if k == "" || strings.ContainsAny(k, "= \t\n\"") || strings.ContainsAny(v, "\n\"") {
			t.Fatalf("sshtest: Options.Env %q=%q: sshd's SetEnv cannot carry it", k, v)
		}
		h.Env[k] = v
	}
	h.Env[Mark] = dir
	for _, d := range []string{"home", "run", "state", "config"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}

	for _, key := range []string{"host_key", "client_key"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sshtest "+key, "-f", filepath.Join(dir, key)).CombinedOutput()
		if err != nil {
			t.Fatalf("sshtest: ssh-keygen: %v\n%s", err, out)
		}
	}
	clientPub := h.read("client_key.pub")
	hostPub := h.read("host_key.pub")
	h.write("authorized_keys", clientPub)
	h.write("known_hosts", h.alias+" "+strings.TrimSpace(hostPub)+"\n")
	if opts.Delay > 0 {
		h.write("relay.py", relay)
	}

	var started bool
	for try := 0; try < 5 && !started; try++ {
		started = h.startSSHD(try == 4)
	}
	h.writeClientConfig(opts.Delay)
	h.probe()
	return h
}

// skip skips the test with the reason, or fails it under CI=true (scripts/install-test-deps
// installs OpenSSH there: a skip would hide its absence).
func skip(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("sshtest: "+format, args...)
	}
	t.Skipf("sshtest: "+format, args...)
}

// startSSHD starts sshd on a free port; false when the port was taken meanwhile (and last is
// false: the caller tries another).
func (h *Host) startSSHD(last bool) bool {
	t := h.t
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	var setenv strings.Builder
	for _, k := range slices.Sorted(maps.Keys(h.Env)) {
		fmt.Fprintf(&setenv, " \"%s=%s\"", k, h.Env[k])
	}
	conf := fmt.Sprintf(`# sshtest: one fake host
ListenAddress 127.0.0.1
Port %d
HostKey %s
AuthorizedKeysFile %s
PidFile none
UsePAM no
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers %s
PermitUserEnvironment no
UseDNS no
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowAgentForwarding no
LogLevel VERBOSE
SetEnv%s
`, h.port, filepath.Join(h.Dir, "host_key"), filepath.Join(h.Dir, "authorized_keys"), h.user, setenv.String())
	h.write("sshd_config", conf)
	logPath := filepath.Join(h.Dir, "sshd.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(SSHD, "-D", "-e", "-f", filepath.Join(h.Dir, "sshd_config"))
	cmd.Stdout, cmd.Stderr = logf, logf
	// The mark in sshd's own environment marks its connections too (the sessions get it through
	// SetEnv): Stop finds them all even once sshd is gone.
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", Mark + "=" + h.Dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("sshtest: %s: %v", SSHD, err)
	}
	exited := make(chan struct{})
	go func() { // owner: this Host; ends when sshd does
		cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		log := h.Log()
		if strings.Contains(log, fmt.Sprintf("Server listening on 127.0.0.1 port %d", h.port)) {
			h.cmd, h.exited = cmd, exited
			return true
		}
		select {
		case <-exited:
			if strings.Contains(log, "Address already in use") && !last {
				return false
			}
			skip(t, "%s exited at its start (%v); its log:\n%s", SSHD, cmd.ProcessState, log)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("sshtest: %s did not listen within 10 s; its log:\n%s", SSHD, h.Log())
		}
	}
}

func (h *Host) writeClientConfig(delay time.Duration) {
	conf := fmt.Sprintf(`# sshtest: the client's side of one fake host
Host %s
	HostName 127.0.0.1
	Port %d
	User %s
	HostKeyAlias %s
	IdentityFile %s
	IdentitiesOnly yes
	IdentityAgent none
	PubkeyAuthentication yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UserKnownHostsFile %s
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	UpdateHostKeys no
	CheckHostIP no
	BatchMode yes
	ControlMaster no
	ControlPath none
	LogLevel ERROR
`, h.alias, h.port, h.user, h.alias, filepath.Join(h.Dir, "client_key"), filepath.Join(h.Dir, "known_hosts"))
	if delay > 0 {
		conf += fmt.Sprintf("\tProxyCommand python3 %s 127.0.0.1 %d %.3f\n", filepath.Join(h.Dir, "relay.py"), h.port, delay.Seconds())
	}
	h.config = filepath.Join(h.Dir, "ssh_config")
	h.write("ssh_config", conf)
}

// probe logs in once (without the relay), so that a Host that cannot run a session says why at
// its start rather than in the test's first ssh.
func (h *Host) probe() {
	cmd := exec.Command("ssh", "-F", h.config, "-o", "ProxyCommand=none", "-T", h.alias, "echo sshtest-ok")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = nil
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // owner: probe; ends with ssh
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		err = fmt.Errorf("no answer in 20 s: %v", <-done)
	}
	if err != nil || strings.TrimSpace(out.String()) != "sshtest-ok" {
		skip(h.t, "sshd runs but refuses a session (%v): ssh said %q; sshd's log:\n%s", err, errb.String(), h.Log())
	}
}

// SSHArgs are the arguments that give ssh this Host's client configuration: ["-F", FILE].
func (h *Host) SSHArgs() []string { return []string{"-F", h.config} }

// Dest is the destination to give ssh with SSHArgs: the alias of the client's config.
func (h *Host) Dest() string { return h.alias }

// Pid is sshd's listener. Stopping it (SIGSTOP) stops new connections only: each connection is
// its own process below it; Freeze stops them all.
func (h *Host) Pid() int { return h.cmd.Process.Pid }

// Log is what sshd logged so far.
func (h *Host) Log() string {
	b, _ := os.ReadFile(filepath.Join(h.Dir, "sshd.log"))
	return string(b)
}

// Freeze stops (SIGSTOP) sshd and every process of its connections and sessions: the host hangs,
// its TCP connections open and silent, as a machine asleep or cut off by the network. Thaw
// undoes it.
func (h *Host) Freeze() []int { return h.signalTree(unix.SIGSTOP) }

// Thaw continues (SIGCONT) what Freeze stopped.
func (h *Host) Thaw() { h.signalTree(unix.SIGCONT) }

// Sessions lists the processes below sshd (its connections and their sessions) and those that
// carry the Host's mark.
func (h *Host) Sessions() []int {
	var pids []int
	for _, p := range h.tree() {
		if p != h.Pid() {
			pids = append(pids, p)
		}
	}
	return pids
}

// signalTree sends sig to sshd and everything below it, top first, until no new process shows.
func (h *Host) signalTree(sig unix.Signal) []int {
	sent := map[int]bool{}
	for range 50 {
		n := len(sent)
		for _, p := range h.tree() {
			if !sent[p] {
				sent[p] = true
				unix.Kill(p, sig)
			}
		}
		if len(sent) == n {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return slices.Sorted(maps.Keys(sent))
}

// Stop kills sshd, its connections and sessions, and every process that carries the Host's
// mark, and waits until they are gone. The test's cleanup calls it; calling it earlier shows a
// host that went away (connections refused).
func (h *Host) Stop() {
	h.stopOnce.Do(func() {
		if h.cmd == nil {
			return
		}
		// Stopped processes cannot fork: the set is complete once a pass finds nothing new.
		pids := h.signalTree(unix.SIGSTOP)
		for _, p := range pids {
			unix.Kill(p, unix.SIGKILL)
		}
		select {
		case <-h.exited:
		case <-time.After(10 * time.Second):
			h.t.Errorf("sshtest: sshd (pid %d) still runs 10 s after SIGKILL", h.Pid())
		}
		deadline := time.Now().Add(10 * time.Second)
		for _, p := range pids {
			for alive(p) && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if alive(p) {
				h.t.Errorf("sshtest: process %d of sshd's sessions still runs 10 s after SIGKILL", p)
			}
		}
	})
}

// tree is sshd, every process below it, and every process whose environment carries the mark.
func (h *Host) tree() []int {
	if h.cmd == nil {
		return nil
	}
	procs := readProcs()
	children := map[int][]int{}
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	in := map[int]bool{}
	var walk func(int)
	walk = func(pid int) {
		if in[pid] {
			return
		}
		in[pid] = true
		for _, c := range children[pid] {
			walk(c)
		}
	}
	select {
	case <-h.exited: // its pid may be another process's by now
	default:
		walk(h.Pid())
	}
	mark := []byte(Mark + "=" + h.Dir + "\x00")
	self := os.Getpid()
	for pid := range procs {
		if in[pid] || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && (bytes.HasPrefix(env, mark) || bytes.Contains(env, append([]byte{0}, mark...))) {
			walk(pid)
		}
	}
	var out []int
	for pid := range in {
		if p, ok := procs[pid]; ok && p.state != 'Z' {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	// sshd first: it forks connections, so stop it before them.
	if i := slices.Index(out, h.Pid()); i > 0 && in[h.Pid()] {
		out = append([]int{h.Pid()}, slices.Delete(out, i, i+1)...)
	}
	return out
}

type proc struct {
	ppid  int
	state byte
}

// readProcs reads every process's parent and state from /proc.
func readProcs() map[int]proc {
	out := map[int]proc{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold anything, so read after its last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		out[pid] = proc{ppid: ppid, state: f[0][0]}
	}
	return out
}

// alive: the process exists and is not a zombie (a zombie is gone but for its parent's wait).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// loginShell is uid's shell in /etc/passwd ("" when it cannot be read).
func loginShell(uid string) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), ":")
		if len(p) >= 7 && p[2] == uid {
			return p[6]
		}
	}
	return ""
}

func (h *Host) read(name string) string {
	b, err := os.ReadFile(filepath.Join(h.Dir, name))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *Host) write(name, text string) {
	if err := os.WriteFile(filepath.Join(h.Dir, name), []byte(text), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// relay is the ProxyCommand of Options.Delay: it copies stdin to a TCP connection and the
// connection to stdout, each chunk written Delay after it was read (latency, not a narrower
// pipe), and exits when either side ends (ssh's end first: it never outlives its ssh).
const relay = `import os, queue, socket, sys, threading, time
host, port, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection((host, port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
def reader(read, q):
    while True:
        try:
            b = read()
        except OSError:
            b = b""
        q.put((time.monotonic() + delay, b))
        if not b:
            return
def writer(q, write, last):
    while True:
        at, b = q.get()
        wait = at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        if not b:
            last()
            return
        try:
            write(b)
        except OSError:
            os._exit(0)
def to_stdout(b):
    while b:
        n = os.write(1, b)
        b = b[n:]
up, down = queue.Queue(), queue.Queue()
threading.Thread(target=reader, args=(lambda: os.read(0, 65536), up), daemon=True).start()
threading.Thread(target=reader, args=(lambda: s.recv(65536), down), daemon=True).start()
threading.Thread(target=writer, args=(down, to_stdout, lambda: os._exit(0)), daemon=True).start()
writer(up, s.sendall, lambda: os._exit(0))
`
