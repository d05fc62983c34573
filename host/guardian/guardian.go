// Package guardian is the guardian process's side of host's guardian (host/guardian.go): it ends
// the process groups tickmux started once tickmux is gone, however it went.
//
// A guardian runs in one of two places. The tickmux server a view starts (server.Start) has one
// as its parent, its reaping ancestor (ancestor.go, EnvAncestor): the view starts the guardian,
// which makes itself a child subreaper and starts the server as its child, handing it its end of
// the guardian's socket (EnvInherited, taken with Inherited). When the server dies, however it
// died, the guardian ends the groups it was told of and then every process left below it: what
// left its group and session (setsid, a double fork) was reparented to it, not to init. Any other
// binary that links host (tickmux serve, check, tests) starts a guardian as its child (Spawn,
// at init with EnvEarly or later from host), which ends only the groups it was told of.
//
// It is a package of its own so that the guardian starts early and small. Go initialises
// packages dependencies first and otherwise in the order of their import paths; this one imports
// only os, syscall, time and what they need, not reflect or unicode, so its init runs before
// every package that does: the JSON schema, terminal and UI libraries never initialise in the
// guardian (a guardian holds about 2 MB, not 12). TestGuardianSkipsHeavyInits keeps it so.
package guardian

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Env, set to "1", makes a binary that links this package (host does) run as a guardian.
const Env = "TICKMUX_GUARDIAN"

// TerminateGrace is how long a process group has after SIGTERM (or SIGHUP) before SIGKILL.
const TerminateGrace = 2 * time.Second

// EnvEarly, set to "1", makes a binary that links this package start its guardian while its
// package inits run: this package's init starts it on a goroutine of its own, beside the heavy
// inits that follow (20-30 ms in the tickmux server), and Early hands it over. The tickmux
// server's starter sets it: the server's first pane waited 5-15 ms for the guardian's start when
// the server started it from main.
const EnvEarly = "TICKMUX_GUARDIAN_EARLY"

// early is the guardian started at init: the socket's end for the process, and its pid.
var early struct {
	done    chan struct{} // nil: none was asked for
	fd, pid int
	err     error
}

func init() {
	if os.Getenv(Env) == "1" {
		os.Exit(run(os.Stdin))
	}
	if args, ok := os.LookupEnv(EnvAncestor); ok {
		os.Unsetenv(EnvAncestor) // not for the server it starts
		os.Exit(runAncestor(args))
	}
	if s, ok := os.LookupEnv(EnvInherited); ok {
		os.Unsetenv(EnvInherited)
		// Close-on-exec before anything can start a program: the guardian reads EOF only
		// once no process holds this end.
		if fd := atoi(s); fd > 2 && isOpen(fd) {
			syscall.CloseOnExec(fd)
			inherited.fd, inherited.pid = fd, os.Getppid()
		}
	}
	if os.Getenv(EnvEarly) == "1" {
		os.Unsetenv(EnvEarly) // not for the programs this process starts
		// What this process inherited (the tickmux server: the pipe its starter waits on until
		// the server says it is ready, made close-on-exec only later, in main) is not the
		// guardian's: a guardian that held that pipe open kept its starter waiting.
		closeOnExecFrom(3)
		early.done = make(chan struct{})
		go func() { // owner: this package; ends once the guardian is started (or could not be)
			defer close(early.done)
			exe, err := os.Executable()
			if err != nil {
				early.err = err
				return
			}
			early.fd, early.pid, early.err = Spawn(exe)
		}()
	}
}

// closeOnExecFrom marks the process's descriptors from first on close-on-exec.
func closeOnExecFrom(first int) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd := atoi(e.Name()); fd >= first {
			syscall.CloseOnExec(fd)
		}
	}
}

// Early waits for the guardian started at init (EnvEarly) and returns the process's end of its
// socket and its pid; ok is false when none was asked for. Its first caller owns fd.
func Early() (fd, pid int, err error, ok bool) {
	if early.done == nil {
		return -1, 0, nil, false
	}
	<-early.done
	return early.fd, early.pid, early.err, true
}

// inherited is the socket to the guardian that started this process (EnvInherited), its parent.
var inherited struct{ fd, pid int }

// Inherited returns this process's end of the socket to its ancestor guardian (the guardian that
// started it as its child, EnvAncestor) and that guardian's pid, its parent's; ok is false when
// it was not started so. Its first caller owns fd.
func Inherited() (fd, pid int, ok bool) {
	return inherited.fd, inherited.pid, inherited.pid > 0
}

// Spawn starts a guardian: exe (this binary) run with Env=1 and GOMAXPROCS=1 (it has one thing
// to do at a time; a second P cost a thread and an allocation cache, ~90 KB), in a process group
// of its own, its input one end of a SOCK_SEQPACKET socket pair and its output /dev/null. It
// returns the other end, close-on-exec, and the guardian's pid.
func Spawn(exe string) (fd, pid int, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return -1, 0, err
	}
	pid, err = syscall.ForkExec(exe, []string{exe}, &syscall.ProcAttr{
		Env:   append(os.Environ(), Env+"=1", "GOMAXPROCS=1"),
		Files: []uintptr{uintptr(fds[1]), uintptr(null), uintptr(null)},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	syscall.Close(fds[1])
	syscall.Close(null)
	if err != nil {
		syscall.Close(fds[0])
		return -1, 0, err
	}
	return fds[0], pid, nil
}

// run is the guardian process started by Spawn: it keeps the list of watched groups until its
// input ends, then ends the groups still listed and exits.
func run(in *os.File) int {
	undumpable()
	signal.Ignore(terminalSignals...)
	endGroups(listen(int(in.Fd())), TerminateGrace)
	return 0 // the masters close as the guardian exits: whatever is left sees the hangup
}

// terminalSignals are the signals a terminal sends a job, which a guardian ignores: a Ctrl-C or a
// hangup aimed at tickmux must not end its guardian first.
var terminalSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// listen reads the guardian's socket (SOCK_SEQPACKET, one message a packet: "watch PGID hup|term"
// with the group's PTY master attached, or "forget PGID") until tickmux's end is gone, and returns
// the groups still watched. The PTY masters sent stay open until the guardian exits.
func listen(sock int) map[int]bool {
	watched := map[int]bool{} // pgid → hang up (true) or terminate (false)
	held := map[int][]int{}   // pgid → the PTY masters kept open for it
	buf, oob := make([]byte, 256), make([]byte, syscall.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(sock, buf, oob, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return watched // tickmux is gone (or closed us): act
		}
		var fds []int
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if rights, err := syscall.ParseUnixRights(&m); err == nil {
					fds = append(fds, rights...)
				}
			}
		}
		f := fields(buf[:n])
		pgid := 0
		if len(f) >= 2 {
			pgid = atoi(f[1])
		}
		switch {
		case pgid <= 1:
			closeAll(fds)
		case f[0] == "watch" && len(f) == 3:
			watched[pgid] = f[2] == "hup"
			held[pgid] = append(held[pgid], fds...)
		case f[0] == "forget":
			delete(watched, pgid)
			closeAll(held[pgid])
			delete(held, pgid)
			closeAll(fds)
		default:
			closeAll(fds)
		}
	}
}

// fields splits a message (or a /proc file) at spaces and newlines (strings.Fields would bring
// unicode in).
func fields(b []byte) []string {
	var out []string
	for {
		for len(b) > 0 && (b[0] == ' ' || b[0] == '\n') {
			b = b[1:]
		}
		if len(b) == 0 {
			return out
		}
		end := 0
		for end < len(b) && b[end] != ' ' && b[end] != '\n' {
			end++
		}
		out = append(out, string(b[:end]))
		b = b[end:]
	}
}

// atoi reads a positive decimal number up to 2^30; anything else is 0.
func atoi(s string) int {
	if len(s) == 0 || len(s) > 10 {
		return 0
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
		n = n*10 + int(s[i]-'0')
	}
	if n > 1<<30 {
		return 0
	}
	return n
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// endGroups sends each group its first signal, waits up to grace for them to be gone, then
// kills what is left.
func endGroups(groups map[int]bool, grace time.Duration) {
	if len(groups) == 0 {
		return
	}
	for pgid, hangup := range groups {
		sig := syscall.SIGTERM
		if hangup {
			sig = syscall.SIGHUP
		}
		_ = syscall.Kill(-pgid, sig)
		_ = syscall.Kill(-pgid, syscall.SIGCONT) // a stopped job must run to see its signal
	}
	pgids := make([]int, 0, len(groups))
	for pgid := range groups {
		pgids = append(pgids, pgid)
	}
	if WaitGroupsGone(pgids, time.Now().Add(grace)) {
		return
	}
	for pgid := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// WaitGroupsGone waits until no member of the process groups runs (zombies do not count), or
// until deadline, and reports whether they are gone. It waits on a pidfd for each member (Linux
// 5.3) and looks for members again at each exit: a member may have started another one. Where
// pidfds are not to be had it looks every 20 ms.
func WaitGroupsGone(pgids []int, deadline time.Time) bool {
	var fds []int
	defer func() { closeAll(fds) }()
	for {
		closeAll(fds)
		fds = fds[:0]
		members := groupMembers(pgids)
		if len(members) == 0 {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		for _, pid := range members {
			if fd, err := pidfdOpen(pid); err == nil {
				fds = append(fds, fd)
			} else if err != syscall.ESRCH { // no pidfds here: look again in a while
				closeAll(fds)
				fds = fds[:0]
				time.Sleep(min(left, 20*time.Millisecond))
				break
			}
		}
		if len(fds) > 0 {
			pollAny(fds, min(left, time.Second)) // EINTR or a timeout: look again either way
		}
	}
}

// groupMembers lists the processes of the groups that have not ended (zombies are left out).
func groupMembers(pgids []int) []int {
	memberLooks.Add(1)
	var members []int
	live := pgids[:0:0]
	for _, pgid := range pgids {
		if syscall.Kill(-pgid, 0) == nil { // kill reaches zombies too: look closer below
			live = append(live, pgid)
		}
	}
	if len(live) == 0 {
		return nil
	}
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range dir {
		pid := atoi(e.Name())
		if pid <= 0 {
			continue
		}
		state, pgrp, ok := stat(pid)
		if !ok || state == 'Z' {
			continue
		}
		for _, pgid := range live {
			if pgrp == pgid {
				members = append(members, pid)
				break
			}
		}
	}
	return members
}

// memberLooks counts groupMembers's calls, for a test.
var memberLooks atomic.Int64

// pidfdOpen is pidfd_open(2): a descriptor that becomes readable when process pid exits.
func pidfdOpen(pid int) (int, error) {
	fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil // close-on-exec, as every pidfd
}

// sysPidfdOpen is pidfd_open's number, the same on every Linux architecture.
const sysPidfdOpen = 434

// pollAny waits up to d for one of fds to become readable (ppoll(2)).
func pollAny(fds []int, d time.Duration) {
	type pollFd struct {
		fd             int32
		events, revent int16
	}
	pfds := make([]pollFd, len(fds))
	for i, fd := range fds {
		pfds[i] = pollFd{fd: int32(fd), events: 0x1} // POLLIN
	}
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfds[0])), uintptr(len(pfds)),
		uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// GroupAlive reports whether a member of process group pgid still runs. A zombie does not
// count: it has ended, and where nobody reaps orphans (a container whose init does not; this
// guardian, once tickmux is gone) it would keep its group "alive" until every grace ran out.
func GroupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	// kill reaches zombies too: look for a member that is not one (rare: only while a group is
	// being ended and something of it is left).
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range dir {
		if pid := atoi(e.Name()); pid > 0 {
			if state, pgrp, ok := stat(pid); ok && state != 'Z' && pgrp == pgid {
				return true
			}
		}
	}
	return false
}

// Ended reports whether process pid has ended: no such process, or a zombie nobody reaped (a
// detached server's parent is often an init that never reaps).
func Ended(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	state, _, ok := stat(pid)
	return !ok || state == 'Z'
}

// stat reads a process's state and process group from /proc/PID/stat.
func stat(pid int) (state byte, pgrp int, ok bool) {
	state, _, pgrp, ok = procStat(pid)
	return state, pgrp, ok
}

// procStat reads a process's state, parent and process group from /proc/PID/stat:
// "pid (comm) S ppid pgrp".
func procStat(pid int) (state byte, ppid, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	i := len(b) - 1
	for i >= 0 && b[i] != ')' { // the last one: comm may hold one
		i--
	}
	if err != nil || i < 0 {
		return 0, 0, 0, false
	}
	f := fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, 0, false
	}
	return f[0][0], atoi(f[1]), atoi(f[2]), true
}

// itoa writes a non-negative number in decimal (strconv would bring unicode in).
func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}

// undumpable makes the guardian undumpable: it holds a copy of every pane's PTY master, which a
// program of the person's uid could otherwise take with pidfd_getfd or ptrace where Yama is off.
func undumpable() {
	const prSetDumpable = 4 // PR_SET_DUMPABLE (prctl(2))
	_, _, _ = syscall.RawSyscall6(syscall.SYS_PRCTL, prSetDumpable, 0, 0, 0, 0, 0)
}
