//go:build unix

package tick

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// takeStdio moves the protocol off file descriptors 0 and 1. It returns private duplicates of
// them (close-on-exec, so child processes never inherit the protocol) and then points 0 and 1 at
// /dev/null. From then on a stray fmt.Println, a library's progress bar or a child process's
// output lands in /dev/null instead of breaking the session (spec 3.1, 10), and nothing but the
// SDK can read the host's requests. os.Stdin and os.Stdout keep working; they just lead nowhere.
func takeStdio() (in, out *os.File, err error) {
	inFD, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, nil, fmt.Errorf("tick: duplicating stdin: %w", err)
	}
	outFD, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		unix.Close(inFD)
		return nil, nil, fmt.Errorf("tick: duplicating stdout: %w", err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		unix.Close(inFD)
		unix.Close(outFD)
		return nil, nil, fmt.Errorf("tick: opening %s: %w", os.DevNull, err)
	}
	defer null.Close()
	for _, fd := range []int{0, 1} {
		if err := unix.Dup2(int(null.Fd()), fd); err != nil {
			return nil, nil, fmt.Errorf("tick: pointing fd %d at %s: %w", fd, os.DevNull, err)
		}
	}
	makePollable(inFD)
	makePollable(outFD)
	return os.NewFile(uintptr(inFD), "tick-protocol-in"), os.NewFile(uintptr(outFD), "tick-protocol-out"), nil
}

// makePollable puts a pipe or socket in non-blocking mode so that os.NewFile hands it to the
// runtime poller: reads and writes then honour deadlines, which is how a stop unblocks them. A
// terminal or file is left alone, since its mode is shared with whoever else holds it.
func makePollable(fd int) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK:
		_ = unix.SetNonblock(fd, true)
	}
}
