package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/internal/sockpath"
)

// EnvSocket overrides the control socket's path, for the TUI and every client verb.
const EnvSocket = sockpath.EnvSocket

// SocketPath returns the control socket's path (sockpath.Path): flag when it is not empty, else
// $TICKMUX_SOCKET, else $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock.
func SocketPath(flag string) string { return sockpath.Path(flag) }

// ErrAlreadyRunning: a live tickmux answers on the socket (sockpath.ErrAlreadyRunning).
var ErrAlreadyRunning = sockpath.ErrAlreadyRunning

// Listener is the control socket, owned for as long as it is open: a lock file beside the socket
// keeps a second tickmux from taking it over (H-SEC3: the socket is 0600 in a 0700 directory).
type Listener struct {
	*net.UnixListener
	path string
	lock *os.File
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Close stops listening, removes the socket and releases the lock.
func (l *Listener) Close() error {
	err := l.UnixListener.Close() // unlinks the socket (net's default for a listener it created)
	l.lock.Close()                // releases the flock; the lock file stays for the next tickmux
	return err
}

// Listen opens the control socket at path. The directory is created 0700 (the default one is
// also checked to be ours and 0700); the socket is made 0600. A live socket is refused with
// ErrAlreadyRunning; a stale one (nobody answers, nobody holds the lock) is replaced.
func Listen(path string) (*Listener, error) {
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	if err := prepareDir(dir, path == sockpath.Default()); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the control socket %s: %w", path, err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w on %s", ErrAlreadyRunning, path)
		}
		return nil, fmt.Errorf("cannot lock the control socket %s: %w", path, err)
	}
	fail := func(err error) (*Listener, error) {
		lock.Close()
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return fail(fmt.Errorf("%s exists and is not a socket; remove it or choose another path with --socket", path))
		}
		// Nobody holds the lock, but a tickmux that predates it (or runs in another mount
		// namespace) might still answer: only a socket nobody answers on is stale.
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return fail(fmt.Errorf("%w on %s", ErrAlreadyRunning, path))
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(fmt.Errorf("cannot replace the stale socket %s: %w", path, err))
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fail(fmt.Errorf("cannot listen on %s: %w", path, err))
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return fail(fmt.Errorf("cannot make %s private: %w", path, err))
	}
	return &Listener{UnixListener: ln, path: path, lock: lock}, nil
}

// prepareDir creates dir 0700 when it is missing. The default directory must also be ours and a
// real directory, and is made 0700 when it is not; a directory given with --socket is left as it
// is (the socket's own 0600 and the peer check protect it).
func prepareDir(dir string, isDefault bool) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("cannot create the socket directory %s: %w", dir, err)
		}
		return os.Chmod(dir, 0o700) // MkdirAll's mode passed through the umask
	}
	if err != nil {
		return fmt.Errorf("cannot use the socket directory %s: %w", dir, err)
	}
	if !isDefault {
		return nil
	}
	if !fi.IsDir() {
		return fmt.Errorf("the socket directory %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the socket directory %s belongs to uid %d, not to you (uid %d); remove it or choose another path with --socket", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("cannot make the socket directory %s private: %w", dir, err)
		}
	}
	return nil
}

// peerUID returns the uid of the process at the other end of a Unix socket (SO_PEERCRED).
func peerUID(c *net.UnixConn) (int, error) {
	uid, _, err := peerCred(c)
	return uid, err
}

// peerCred returns the uid and the pid of the process at the other end of a Unix socket
// (SO_PEERCRED: the process that connected, as of the connect).
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if serr != nil {
		return -1, 0, serr
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// expectedUID is the uid a client trusts: its own. Tests replace it to prove each check.
var expectedUID = os.Getuid

// checkSocketOwner is what a client checks before it connects (H-SEC3, the client's side): the
// socket's directory is a real directory owned by the client's uid that no other user can write,
// and the socket is owned by that uid too. Another user could otherwise plant a socket on the
// default path and receive the client's arguments.
func checkSocketOwner(path string, uid int) error {
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing listens there; connecting says so
	}
	if err != nil {
		return fmt.Errorf("cannot check the socket directory %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	// A root-owned sticky directory such as /tmp (a --socket there) is shared but nobody can
	// replace another's file in it: the socket's owner and the peer checks below decide.
	sharedSticky := ok && st.Uid == 0 && fi.Mode()&fs.ModeSticky != 0
	switch {
	case sharedSticky && fi.IsDir():
	case !fi.IsDir():
		return fmt.Errorf("refusing to connect to %s: its directory %s is not a directory (a symlink?); only a directory of your own is trusted", path, dir)
	case !ok:
		return fmt.Errorf("refusing to connect to %s: cannot tell who owns %s", path, dir)
	case int(st.Uid) != uid:
		return fmt.Errorf("refusing to connect to %s: its directory %s belongs to uid %d, not to you (uid %d); another user may have planted it, remove it or point --socket elsewhere", path, dir, st.Uid, uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("refusing to connect to %s: its directory %s is writable by other users (mode %04o); make it private (chmod 700 %s)", path, dir, fi.Mode().Perm(), dir)
	}
	fi, err = os.Lstat(path)
	if err != nil {
		return nil // missing: connecting says nothing runs there
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return fmt.Errorf("refusing to connect to %s: the socket belongs to uid %d, not to you (uid %d)", path, st.Uid, uid)
	}
	return nil
}

// checkPeer makes sure the process that accepted the connection runs as uid (SO_PEERCRED).
func checkPeer(nc net.Conn, path string, uid int) error {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("refusing to talk to %s: not a Unix socket connection", path)
	}
	peer, err := peerUID(uc)
	if err != nil {
		return fmt.Errorf("refusing to talk to %s: cannot tell who listens there: %w", path, err)
	}
	if peer != uid {
		return fmt.Errorf("refusing to talk to %s: the server there runs as uid %d, not as you (uid %d)", path, peer, uid)
	}
	return nil
}
