package server

import "golang.org/x/sys/unix"

// While a view is attached, its terminal is the person's alone (issue 38 item 4). Any process of
// the person's uid (a program in a pane) could otherwise open the terminal `tickmux attach` runs
// in (/dev/pts/N, by its path or through /proc/PID/fd) and write over a card's text or read the
// person's keys, or take the view process's descriptor of it (ptrace, pidfd_getfd). So:
//
//   - while the server has the terminal in raw mode it is exclusive (TIOCEXCL, a property of the
//     terminal, not of a descriptor): a new open(2) of it fails with EBUSY for anyone but root
//     (CAP_SYS_ADMIN). Descriptors already open (the shell's, the view's, the server's) keep
//     working. The terminal is shared again (TIOCNXCL) whenever it goes back to its shell: the
//     view ends, is suspended or is found in the background (programs run from the shell then,
//     such as ssh or sudo, open /dev/tty). The server sets it only once it has opened the
//     terminal afresh (openViewTty), which it could not do on an exclusive terminal;
//   - the view's process is undumpable while attached (PR_SET_DUMPABLE 0): a process of the same
//     uid may not ptrace it, read its /proc/PID/fd or pidfd_getfd its terminal.
//
// Neither stops root: a pane that runs as root is outside what tickmux guards without a sandbox.

// setExclusive makes terminal fd exclusive (on) or shared again.
func setExclusive(fd int, on bool) error {
	req := uint(unix.TIOCNXCL)
	if on {
		req = unix.TIOCEXCL
	}
	_, err := unix.IoctlRetInt(fd, req)
	return err
}

// isExclusive reports whether terminal fd is exclusive now (false when it cannot tell).
func isExclusive(fd int) bool {
	v, err := unix.IoctlGetInt(fd, unix.TIOCGEXCL)
	return err == nil && v != 0
}

// own makes the view's terminal its alone (on) or its shell's again; a terminal that was
// exclusive before the view came stays so.
func (t *viewTty) own(on bool) {
	if !on && t.wasExclusive {
		return
	}
	_ = setExclusive(t.fd, on)
}

// guardView makes this view's process undumpable for as long as its terminal is attached, and
// returns what undoes it once the view is over: dumpable as before, and the terminal (fd) shared
// again should the server have gone without doing it (killed, say), unless it was exclusive
// before the view.
func guardView(fd int) (release func()) {
	dumpable, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		dumpable = -1
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	was := isExclusive(fd)
	return func() {
		if !was {
			_ = setExclusive(fd, false)
		}
		if dumpable >= 0 {
			_ = unix.Prctl(unix.PR_SET_DUMPABLE, uintptr(dumpable), 0, 0, 0)
		}
	}
}
