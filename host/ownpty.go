package host

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// HoldsTerminal reports whether the terminal st describes (fstat of a descriptor) is the
// terminal side of one of the host's PTYs: a program's own terminal. A view is never drawn on
// one (the server would read its own pane's keys as a view's, and draw into the pane it reads).
func (h *Host) HoldsTerminal(st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	for _, in := range h.Instances() {
		if p := in.Process(); p != nil && p.isTerminal(st) {
			return true
		}
	}
	return false
}

// isTerminal reports whether st is the terminal side of p's PTY: the same device on the same
// devpts (another devpts, a container's, numbers its terminals anew). The terminal side is
// opened from the master (TIOCGPTPEER), or found by its number where the kernel predates it.
func (p *Process) isTerminal(st *unix.Stat_t) bool {
	rc, err := p.master.SyscallConn()
	if err != nil {
		return false
	}
	same := false
	_ = rc.Control(func(fd uintptr) {
		var own unix.Stat_t
		r, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, unix.TIOCGPTPEER, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC)
		if errno == 0 {
			peer := int(r)
			err := unix.Fstat(peer, &own)
			unix.Close(peer)
			same = err == nil && own.Rdev == st.Rdev && own.Dev == st.Dev
			return
		}
		n, err := unix.IoctlGetUint32(int(fd), unix.TIOCGPTN)
		if err != nil {
			return
		}
		if unix.Stat("/dev/pts/"+strconv.FormatUint(uint64(n), 10), &own) == nil {
			same = own.Rdev == st.Rdev && own.Dev == st.Dev
		}
	})
	return same
}
