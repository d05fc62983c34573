package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tickmux/host"
)

// spec: H-SEC3 (the socket is 0600 in a 0700 directory)
func TestListenPermissions(t *testing.T) {
	t.Setenv(EnvSocket, "")
	xdg := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	// A default directory left with loose permissions is made private again.
	if err := os.Mkdir(filepath.Join(xdg, "tickmux"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := SocketPath("")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	checkMode(t, filepath.Dir(path), fs.ModeDir|0o700)
	checkMode(t, path, fs.ModeSocket|0o600)

	// A directory given with --socket is created 0700 when missing.
	other := filepath.Join(t.TempDir(), "a", "b", "s.sock")
	ln2, err := Listen(other)
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	checkMode(t, filepath.Dir(other), fs.ModeDir|0o700)
	checkMode(t, other, fs.ModeSocket|0o600)
}

func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (fs.ModeType | fs.ModePerm); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

func TestListenRefusesLiveSocket(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(path)
	if !errors.Is(err, ErrAlreadyRunning) || err.Error() != "another tickmux is already running on "+path {
		t.Errorf("second Listen: %v", err)
	}

	// A live socket that holds no lock (an older tickmux) is refused too.
	bare := filepath.Join(t.TempDir(), "bare.sock")
	l, err := net.Listen("unix", bare)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Listen(bare); !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("Listen on a live socket without lock: %v", err)
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close() // the socket file stays, nobody listens: what a crashed tickmux leaves
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	ln.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket is still there after Close: %v", err)
	}
	// The next tickmux takes the same path.
	ln, err = Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestListenRefusesNonSocket(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.sock")
	if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Errorf("Listen over a regular file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Error("the file was touched")
	}
}

// spec: H-SEC3 (a peer with another uid is refused)
func TestServerRefusesOtherUID(t *testing.T) {
	t.Parallel()
	h := host.New(host.Config{})
	defer h.Close()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs []string
	s := serveOn(h, ln, Options{Logf: func(format string, args ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(format, args...))
		mu.Unlock()
	}}, os.Getuid()+1)
	defer s.Close()

	_, err = Dial(context.Background(), path, "intruder")
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonDisconnected || !strings.Contains(e.Message, "hung up") {
		t.Errorf("Dial as another uid: %v", err)
	}
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(logs) == 0 || !strings.Contains(logs[0], "refused a peer with uid") {
		t.Errorf("server log: %q", logs)
	}
}

func TestClientNotRunning(t *testing.T) {
	t.Parallel()
	_, err := Dial(context.Background(), filepath.Join(t.TempDir(), "none.sock"), "x")
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonNotRunning || !strings.Contains(e.Message, "no tickmux is running on") {
		t.Errorf("Dial with nothing there: %v", err)
	}
}

// plantedSocket listens on dir/default.sock and reports every byte a client sends it.
func plantedSocket(t *testing.T, dir string) (string, chan []byte) {
	t.Helper()
	path := filepath.Join(dir, "default.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // owner: the test; ends when the listener closes at cleanup
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			n, _ := c.Read(buf)
			if n > 0 {
				got <- buf[:n]
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return path, got
}

// chownOrSkip gives path to uid; only root can, and the tests run as root in CI.
func chownOrSkip(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Lchown(path, uid, uid); err != nil {
		t.Skipf("cannot give %s to uid %d to play another user (needs root): %v", path, uid, err)
	}
}

// Another user plants a socket on this user's default path: the client refuses before it sends
// anything, whether the directory is theirs, writable by others, or the server runs as them.
// spec: H-SEC3
func TestClientTrustsOnlyItsOwnSocket(t *testing.T) {
	const other = 54321 // a uid nobody here has: the other user
	t.Run("directory of another user", func(t *testing.T) {
		dir := privateDir(t, "tickmux-planted")
		os.Chmod(dir, 0o777)
		path, got := plantedSocket(t, dir)
		chownOrSkip(t, dir, other)
		chownOrSkip(t, path, other)
		assertRefused(t, path, got, "belongs to uid 54321")
	})
	t.Run("directory writable by others", func(t *testing.T) {
		dir := privateDir(t, "open")
		os.Chmod(dir, 0o733)
		path, got := plantedSocket(t, dir)
		assertRefused(t, path, got, "writable by other users")
	})
	t.Run("directory a symlink", func(t *testing.T) {
		real := t.TempDir()
		path, got := plantedSocket(t, real)
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		assertRefused(t, filepath.Join(link, "default.sock"), got, "not a directory")
		_ = path
	})
	t.Run("socket of another user in a sticky shared directory", func(t *testing.T) {
		dir := privateDir(t, "tmp")
		chownOrSkip(t, dir, 0) // shared directories like /tmp belong to root
		os.Chmod(dir, 0o777|fs.ModeSticky)
		path, got := plantedSocket(t, dir)
		chownOrSkip(t, path, other)
		assertRefused(t, path, got, "the socket belongs to uid 54321")
	})
	t.Run("server of another user", func(t *testing.T) {
		// Expect to be the other user: the directory and socket are "ours", the server (this
		// process, uid 0 or whoever runs the test) is not.
		dir := privateDir(t, "mine")
		path, got := plantedSocket(t, dir)
		chownOrSkip(t, dir, other)
		chownOrSkip(t, path, other)
		saved := expectedUID
		expectedUID = func() int { return other }
		defer func() { expectedUID = saved }()
		assertRefused(t, path, got, fmt.Sprintf("runs as uid %d, not as you (uid %d)", os.Getuid(), other))
	})
}

// privateDir makes a directory named name, mode 0700, that the test removes.
func privateDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func assertRefused(t *testing.T, path string, got chan []byte, want string) {
	t.Helper()
	c, err := Dial(context.Background(), path, "victim")
	if err == nil {
		c.Close()
		t.Fatal("the client talked to a socket that is not its user's")
	}
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonUntrusted || !strings.Contains(e.Message, want) {
		t.Fatalf("refusal: %v, want reason %s and %q", err, ReasonUntrusted, want)
	}
	select {
	case b := <-got:
		t.Fatalf("the client sent the planted server %q", b)
	default:
	}
}

// A view's requests reach Views as the JSON decoder reads them, whatever their form.
func TestViewsGetsTheRequestAsDecoded(t *testing.T) {
	t.Parallel()
	h := host.New(host.Config{})
	defer h.Close()
	path := filepath.Join(t.TempDir(), "s.sock")
	got := make(chan Request, 1)
	s, err := Serve(h, path, Options{Logf: func(string, ...any) {}, Views: func(nc *net.UnixConn, req Request) {
		got <- req
		nc.Close()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, line := range [][]byte{
		[]byte(`{"id":1,"method":"view/attach","params":{"term":"xterm-256color","colorterm":"truecolor"}}` + "\n"),
		[]byte(`{"id":1,"method":"view/attach","params":{"term":"xterm","open":["sh"]}}` + "\n"),
		[]byte(` {"method":"view/attach","id":1,"params":{"colorterm":"24bit","term":"xterm"}} ` + "\n"),
	} {
		var want Request
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(line)
		select {
		case req := <-got:
			if req.ID != want.ID || req.Method != want.Method || string(req.Params) != string(want.Params) {
				t.Errorf("%q reached Views as %+v (params %s), want %+v (params %s)", line, req, req.Params, want, want.Params)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q never reached Views", line)
		}
		c.Close()
	}
}
