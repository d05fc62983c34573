package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// An installed tickmux (here a copy of the test binary outside any go-build directory).
func installedCopy(t *testing.T) string {
	t.Helper()
	self, _ := os.Executable()
	dst := filepath.Join(t.TempDir(), "bin", "tickmux-installed")
	os.MkdirAll(filepath.Dir(dst), 0o700)
	if err := copyExecutable(self, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestSelfOnPath(t *testing.T) {
	self := installedCopy(t)
	// Not on PATH: a private directory with a tickmux that is this executable comes first.
	t.Setenv("PATH", "/usr/bin:/bin")
	cleanup, err := putOnPath(self)
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
	cleanup, err = putOnPath(self)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if p := os.Getenv("PATH"); p != bin+":/usr/bin:/bin" {
		t.Fatalf("PATH changed to %q", p)
	}
}

// `go run . demo` runs a build the go command deletes when the first view exits: the server
// copies it, and the examples, respawns and agents' opens use the copy.
func TestSelfOnPathCopiesAGoRunBuild(t *testing.T) {
	build := filepath.Join(t.TempDir(), "go-build123", "b001", "exe", "tickmux")
	os.MkdirAll(filepath.Dir(build), 0o700)
	if err := copyExecutable(installedCopy(t), build); err != nil {
		t.Fatal(err)
	}
	saved := selfExe
	t.Cleanup(func() { selfExe = saved })
	t.Setenv("PATH", "/usr/bin:/bin")
	cleanup, err := putOnPath(build)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	found, err := exec.LookPath("tickmux")
	if err != nil || found != selfExe || sameFile(found, build) {
		t.Fatalf("tickmux on PATH is %q (%v), selfExe %q: want a copy of %s", found, err, selfExe, build)
	}
	os.Remove(build) // what go run does
	want, _ := os.ReadFile(installedCopy(t))
	if got, err := os.ReadFile(found); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the copy is not the build (%v)", err)
	}
}

// A server killed outright leaves its private directory; the next one removes it, and leaves
// those of processes that still run.
func TestSelfDirsOfDeadProcessesAreSwept(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale, err := os.MkdirTemp("", "tickmux-bin-"+strconv.Itoa(dead.Process.Pid)+"-")
	if err != nil {
		t.Fatal(err)
	}
	live, err := os.MkdirTemp("", "tickmux-bin-"+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(live)
	sweepSelfDirs()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		os.RemoveAll(stale)
		t.Fatalf("the directory of a process that ended was left: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("the directory of a running process was removed: %v", err)
	}
}

// A copied executable runs at once though other goroutines start programs meanwhile: none of
// their children, between its fork and its exec, holds the copy open for writing (which makes
// the exec fail with "text file busy"; a CI run of the suite hit it once).
func TestCopiedExecutableRunsWhileOthersFork(t *testing.T) {
	src, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = exec.Command(src).Run()
			}
		}()
	}
	defer func() {
		close(stop)
		<-done
		<-done
	}()
	dir := t.TempDir()
	for i := range 200 {
		dst := filepath.Join(dir, "copy"+strconv.Itoa(i))
		if err := copyExecutable(src, dst); err != nil {
			t.Fatal(err)
		}
		if err := exec.Command(dst).Run(); err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
	}
}
