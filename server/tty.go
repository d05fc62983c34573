package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// viewTty is a tcell.Tty over a terminal a client passed to the server. The server is no
// process of that terminal's session: it never gets SIGWINCH for it (the client forwards it,
// and resized calls tcell back), and it opens the terminal afresh through /proc/self/fd so
// that the non-blocking mode Go's poller sets is its own file description's, never the
// client's shell's. A terminal it may not open (another uid's: the person ran su or sudo -u
// before attaching) it uses through the descriptor it was passed: that file description is the
// client's, non-blocking while the view is attached and blocking again when it ends (Close; the
// client puts its flags back too).
type viewTty struct {
	name   string // the terminal's path, as the view's process named it (/dev/pts/5)
	f      *os.File
	fd     int
	shared bool // f is the client's own file description
	saved  *term.State

	mu     sync.Mutex
	cb     func()
	broken atomic.Bool
}

// writeStall is how long one write to a view's terminal may block before the view is dropped:
// a terminal that stops reading never holds up the server for longer.
const writeStall = 3 * time.Second

// openViewTty reopens the terminal behind a received descriptor, which is closed.
func openViewTty(received int) (*viewTty, error) {
	defer unix.Close(received)
	if !term.IsTerminal(received) {
		return nil, errors.New("the descriptor the view sent is not a terminal")
	}
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(received))
	if err != nil {
		name = "(a terminal)"
	}
	// O_NOCTTY: the server has no controlling terminal and must never get one.
	f, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(received), os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	shared := false
	if errors.Is(err, fs.ErrPermission) {
		f, err = shareViewTty(received, name)
		shared = true
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open the view's terminal: %w", err)
	}
	var fd int
	rc, err := f.SyscallConn()
	if err == nil {
		err = rc.Control(func(p uintptr) { fd = int(p) }) // not Fd(): it would make the file blocking
	}
	if err != nil || !term.IsTerminal(fd) {
		f.Close()
		return nil, errors.New("the view's terminal is not a terminal")
	}
	return &viewTty{name: name, f: f, fd: fd, shared: shared}, nil
}

// shareViewTty uses the received descriptor of a terminal the server may not open again: a
// copy of it, non-blocking (so that Go's poller, deadlines and Drain work on it).
func shareViewTty(received int, name string) (*os.File, error) {
	fd, err := unix.FcntlInt(uintptr(received), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (t *viewTty) Start() error {
	_ = t.f.SetReadDeadline(time.Time{})
	saved, err := term.MakeRaw(t.fd)
	if err != nil {
		return err
	}
	t.saved = saved
	return nil
}

func (t *viewTty) Stop() error {
	if t.saved != nil {
		if err := term.Restore(t.fd, t.saved); err != nil {
			return err
		}
	}
	_ = t.f.SetReadDeadline(time.Now())
	return nil
}

// Drain wakes tcell's reader.
func (t *viewTty) Drain() error {
	_ = t.f.SetReadDeadline(time.Now())
	if tio, err := unix.IoctlGetTermios(t.fd, unix.TCGETS); err == nil {
		tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 0, 0
		_ = unix.IoctlSetTermios(t.fd, unix.TCSETS, tio)
	}
	return nil
}

func (t *viewTty) NotifyResize(cb func()) {
	t.mu.Lock()
	t.cb = cb
	t.mu.Unlock()
}

// resized is the client's SIGWINCH.
func (t *viewTty) resized() {
	t.mu.Lock()
	cb := t.cb
	t.mu.Unlock()
	if cb != nil {
		cb()
	}
}

func (t *viewTty) WindowSize() (tcell.WindowSize, error) {
	ws, err := unix.IoctlGetWinsize(t.fd, unix.TIOCGWINSZ)
	if err != nil {
		return tcell.WindowSize{}, err
	}
	w, h := int(ws.Col), int(ws.Row)
	if w == 0 {
		w = 80
	}
	if h == 0 {
		h = 24
	}
	return tcell.WindowSize{Width: w, Height: h, PixelWidth: int(ws.Xpixel), PixelHeight: int(ws.Ypixel)}, nil
}

func (t *viewTty) Read(b []byte) (int, error) { return t.f.Read(b) }

// Write gives up after writeStall; the view is then broken and gets dropped.
func (t *viewTty) Write(b []byte) (int, error) {
	if t.broken.Load() {
		return 0, errors.New("the view's terminal stopped reading")
	}
	_ = t.f.SetWriteDeadline(time.Now().Add(writeStall))
	n, err := t.f.Write(b)
	if err != nil {
		t.broken.Store(true)
	}
	return n, err
}

// Broken reports that a write stalled or failed: the Mirror drops the view.
func (t *viewTty) Broken() bool { return t.broken.Load() }

func (t *viewTty) Close() error {
	if t.shared {
		// The client's shell reads this file description next: blocking again, as it was.
		if rc, err := t.f.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _ = unix.SetNonblock(int(fd), false) })
		}
	}
	return t.f.Close()
}
