package host

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// A sandboxed pane runs its program under bubblewrap (bwrap): its own pid namespace (it sees only
// its own processes and cannot signal or ptrace any other), a fresh /dev with its own devpts (no
// other terminal, the person's included; the pane's PTY stays its controlling terminal on fds
// 0-2), the root file system read-only but for the pane's directory and Sandbox.Write, a private
// /tmp, and none of tickmux's own files: the person's control socket and its directory, the
// runtime directory, the config, the journal and the log are hidden. It reaches tickmux only
// through the agent socket, bound at SandboxSocketPath, which serves the agent methods and never
// a view. The network is shared. Where bwrap cannot make the sandbox, the pane does not start.

// Sandbox policies: which panes run in a sandbox (config `sandbox`).
const (
	SandboxOff    = "off"    // none, unless asked for (open --sandbox, prefix S)
	SandboxAgents = "agents" // the panes agents open (the open method), and those asked for
	SandboxAll    = "all"    // every pane
)

// SandboxSocketPath is where a sandboxed program finds the agent socket ($TICKMUX_SOCKET there).
// /tmp is the sandbox's own tmpfs, so the path can be made whatever the host's / holds.
const SandboxSocketPath = "/tmp/tickmux/agent.sock"

// EnvSandbox is set to 1 in a sandboxed pane.
const EnvSandbox = "TICKMUX_SANDBOX"

// Sandbox is how the host sandboxes a pane (Config.Sandbox).
type Sandbox struct {
	// Policy is SandboxOff, SandboxAgents or SandboxAll ("" is SandboxAgents).
	Policy string
	// Write lists what a sandboxed program may write besides its pane's directory; nil means
	// $HOME. Paths that do not exist are left out.
	Write []string
	// Hide lists directories and files a sandboxed program must not see (the control socket's
	// directory, the runtime directory, the config, the journal, the log). $XDG_RUNTIME_DIR is
	// always hidden.
	Hide []string
	// AgentSocket is the agent socket's path on the host ("" when none listens: the sandboxed
	// program cannot reach tickmux).
	AgentSocket string
}

// sandboxPlan is what sandboxArgv needs, every path checked to exist.
type sandboxPlan struct {
	bwrap       string
	userns      bool     // not root: ask for a user namespace (bwrap needs one to mount)
	dir         string   // the pane's directory: read-write, the program's working directory
	write       []string // directories bound read-write
	hideDirs    []string // an empty tmpfs over each
	hideFiles   []string // /dev/null over each
	keep        []string // bound read-only after the hides: PATH entries and programs they would hide
	agentSocket string   // bound at SandboxSocketPath
	argv        []string // the program, argv[0] resolved
}

// sandboxArgv is bwrap's command line for plan: a pure function of it. The order matters: bwrap
// mounts in order, so the hides come after the read-write binds they may sit in (the config
// under $HOME), and what the hides must not take (tickmux on PATH) is bound back after them.
func sandboxArgv(p sandboxPlan) []string {
	a := []string{p.bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-cgroup-try"}
	if p.userns {
		a = append(a, "--unshare-user-try")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	hidden := []string{"/tmp"}
	for _, w := range dedupe(append([]string{p.dir}, p.write...)) {
		if w != "/" { // never the whole file system: a pane opened in / writes nothing
			a = append(a, "--bind", w, w)
		}
	}
	for _, h := range outermost(p.hideDirs) {
		if !under(h, hidden) {
			a = append(a, "--tmpfs", h)
			hidden = append(hidden, h)
		}
	}
	for _, f := range dedupe(p.hideFiles) {
		if !under(f, hidden) {
			a = append(a, "--ro-bind", "/dev/null", f)
		}
	}
	for _, k := range dedupe(p.keep) {
		a = append(a, "--ro-bind", k, k)
	}
	if p.agentSocket != "" {
		a = append(a, "--ro-bind", p.agentSocket, SandboxSocketPath, "--setenv", "TICKMUX_SOCKET", SandboxSocketPath)
	} else {
		a = append(a, "--unsetenv", "TICKMUX_SOCKET")
	}
	a = append(a, "--setenv", EnvSandbox, "1", "--setenv", "TMPDIR", "/tmp", "--chdir", p.dir, "--")
	return append(a, p.argv...)
}

// under reports whether path is one of dirs or inside one of them.
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// dedupe keeps the first of each path, in order.
func dedupe(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// outermost sorts dirs and drops those inside another: one tmpfs over the outer hides both.
func outermost(dirs []string) []string {
	ds := dedupe(dirs)
	sort.Strings(ds)
	var out []string
	for _, d := range ds {
		if !under(d, out) {
			out = append(out, d)
		}
	}
	return out
}

// planSandbox checks sb's paths for a program at path (argv[0] resolved) run in dir.
func planSandbox(sb *Sandbox, bwrap, dir string, argv []string) sandboxPlan {
	p := sandboxPlan{bwrap: bwrap, userns: os.Geteuid() != 0, dir: dir, argv: argv}
	if abs, ok := existing(sb.AgentSocket); ok {
		p.agentSocket = abs // else none listens: the program cannot reach tickmux
	}
	write := sb.Write
	if write == nil {
		if home, err := os.UserHomeDir(); err == nil {
			write = []string{home}
		}
	}
	for _, w := range write {
		if abs, ok := existing(w); ok {
			p.write = append(p.write, abs)
		}
	}
	hide := append([]string{os.Getenv("XDG_RUNTIME_DIR"), fmt.Sprintf("/run/user/%d", os.Getuid())}, sb.Hide...)
	for _, h := range hide {
		abs, ok := existing(h)
		if !ok {
			continue
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			p.hideDirs = append(p.hideDirs, abs)
		} else {
			p.hideFiles = append(p.hideFiles, abs)
		}
	}
	hidden := append([]string{"/tmp"}, p.hideDirs...)
	// What the programs run by name must still be found: PATH entries the hides would take
	// (tickmux's own private directory is in the temporary directory), the program itself.
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if abs, ok := existing(d); ok && under(abs, hidden) {
			p.keep = append(p.keep, abs)
		}
	}
	if len(argv) > 0 && under(argv[0], hidden) {
		p.keep = append(p.keep, argv[0])
	}
	// tickmux itself is bound read-only wherever it is: a sandboxed program may write $HOME, but
	// not replace the tickmux the person runs next.
	for _, name := range []string{"tickmux"} {
		if found, err := exec.LookPath(name); err == nil {
			if real, err := filepath.EvalSymlinks(found); err == nil {
				p.keep = append(p.keep, real)
			}
		}
	}
	if self, err := os.Executable(); err == nil && filepath.Base(self) == "tickmux" {
		p.keep = append(p.keep, self)
	}
	return p
}

// existing is path made absolute (a leading ~ is $HOME) when something is there.
func existing(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		path = filepath.Join(home, path[1:])
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	if _, err := os.Stat(abs); err != nil {
		return "", false
	}
	return abs, true
}

// ErrNoSandbox wraps every reason a sandboxed pane cannot start.
var ErrNoSandbox = errors.New("cannot start a sandboxed pane")

// sandboxProbes caches, by bwrap's path, whether it can make a sandbox here (nil) or why not.
var sandboxProbes struct {
	mu  sync.Mutex
	err map[string]error
}

// SandboxAvailable returns the bwrap a sandboxed pane would run, or why none can start: bwrap
// is not on PATH, or it cannot make the namespaces here (unprivileged user namespaces off). The
// answer for a bwrap is found once, by running it (`bwrap ... true`), and kept.
func SandboxAvailable() (string, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("%w: bubblewrap (bwrap) is not on PATH; install bubblewrap (apt install bubblewrap, dnf install bubblewrap)", ErrNoSandbox)
	}
	sandboxProbes.mu.Lock()
	defer sandboxProbes.mu.Unlock()
	if err, ok := sandboxProbes.err[bwrap]; ok {
		return bwrap, err
	}
	err = probeSandbox(bwrap)
	if sandboxProbes.err == nil {
		sandboxProbes.err = map[string]error{}
	}
	sandboxProbes.err[bwrap] = err
	return bwrap, err
}

// probeSandbox runs bwrap with a sandbox's namespaces and mounts around true.
func probeSandbox(bwrap string) error {
	argv := sandboxArgv(sandboxPlan{bwrap: bwrap, userns: os.Geteuid() != 0, dir: "/", argv: []string{"true"}})
	var stderr bytes.Buffer
	cmd := exec.Command(bwrap, argv[1:]...)
	cmd.Stderr = &stderr
	if err := startTracked(cmd); err != nil {
		return fmt.Errorf("%w: cannot run %s: %v", ErrNoSandbox, bwrap, err)
	}
	if err := cmd.Wait(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		low := strings.ToLower(msg)
		if strings.Contains(low, "namespace") || strings.Contains(low, "uid map") || strings.Contains(low, "operation not permitted") {
			return fmt.Errorf("%w: unprivileged user namespaces are off (%s): sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu sysctl kernel.apparmor_restrict_unprivileged_userns=0", ErrNoSandbox, msg)
		}
		return fmt.Errorf("%w: bwrap cannot make a sandbox here: %s", ErrNoSandbox, msg)
	}
	return nil
}
