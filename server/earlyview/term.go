package earlyview

import (
	"syscall"
	"unsafe"
)

// TermState is a terminal's settings, to put back when the server could not, and whether its
// file description was non-blocking (a server that may not open the terminal afresh, another
// uid's, uses this process's file description, non-blocking).
type TermState struct {
	t        syscall.Termios
	flags    uintptr
	flagsSet bool
}

// GetTermState reads the settings of terminal fd.
func GetTermState(fd int) (TermState, error) {
	var s TermState
	if fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0); e == 0 {
		s.flags, s.flagsSet = fl&syscall.O_NONBLOCK, true
	}
	return s, ioctl(fd, syscall.TCGETS, unsafe.Pointer(&s.t))
}

// Restore puts the settings back on terminal fd.
func (s TermState) Restore(fd int) error {
	if s.flagsSet {
		if fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0); e == 0 && fl&syscall.O_NONBLOCK != s.flags {
			syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, fl&^syscall.O_NONBLOCK|s.flags)
		}
	}
	return ioctl(fd, syscall.TCSETS, unsafe.Pointer(&s.t))
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := GetTermState(fd)
	return err == nil
}

// WindowSize is terminal fd's size, 0, 0 when unknown.
func WindowSize(fd int) (cols, rows int) {
	var ws struct{ row, col, x, y uint16 }
	if ioctl(fd, syscall.TIOCGWINSZ, unsafe.Pointer(&ws)) != nil {
		return 0, 0
	}
	return int(ws.col), int(ws.row)
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}
