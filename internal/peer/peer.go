// Package peer pins a process (the one at the other end of a Unix socket, or this one) with a
// pidfd, so that what is read of it and of its ancestors is read of those processes and not of
// later ones that took their pids.
//
// A pid names a process only while that process has not been reaped; after that the kernel may
// hand the number to any new process. A check that reads /proc/PID once can therefore be fooled:
// a program in a tickmux pane connects to the server from a child that exits at once, then starts
// processes until one outside tickmux takes the child's pid, and the server, reading the pid's
// ancestry, finds an outside process. A pidfd refers to one process for good: while
// pidfd_send_signal(fd, 0) succeeds, that process has not been reaped, so its pid is still its own
// and a /proc read made before that check was a read of it.
//
// The walk up the ancestry pins each parent in turn: the parent's pid is read from the child's
// stat, a pidfd is opened on it, and the child's stat is read again. If the child is still alive
// and still names the same parent, the pidfd opened is that parent's (a process becomes another's
// parent only by forking it or, as a subreaper or init, by adopting it once its parent died, and
// in that case the child's ppid would have changed). Anything that moved meanwhile makes the walk
// start again; a peer that is gone is refused.
package peer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrGone: the process has exited (and been reaped): it cannot be told from a later process
// that has its pid, so nothing is learnt of it.
var ErrGone = errors.New("the process has exited")

// errUnsettled: the ancestry kept changing while it was read (processes exiting and being
// reparented at every step).
var errUnsettled = errors.New("the process's ancestry kept changing while it was read")

// Process is a pinned process: Pid, and a pidfd that refers to it and to no other process.
type Process struct {
	Pid int
	Uid int // its uid as the socket saw it at connect (SO_PEERCRED); this process's for Self
	fd  int
}

// Of pins the process that connected c (or that listens at the other end, for a client's
// socket). The kernel hands the pidfd of the process as of connect (SO_PEERPIDFD, Linux 6.5);
// an older kernel gives only the pid (SO_PEERCRED), and the pidfd is opened on it now: a pid
// reused between the connect and this call is not caught there. An error when the process has
// exited already (ErrGone) or the socket cannot say who it is.
func Of(c syscall.Conn) (*Process, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	pidfd, credErr, fdErr := -1, error(nil), error(nil)
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if credErr == nil {
			pidfd, fdErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD)
		}
	}); err != nil {
		return nil, err
	}
	if credErr != nil {
		return nil, fmt.Errorf("cannot learn who is at the other end of the socket: %w", credErr)
	}
	switch {
	case fdErr == nil:
	case errors.Is(fdErr, unix.ESRCH):
		return nil, ErrGone
	case errors.Is(fdErr, unix.ENOPROTOOPT) || errors.Is(fdErr, unix.EINVAL) || errors.Is(fdErr, unix.EOPNOTSUPP):
		if cred.Pid <= 0 {
			// The peer is in a pid namespace this process cannot see into the other way.
			return nil, errors.New("the process at the other end of the socket is outside this pid namespace")
		}
		if pidfd, fdErr = unix.PidfdOpen(int(cred.Pid), unix.PIDFD_NONBLOCK); fdErr != nil {
			if errors.Is(fdErr, unix.ESRCH) {
				return nil, ErrGone
			}
			return nil, fmt.Errorf("cannot pin the process at the other end of the socket: %w", fdErr)
		}
	default:
		return nil, fmt.Errorf("cannot pin the process at the other end of the socket: %w", fdErr)
	}
	unix.CloseOnExec(pidfd)
	p := &Process{Pid: int(cred.Pid), Uid: int(cred.Uid), fd: pidfd}
	if p.Pid <= 0 {
		// SO_PEERPIDFD worked but the pid is not one this process can name: the peer is in
		// another pid namespace, beyond the reach of a /proc walk.
		p.Close()
		return nil, errors.New("the process at the other end of the socket is outside this pid namespace")
	}
	if !p.Alive() {
		p.Close()
		return nil, ErrGone
	}
	return p, nil
}

// Self pins this process.
func Self() (*Process, error) {
	fd, err := unix.PidfdOpen(os.Getpid(), unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("cannot open a pidfd on this process: %w", err)
	}
	unix.CloseOnExec(fd)
	return &Process{Pid: os.Getpid(), Uid: os.Getuid(), fd: fd}, nil
}

// Child pins pid, a child of this process that has not been reaped (so its pid is still its own).
func Child(pid int) (*Process, error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("cannot open a pidfd on process %d: %w", pid, err)
	}
	unix.CloseOnExec(fd)
	return &Process{Pid: pid, Uid: -1, fd: fd}, nil
}

// Alive reports whether the pinned process has not been reaped yet (a zombie is alive here: its
// pid is still its own).
func (p *Process) Alive() bool { return alive(p.fd) }

func alive(fd int) bool {
	for {
		err := unix.PidfdSendSignal(fd, 0, nil, 0)
		if err != unix.EINTR {
			return err == nil || err == unix.EPERM // EPERM: alive, not ours to signal
		}
	}
}

// Close lets go of the pidfd.
func (p *Process) Close() {
	if p != nil && p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
}

// Ancestry calls visit with the pid of p, then of its parent, and so on up to the first process
// whose parent this process cannot see (init's, or one outside its pid namespace), until visit
// returns true; it reports whether visit did. Every pid handed to visit was the pid of that
// process, p's ancestor, when visit was called (see the package comment). ErrGone when p itself
// has exited.
func (p *Process) Ancestry(visit func(pid int) bool) (bool, error) {
	var err error
	for try := 0; try < 16; try++ {
		var found, again bool
		if found, again, err = p.walk(visit); !again {
			return found, err
		}
	}
	return false, fmt.Errorf("%w (%v)", errUnsettled, err)
}

// walk makes one pass up the ancestry; again when something moved and the pass must start over.
func (p *Process) walk(visit func(pid int) bool) (found, again bool, err error) {
	var opened []int
	defer func() {
		for _, fd := range opened {
			unix.Close(fd)
		}
	}()
	cur, curFd := p.Pid, p.fd
	st, err := readStat(cur)
	if !alive(curFd) {
		return false, false, ErrGone
	}
	if err != nil {
		return false, false, fmt.Errorf("cannot read process %d: %w", cur, err)
	}
	for i := 0; i < 1<<15; i++ {
		if visit(cur) {
			return true, false, nil
		}
		ppid := st.ppid
		if ppid <= 0 {
			return false, false, nil // init, or a parent beyond this pid namespace
		}
		pfd, err := unix.PidfdOpen(ppid, unix.PIDFD_NONBLOCK)
		if err != nil {
			return false, true, fmt.Errorf("cannot pin process %d: %w", ppid, err)
		}
		opened = append(opened, pfd)
		// Still the child of ppid, alive: pfd is its parent.
		again, err := readStat(cur)
		if !alive(curFd) {
			if cur == p.Pid {
				return false, false, ErrGone
			}
			return false, true, fmt.Errorf("process %d exited during the walk", cur)
		}
		if err != nil || again.ppid != ppid {
			return false, true, fmt.Errorf("process %d changed parent during the walk", cur)
		}
		pst, err := readStat(ppid)
		if !alive(pfd) || err != nil {
			return false, true, fmt.Errorf("process %d exited during the walk", ppid)
		}
		cur, curFd, st = ppid, pfd, pst
	}
	return false, false, errors.New("the process's ancestry is too deep")
}

// ParentPID is pid's parent as /proc/PID/stat says now, 0 when it cannot be read. Unpinned: for
// what decides nothing (a log line, a guess at a socket's path); Ancestry is the pinned walk.
func ParentPID(pid int) int {
	st, err := readStat(pid)
	if err != nil {
		return 0
	}
	return st.ppid
}

// stat is what the walk reads of /proc/PID/stat.
type stat struct{ ppid int }

func readStat(pid int) (stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	// pid (comm) state ppid …; comm may hold anything: read after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, errors.New("unreadable /proc stat")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return stat{}, errors.New("unreadable /proc stat")
	}
	n, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return stat{}, errors.New("unreadable /proc stat")
	}
	return stat{ppid: n}, nil
}
