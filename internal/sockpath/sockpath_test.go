package sockpath

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestPath(t *testing.T) {
	withRunUser(t, filepath.Join(t.TempDir(), "none"))
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

// withRunUser makes dir the system's directory of runtime directories for the test.
func withRunUser(t *testing.T, dir string) {
	old := runUser
	runUser = dir
	t.Cleanup(func() { runUser = old })
}

// Without XDG_RUNTIME_DIR (Codex starts MCP servers with a pruned environment), the default
// socket is in the user's runtime directory when the system made one, private and the user's,
// as a login's tickmux with XDG_RUNTIME_DIR set has it; else in /tmp.
func TestDefaultWithoutXDGRuntimeDir(t *testing.T) {
	base := t.TempDir()
	withRunUser(t, base)
	uid := strconv.Itoa(os.Getuid())
	mine := filepath.Join(base, uid)
	inTmp := filepath.Join(os.TempDir(), "tickmux-"+uid, "default.sock")
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got := Default(); got != inTmp {
		t.Errorf("no runtime directory: %q, want %q", got, inTmp)
	}
	if err := os.Mkdir(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(mine, "tickmux", "default.sock")
	if got := Default(); got != want {
		t.Errorf("with %s: %q, want %q", mine, got, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", mine)
	if got := Default(); got != want {
		t.Errorf("a login's tickmux (XDG_RUNTIME_DIR=%s) has %q, want the same %q", mine, got, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if err := os.Chmod(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Default(); got != inTmp {
		t.Errorf("a runtime directory others may enter: %q, want %q", got, inTmp)
	}
	os.Chmod(mine, 0o700)
	os.Rename(mine, mine+"-real")
	if err := os.Symlink(mine+"-real", mine); err != nil {
		t.Fatal(err)
	}
	if got := Default(); got != inTmp {
		t.Errorf("a link in place of the runtime directory: %q, want %q", got, inTmp)
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
