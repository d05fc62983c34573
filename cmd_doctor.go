package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"tickmux/host"
	"tickmux/internal/flagusage"
)

// A fact is one thing about this machine that decides what a program in a pane can do against
// the person's cards (docs/agents.md, "What a card does and does not stop").
type fact struct {
	Name    string `json:"name"`
	Value   string `json:"value"`   // what was read, as read
	Risk    bool   `json:"risk"`    // true: it opens a way around the cards
	Meaning string `json:"meaning"` // what it means for tickmux, in a sentence
}

// machine is where doctor reads its facts: the real machine, or a made-up one in tests.
type machine struct {
	uid      int
	readFile func(string) ([]byte, error)
	sandbox  func() (string, error) // the bwrap a sandboxed pane would run, and why it cannot (host.SandboxAvailable)
	peerPid  func() error           // SO_PEERPIDFD on a socket pair
}

func realMachine() machine {
	return machine{
		uid:      os.Getuid(),
		readFile: os.ReadFile,
		sandbox:  host.SandboxAvailable,
		peerPid:  soPeerPidfd,
	}
}

// runDoctor prints what this machine lets a program in a pane do, and what tickmux does about it.
func runDoctor(args []string, std stdio) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(std.err)
	asJSON := fs.Bool("json", false, "print the facts as a JSON array")
	fs.Usage = func() {
		usageHead(std.err, "doctor")
		flagusage.Print(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	facts := diagnose(realMachine())
	if *asJSON {
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(facts)
		return 0
	}
	risks := 0
	for _, f := range facts {
		mark := "ok  "
		if f.Risk {
			mark, risks = "RISK", risks+1
		}
		fmt.Fprintf(std.out, "%s %-22s %s\n     %s\n", mark, f.Name, f.Value, f.Meaning)
	}
	if risks == 0 {
		fmt.Fprintln(std.out, "\nNothing on this machine opens a way around the cards that tickmux does not close.")
	} else {
		fmt.Fprintf(std.out, "\n%d of these open a way around the cards for a program in an ordinary pane; in a sandboxed pane (tickmux open --sandbox) none do.\n", risks)
	}
	return 0
}

// diagnose reads the facts of m.
func diagnose(m machine) []fact {
	var out []fact
	if m.uid == 0 {
		out = append(out, fact{"user", "root", true,
			"a program in an ordinary pane runs as root: it can open, type into (TIOCSTI) and trace any terminal, " +
				"the person's included; only a sandboxed pane holds it"})
	} else {
		out = append(out, fact{"user", "uid " + strconv.Itoa(m.uid), false,
			"a program in a pane runs as you: it cannot open the terminal a view holds (tickmux makes it exclusive) " +
				"nor trace the view (undumpable)"})
	}
	out = append(out, yama(m))
	out = append(out, tiocsti(m))
	out = append(out, userns(m))
	out = append(out, bubblewrap(m))
	if err := m.peerPid(); err != nil {
		out = append(out, fact{"SO_PEERPIDFD", "not available: " + err.Error(), true,
			"the kernel (before 6.5) names a socket's client by pid only: tickmux pins it as soon as it looks, " +
				"so a client that exits and has its pid taken between its connect and that look is not caught"})
	} else {
		out = append(out, fact{"SO_PEERPIDFD", "available", false,
			"the kernel pins the process at the other end of the control socket: a pane's program cannot pass " +
				"for an outside process by exiting and having its pid reused"})
	}
	return out
}

func readInt(m machine, path string) (int, bool) {
	b, err := m.readFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil
}

func yama(m machine) fact {
	const path = "/proc/sys/kernel/yama/ptrace_scope"
	n, ok := readInt(m, path)
	switch {
	case !ok:
		return fact{"ptrace (Yama)", "no Yama", true,
			"any process of your uid may trace any other (ptrace, pidfd_getfd): a program in a pane can take " +
				"the descriptors of your terminal emulator and type into it; tickmux's own view is undumpable"}
	case n == 0:
		return fact{"ptrace (Yama)", "ptrace_scope 0", true,
			"any process of your uid may trace any other (ptrace, pidfd_getfd): a program in a pane can take " +
				"the descriptors of your terminal emulator and type into it; tickmux's own view is undumpable"}
	default:
		return fact{"ptrace (Yama)", "ptrace_scope " + strconv.Itoa(n), false,
			"a process may trace only its own descendants (1) or none (2, 3): a program in a pane cannot reach " +
				"your terminal emulator this way"}
	}
}

func tiocsti(m machine) fact {
	n, ok := readInt(m, "/proc/sys/dev/tty/legacy_tiocsti")
	if ok && n == 0 {
		return fact{"TIOCSTI", "legacy_tiocsti 0", false,
			"pushing keys into a terminal's input needs CAP_SYS_ADMIN: a program cannot type into a terminal it " +
				"has open, not even its own pane's"}
	}
	value := "legacy_tiocsti 1"
	if !ok {
		value = "always on (a kernel before 6.2)"
	}
	return fact{"TIOCSTI", value, m.uid == 0,
		"a program may push keys into a terminal it has open: its own pane's (harmless: the pane's keys never " +
			"answer a card), and as root any terminal, the person's included"}
}

func userns(m machine) fact {
	max, ok := readInt(m, "/proc/sys/user/max_user_namespaces")
	if ok && max == 0 {
		return fact{"user namespaces", "max_user_namespaces 0", true,
			"no sandbox for a user but root: sysctl user.max_user_namespaces=15000 turns them on"}
	}
	if n, ok := readInt(m, "/proc/sys/kernel/unprivileged_userns_clone"); ok && n == 0 && m.uid != 0 {
		return fact{"user namespaces", "unprivileged_userns_clone 0", true,
			"no sandbox for a user but root: sysctl kernel.unprivileged_userns_clone=1 turns them on"}
	}
	if n, ok := readInt(m, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && n == 1 && m.uid != 0 {
		return fact{"user namespaces", "restricted by AppArmor", true,
			"bubblewrap needs an AppArmor profile that allows user namespaces (or " +
				"sysctl kernel.apparmor_restrict_unprivileged_userns=0)"}
	}
	return fact{"user namespaces", "on", false, "bubblewrap can give a pane its own pid namespace, terminals and file system"}
}

func bubblewrap(m machine) fact {
	// The very probe a sandboxed pane's open makes (the same namespaces and mounts), so doctor
	// says what the pane would meet.
	path, err := m.sandbox()
	switch {
	case path == "":
		return fact{"bubblewrap", "not installed", true,
			"sandboxed panes cannot start (tickmux never starts them unsandboxed): install bubblewrap " +
				"(apt install bubblewrap, dnf install bubblewrap)"}
	case err != nil:
		return fact{"bubblewrap", path + " fails: " + firstLine(strings.TrimPrefix(err.Error(), host.ErrNoSandbox.Error()+": ")), true,
			"sandboxed panes cannot start here; the line above says why and what to do"}
	}
	return fact{"bubblewrap", path + " works", false,
		"sandboxed panes start: their programs see only their own processes and terminals, and reach tickmux " +
			"only through the agent socket"}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// soPeerPidfd asks the kernel for a socket's peer as a pidfd, on a socket pair of its own.
func soPeerPidfd() error {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	fd, err := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	if err != nil {
		if errors.Is(err, unix.ENOPROTOOPT) {
			return errors.New("the kernel does not know SO_PEERPIDFD")
		}
		return err
	}
	unix.Close(fd)
	return nil
}
