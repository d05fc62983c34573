package guardian

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

// The ancestor guardian stands between a view and the tickmux server the view starts
// (server.Start), so that nothing the server started outlives it:
//
//	view ──ForkExec, setsid──▶ guardian (child subreaper) ──ForkExec, setsid──▶ tickmux server
//	  reaps it                    │ socket (fd EnvInherited in the server)       │ subreaper
//	                              │                                              └─ panes, Ticks,
//	                              │                                                 their orphans
//	   server gone (any way): EOF ┴─▶ HUP/TERM the watched groups, KILL after 2 s; then stop
//	                                  (SIGSTOP) every process left below it, kill them, reap them
//
// While the server runs, orphans go to the server, the nearer subreaper, and the guardian's only
// child is the server. Once the server is gone they come to the guardian, setsid'd or not.

// EnvAncestor, set to the server's arguments (AncestorEnv), makes a binary that links this
// package run as the ancestor guardian of a tickmux server: the binary run again as its child,
// with those arguments.
const EnvAncestor = "TICKMUX_GUARDIAN_ANCESTOR"

// EnvInherited names the descriptor a process started by its ancestor guardian holds its end of
// the guardian's socket on (Inherited).
const EnvInherited = "TICKMUX_GUARDIAN_FD"

// descendantsGrace bounds how long the guardian spends ending what is left below it once the
// watched groups are dealt with: it always exits.
const descendantsGrace = 5 * time.Second

// AncestorEnv is the environment entry (NAME=VALUE) that has this binary run as the ancestor
// guardian of itself run with args (argv[0] its own). The guardian's own arguments stay empty:
// ps and the tests tell the server (`tickmux server ...`) from its guardian (`tickmux`) by them.
// Each argument is written as its length, a colon and itself.
func AncestorEnv(args []string) string {
	b := []byte(EnvAncestor + "=")
	for _, a := range args {
		b = append(append(append(b, itoa(len(a))...), ':'), a...)
	}
	return string(b)
}

// decodeArgs reads AncestorEnv's value back.
func decodeArgs(s string) ([]string, bool) {
	var args []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n := atoi(s[:i])
		if i == 0 || i == len(s) || s[i] != ':' || (n == 0 && s[:i] != "0") || len(s)-i-1 < n {
			return nil, false
		}
		args = append(args, s[i+1:i+1+n])
		s = s[i+1+n:]
	}
	return args, len(args) > 0
}

// readyFd is the descriptor the view waits on for the server's ready line (server.EnvReady): the
// guardian passes it on, and writes on it only when it cannot start the server.
const readyFd = 3

// runAncestor is the ancestor guardian: it starts the server (encoded: its arguments) as its
// child, listens to it as run does, and once it is gone ends the watched groups and then every
// descendant left. It runs in the init of this package: the main goroutine is still locked to
// the main thread, which forks the server and lives as long as the process (the server's
// parent-death signal follows the thread that forked it, not the process).
func runAncestor(encoded string) int {
	runtime.GOMAXPROCS(1) // one thing at a time; the server it starts keeps the person's setting
	runtime.LockOSThread()
	undumpable() // the server it starts is dumpable again at its exec, and makes itself undumpable
	args, ok := decodeArgs(encoded)
	if !ok {
		tellReady("error: the tickmux server's guardian was given no arguments")
		return 2
	}
	// Not fatal: orphans then go to init as before, and the watched groups are still ended.
	_, _, _ = syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		tellReady("error: the tickmux server's guardian cannot make its socket: " + err.Error())
		return 1
	}
	closeOnExecFrom(readyFd + 1) // the server gets 0-2, the ready pipe and the socket, nothing else
	files := []uintptr{0, 1, 2, readyFd, uintptr(fds[1])}
	for i := range readyFd + 1 {
		if !isOpen(i) {
			null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
			if err != nil {
				return 1
			}
			files[i] = uintptr(null)
		}
	}
	// The server's parent-death signal is SIGCHLD: it wakes the server's exit loop, which sees
	// its parent gone (host: a new guardian, its child, takes the groups over).
	_, err = syscall.ForkExec("/proc/self/exe", append([]string{os.Args[0]}, args...), &syscall.ProcAttr{
		Env:   append(os.Environ(), EnvInherited+"="+itoa(len(files)-1)),
		Files: files,
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGCHLD},
	})
	syscall.Close(fds[1])
	if err != nil {
		tellReady("error: the tickmux server's guardian cannot start it: " + err.Error())
		return 1
	}
	syscall.Close(readyFd) // the view reads EOF once the server closes its copy too
	// Only now: an ignored signal stays ignored across exec, and the server must see them.
	signal.Ignore(terminalSignals...)
	endGroups(listen(fds[0]), TerminateGrace)
	endDescendants(time.Now().Add(descendantsGrace)) // the server too: it is reaped with the rest
	return 0
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (prctl(2)).
const prSetChildSubreaper = 36

// tellReady writes line on the ready descriptor, where the view reads why the server did not
// start (server.ReadyLine's form).
func tellReady(line string) {
	b := []byte(line + "\n")
	_, _ = syscall.Write(readyFd, b)
}

// isOpen reports whether descriptor fd is open.
func isOpen(fd int) bool {
	_, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	return e == 0
}

// endDescendants ends every process below the guardian and reaps its children, until it has none
// left or deadline passes. Each round freezes the whole tree first (SIGSTOP: a stopped process
// starts no other), so that a program forking in a loop cannot outrun it, then kills it.
func endDescendants(deadline time.Time) {
	self := os.Getpid()
	for reapChildren() && time.Now().Before(deadline) {
		tree := freeze(self, deadline)
		for _, pid := range tree {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond) // the killed exit; their children come to the guardian
	}
}

// reapChildren reaps the guardian's children that have exited and reports whether any is left.
func reapChildren() bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR || pid > 0:
			continue
		case err != nil:
			return false // ECHILD: none left
		}
		return true
	}
}

// freeze stops every live descendant of root and returns them: once two looks in a row found
// the same processes, all stopped (a process forked before its parent stopped is seen by the
// second), or at deadline, what the last look found.
func freeze(root int, deadline time.Time) []int {
	var last []int
	settled := false
	for {
		tree, stopped := stopTree(root)
		if stopped && settled && sameSet(tree, last) {
			return tree
		}
		if time.Now().After(deadline) {
			return tree
		}
		settled, last = stopped, tree
		if !stopped {
			time.Sleep(200 * time.Microsecond) // the SIGSTOPs land
		}
	}
}

// stopTree walks the descendants of root from the top, sends SIGSTOP to each one not stopped
// yet, and reports whether all of them were stopped already. Zombies are left out: they have
// ended, and the guardian reaps those that are its own.
func stopTree(root int) (tree []int, stopped bool) {
	stopped = true
	queue := children(root)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		state, _, _, ok := procStat(pid)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		if state != 'T' && state != 't' {
			stopped = false
			_ = syscall.Kill(pid, syscall.SIGSTOP)
		}
		tree = append(tree, pid)
		queue = append(queue, children(pid)...)
	}
	return tree, stopped
}

// children lists process pid's children: from each of its threads' children file (Linux 4.2
// with CONFIG_PROC_CHILDREN, as host's reaper), else from a scan of every process's parent.
func children(pid int) []int {
	dir := "/proc/" + itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if os.IsNotExist(err) && t.Name() == itoa(pid) {
			return scanChildren(pid) // no children files in this kernel
		}
		for _, f := range fields(b) {
			if kid := atoi(f); kid > 0 {
				kids = append(kids, kid)
			}
		}
	}
	return kids
}

// scanChildren lists process pid's children from every process's parent in /proc.
func scanChildren(pid int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, e := range dir {
		if p := atoi(e.Name()); p > 0 {
			if _, ppid, _, ok := procStat(p); ok && ppid == pid {
				kids = append(kids, p)
			}
		}
	}
	return kids
}

// sameSet reports whether a and b hold the same pids (each once).
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[int]bool, len(a))
	for _, p := range a {
		in[p] = true
	}
	for _, p := range b {
		if !in[p] {
			return false
		}
	}
	return true
}
