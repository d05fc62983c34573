package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// putSelfOnPath makes the running executable reachable by the name "tickmux" for the programs
// tickmux starts (they inherit its PATH), so that `tickmux ls` in a pane, or an agent's
// `tickmux open -- tickmux example counter`, reach this tickmux even when it was started by
// `go run` or from a build directory. When PATH already finds this very executable as tickmux,
// nothing changes. Otherwise a private directory holding a symlink named tickmux is put first
// in PATH; cleanup removes it.
func putSelfOnPath() (cleanup func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return func() {}, fmt.Errorf("cannot find the running executable: %w", err)
	}
	if found, err := exec.LookPath("tickmux"); err == nil && sameFile(found, self) {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "tickmux-bin-")
	if err != nil {
		return func() {}, fmt.Errorf("cannot make a directory for tickmux on PATH: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := os.Symlink(self, filepath.Join(dir, "tickmux")); err != nil {
		cleanup()
		return func() {}, fmt.Errorf("cannot put tickmux on PATH: %w", err)
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
