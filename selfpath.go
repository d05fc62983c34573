package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// selfExe is the tickmux executable that programs and the examples are started from: the
// running one, or the private copy putSelfOnPath made of a `go run` build.
var selfExe = func() string { p, _ := os.Executable(); return p }()

// putSelfOnPath makes the running executable reachable by the name "tickmux" for the programs
// tickmux starts (they inherit its PATH), so that `tickmux ls` in a pane, or an agent's
// `tickmux open -- tickmux example counter`, reach this tickmux even when it was started by
// `go run` or from a build directory. When PATH already finds this very executable as tickmux,
// nothing changes. Otherwise a private directory holding a symlink named tickmux is put first
// in PATH; cleanup removes it.
//
// `go run . demo` runs a build that the go command deletes when the first view exits, while the
// server lives on: such a build (one in a go-build directory) is copied into the private
// directory instead, and selfExe names the copy, so panes opened, respawned or asked for by
// agents later still find their program.
func putSelfOnPath() (cleanup func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return func() {}, fmt.Errorf("cannot find the running executable: %w", err)
	}
	return putOnPath(self)
}

// putOnPath is putSelfOnPath for the executable self.
func putOnPath(self string) (cleanup func(), err error) {
	transient := strings.Contains(self, string(filepath.Separator)+"go-build")
	if found, err := exec.LookPath("tickmux"); err == nil && sameFile(found, self) && !transient {
		return func() {}, nil
	}
	sweepSelfDirs()
	dir, err := os.MkdirTemp("", "tickmux-bin-"+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return func() {}, fmt.Errorf("cannot make a directory for tickmux on PATH: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	link := filepath.Join(dir, "tickmux")
	if transient {
		err = copyExecutable(self, link)
	} else {
		err = os.Symlink(self, link)
	}
	if err != nil {
		cleanup()
		return func() {}, fmt.Errorf("cannot put tickmux on PATH: %w", err)
	}
	if transient {
		selfExe = link
	}
	path := dir
	if old := os.Getenv("PATH"); old != "" {
		path += string(os.PathListSeparator) + old
	}
	if err := os.Setenv("PATH", path); err != nil {
		cleanup()
		return func() {}, err
	}
	return cleanup, nil
}

// sameFile reports whether a and b are the same file once symlinks are followed.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// copyExecutable copies the executable src to dst (mode 0700). No program is started meanwhile
// (syscall.ForkLock, which every start takes to fork): a child between its fork and its exec
// would hold dst open for writing, and running dst then fails with "text file busy".
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sweepSelfDirs removes the private directories that tickmux processes which no longer run left
// behind (a server killed outright cannot clean up; a copied build is some 20 MB).
func sweepSelfDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "tickmux-bin-*-*"))
	for _, dir := range dirs {
		name := strings.TrimPrefix(filepath.Base(dir), "tickmux-bin-")
		pid, err := strconv.Atoi(name[:max(0, strings.IndexByte(name, '-'))])
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue // not ours to judge, or its process still runs
		}
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Getuid()) {
			continue
		}
		os.RemoveAll(dir)
	}
}
