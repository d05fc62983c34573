package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// defaultLogPath is $XDG_STATE_HOME/tickmux/tickmux.log, or ~/.local/state/tickmux/tickmux.log.
// With neither (HOME unset) it is tickmux.log in a private directory of this uid's in the shared
// temporary directory, /tmp/tickmux-UID (the control socket's default directory too); shared
// says so, and openLog then checks that nobody else made the directory or the file first.
func defaultLogPath() (path string, shared bool) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(os.TempDir(), "tickmux-"+strconv.Itoa(os.Getuid()), "tickmux.log"), true
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "tickmux", "tickmux.log"), false
}

// openLog opens the log file for appending. tickmux never logs to the terminal it draws on.
func openLog(path string) (*log.Logger, *os.File, error) {
	var f *os.File
	var err error
	if path == "" {
		var shared bool
		if path, shared = defaultLogPath(); shared {
			if f, err = openPrivateLog(path); err != nil {
				return nil, nil, err
			}
		}
	}
	if f == nil {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, nil, fmt.Errorf("cannot create the log directory: %w", err)
		}
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
			return nil, nil, fmt.Errorf("cannot open the log file: %w", err)
		}
	}
	return log.New(f, "", log.LstdFlags|log.Lmicroseconds), f, nil
}

// stderrToLog makes descriptor 2 the log file, so that what the Go runtime writes there (a fatal
// error such as thread exhaustion, a panic's stacks) is read in the log, never on a terminal. It
// returns where stderr went before, close-on-exec: for the one line meant for whoever started
// the server by hand, when no starter reads its ready line.
func stderrToLog(log *os.File) (*os.File, error) {
	orig, err := unix.FcntlInt(2, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("cannot send stderr to the log: %w", err)
	}
	if err := unix.Dup3(int(log.Fd()), 2, 0); err != nil {
		unix.Close(orig)
		return nil, fmt.Errorf("cannot send stderr to the log: %w", err)
	}
	return os.NewFile(uintptr(orig), "stderr"), nil
}

// openPrivateLog opens a log whose directory is in a place every user may write to (/tmp):
// another user may have made the directory, or the file, or a symbolic link by that name, first,
// to read the log or to have tickmux write where it should not. The directory must be this uid's
// own, a real directory (lstat: not a link), open to nobody else; the file is opened without
// following a link and must be a regular file of this uid's.
func openPrivateLog(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	uid := os.Getuid()
	elsewhere := "set HOME or XDG_STATE_HOME, or give --log PATH"
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("cannot create the log directory %s: %w; %s", dir, err, elsewhere)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot use the log directory %s: %w; %s", dir, err, elsewhere)
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("refusing the log directory %s: it is a symbolic link, which someone else may have made; remove it, or %s", dir, elsewhere)
	case !fi.IsDir():
		return nil, fmt.Errorf("refusing the log directory %s: it is not a directory; remove it, or %s", dir, elsewhere)
	case st == nil || int(st.Uid) != uid:
		return nil, fmt.Errorf("refusing the log directory %s: it belongs to uid %d, not to you (uid %d), who could read the log; %s", dir, ownerOf(st), uid, elsewhere)
	case fi.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("refusing the log directory %s: other users may use it (mode %04o); run chmod 700 %s, or %s", dir, fi.Mode().Perm(), dir, elsewhere)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("refusing the log file %s: it is a symbolic link; remove it, or %s", path, elsewhere)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open the log file %s: %w; %s", path, err, elsewhere)
	}
	var fst syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &fst); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot check the log file %s: %w; %s", path, err, elsewhere)
	}
	switch {
	case fst.Mode&syscall.S_IFMT != syscall.S_IFREG:
		f.Close()
		return nil, fmt.Errorf("refusing the log file %s: it is not a regular file; remove it, or %s", path, elsewhere)
	case int(fst.Uid) != uid:
		f.Close()
		return nil, fmt.Errorf("refusing the log file %s: it belongs to uid %d, not to you (uid %d); remove it, or %s", path, fst.Uid, uid, elsewhere)
	case fst.Mode&0o077 != 0:
		if err := f.Chmod(0o600); err != nil { // ours, in our private directory: make it private
			f.Close()
			return nil, fmt.Errorf("cannot make the log file %s private: %w; %s", path, err, elsewhere)
		}
	}
	return f, nil
}

func ownerOf(st *syscall.Stat_t) int {
	if st == nil {
		return -1
	}
	return int(st.Uid)
}
