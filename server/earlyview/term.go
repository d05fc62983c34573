package earlyview

import (
	"syscall"
	"unsafe"
)

// TermState is a terminal's settings, to put back when the server could not.
type TermState struct{ t syscall.Termios }

// GetTermState reads the settings of terminal fd.
func GetTermState(fd int) (TermState, error) {
	var s TermState
	return s, ioctl(fd, syscall.TCGETS, unsafe.Pointer(&s.t))
}

// Restore puts the settings back on terminal fd.
func (s TermState) Restore(fd int) error {
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
