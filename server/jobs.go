package server

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Only the foreground view reads. A view's terminal is shared with the shell that started the
// view's process: while that process is stopped (kill -STOP, prefix C-z) or in the background
// (tickmux attach &, bg), the shell reads the terminal, and a server that read it too would split
// the person's typing between the two. So the server reads and draws only while the view's
// process runs in its terminal's foreground process group:
//
//   - before each read, after the terminal became readable and before a byte is taken, and
//     before each frame's write, it looks at the process (/proc/PID/stat: its state, its
//     process group, its controlling terminal's foreground group; the server cannot ask the
//     terminal itself, which is not its controlling terminal). Nothing runs while idle;
//   - a view found stopped or in the background is suspended: no read, no write, nothing
//     touched on the terminal (the shell has it now);
//   - the view's process tells the server when it continues (SIGCONT, view/redraw); if it is in
//     the foreground again the server takes the terminal back (raw mode) and redraws it whole.
//
// Prefix C-z and a SIGTSTP sent to the view's process suspend the view as tmux's: the server
// puts the terminal back as it was (its modes, the normal screen, cooked mode) and tells the
// process, which stops itself; the shell has the terminal until `fg`.

// foregroundOf reports whether process pid may read its terminal, whose device number is rdev:
// it is not stopped and, when the terminal is its controlling terminal, its process group is
// the terminal's foreground group. A process whose controlling terminal is another (or none)
// has no job control on this terminal to follow; a process gone counts as in the foreground
// (its connection's end detaches the view).
func foregroundOf(pid int, rdev uint64) bool {
	if pid <= 0 {
		return true
	}
	st, err := readProcStat(pid)
	return err != nil || inForeground(st, rdev)
}

func inForeground(st procStat, rdev uint64) bool {
	if st.state == 'T' || st.state == 't' {
		return false
	}
	if st.ttyNr == 0 || !sameDevice(st.ttyNr, rdev) {
		return true
	}
	return st.tpgid == st.pgrp
}

// statFile is a view process's /proc/PID/stat, opened once and read again from its start
// (pread) for each look: the look runs before every read of the view's keys and every frame
// written to it, on the key's and the echo's path, and opening the file each time cost 20-50 µs
// of it (a read of the open file: 3-4 µs, no allocation). The open file names the process, not
// its number: once the process is gone it reads nothing (ESRCH), never a process that took the
// number over.
type statFile struct {
	pid int
	f   *os.File // nil when it could not be opened: each look opens the file

	mu  sync.Mutex // the view's reader and its writers look at once
	buf [1024]byte // a stat line is about 300 bytes; its command name at most 64

	looks atomic.Int64 // how many looks were taken (tests count them)
}

func openStatFile(pid int) *statFile {
	s := &statFile{pid: pid}
	if pid > 0 {
		s.f, _ = os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	}
	return s
}

// foreground is foregroundOf for the file's process. Any goroutine.
func (s *statFile) foreground(rdev uint64) bool {
	if s == nil || s.pid <= 0 {
		return true
	}
	if s.f == nil {
		return foregroundOf(s.pid, rdev)
	}
	s.looks.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	n, _ := s.f.ReadAt(s.buf[:], 0) // io.EOF: the line is shorter than buf
	if n == 0 {
		return true // gone (ESRCH), or unreadable: as foregroundOf
	}
	st, err := parseProcStat(s.buf[:n])
	return err != nil || inForeground(st, rdev)
}

func (s *statFile) close() {
	if s != nil && s.f != nil {
		s.f.Close()
	}
}

// sameDevice reports whether tty_nr of /proc/PID/stat (major in bits 8-15, minor in bits 0-7
// and 20-31) names the device rdev (fstat's st_rdev).
func sameDevice(ttyNr, rdev uint64) bool {
	major := (ttyNr >> 8) & 0xfff
	minor := (ttyNr & 0xff) | ((ttyNr >> 12) & 0xfff00)
	return uint64(unix.Major(rdev)) == major && uint64(unix.Minor(rdev)) == minor
}
