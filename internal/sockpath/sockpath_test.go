package sockpath

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestPath(t *testing.T) {
	t.Setenv(EnvSocket, "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7/")
	if got := Path(""); got != "/run/user/7/tickmux/default.sock" {
		t.Errorf("Path with XDG_RUNTIME_DIR = %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "relative")
	if got, want := Path(""), os.TempDir()+"/tickmux-"+strconv.Itoa(os.Getuid())+"/default.sock"; got != want {
		t.Errorf("Path with a relative XDG_RUNTIME_DIR = %q, want %q", got, want)
	}
	t.Setenv(EnvSocket, "/env.sock")
	if got := Path(""); got != "/env.sock" {
		t.Errorf("Path with %s = %q", EnvSocket, got)
	}
	if got := Path("/flag.sock"); got != "/flag.sock" {
		t.Errorf("Path with the flag = %q", got)
	}
}

// Running: true while something listens on the socket; false for a missing socket and for a
// socket file nobody listens on (a server that died).
func TestRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	if Running(path) {
		t.Error("Running on a missing socket")
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	if !Running(path) {
		t.Error("not Running while a listener is there")
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if Running(path) {
		t.Error("Running on a dead server's socket")
	}
}
