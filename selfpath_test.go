package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestSelfOnPath(t *testing.T) {
	self, _ := os.Executable()
	// Not on PATH: a private directory with a tickmux that is this executable comes first.
	t.Setenv("PATH", "/usr/bin:/bin")
	cleanup, err := putSelfOnPath()
	if err != nil {
		t.Fatal(err)
	}
	found, err := exec.LookPath("tickmux")
	if err != nil || !sameFile(found, self) {
		t.Fatalf("tickmux on PATH is %q (%v), want %s", found, err, self)
	}
	dir := filepath.Dir(found)
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the private directory %s was left behind", dir)
	}

	// Already on PATH as this very executable: PATH stays as it was.
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "tickmux")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	cleanup, err = putSelfOnPath()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if p := os.Getenv("PATH"); p != bin+":/usr/bin:/bin" {
		t.Fatalf("PATH changed to %q", p)
	}
}
