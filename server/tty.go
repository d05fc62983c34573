package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
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
	// wasExclusive: the terminal was exclusive (TIOCEXCL) before the view; it stays so after.
	wasExclusive bool
	nowOK        bool // fd is non-blocking: WriteNow may write
	saved        *term.State
	raw          *unix.Termios // what Start set: resume sets it again

	// The view's process and the terminal's device, to read and draw only while that process
	// runs in the terminal's foreground (jobs.go); no process: not known, always.
	client *statFile
	rdev   uint64
	rc     syscall.RawConn

	mu     sync.Mutex
	cb     func()
	broken atomic.Bool

	jobMu     sync.Mutex  // the write of a frame, suspend and resume
	suspended atomic.Bool // stopped or in the background: no read, no write
	// sawForeground is when (monotime) a read last found the view's process in the foreground;
	// 0 after a suspension.
	sawForeground atomic.Int64
	resumed       chan struct{} // closed when a suspended view reads again
	drained       chan struct{} // closed by Drain: the reader ends
	drainOnce     sync.Once
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
	// EBUSY: the terminal is exclusive already (exclusive.go), which stops a new open.
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.EBUSY) {
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
	// Go's poller made the descriptor non-blocking (shareViewTty did for a shared one): WriteNow
	// relies on it, and does nothing should it not be.
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	nowOK := err == nil && fl&unix.O_NONBLOCK != 0
	return &viewTty{name: name, f: f, fd: fd, shared: shared, wasExclusive: isExclusive(fd), rc: rc, nowOK: nowOK, resumed: make(chan struct{}), drained: make(chan struct{})}, nil
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
	if raw, err := unix.IoctlGetTermios(t.fd, unix.TCGETS); err == nil {
		t.raw = raw
	}
	t.own(true) // no process but root opens it now (exclusive.go)
	return nil
}

func (t *viewTty) Stop() error {
	t.own(false)
	if t.saved != nil && !t.suspended.Load() { // a suspended view's terminal is its shell's now
		if err := term.Restore(t.fd, t.saved); err != nil {
			return err
		}
	}
	_ = t.f.SetReadDeadline(time.Now())
	return nil
}

// Drain wakes tcell's reader.
func (t *viewTty) Drain() error {
	t.drainOnce.Do(func() { close(t.drained) })
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

// Read reads only while the view's process is in its terminal's foreground (jobs.go): the
// process is looked at once the terminal is readable and before anything is taken from it.
func (t *viewTty) Read(b []byte) (int, error) {
	for {
		if t.suspended.Load() {
			t.jobMu.Lock()
			resumed := t.resumed
			t.jobMu.Unlock()
			select {
			case <-resumed:
			case <-t.drained:
				return 0, os.ErrDeadlineExceeded
			}
			continue
		}
		n, away := 0, false
		var rerr error
		// The first try comes before any wait in the poller, right after the read before: as
		// a rule nothing is there yet, and the look at the process (5-50 µs, on a key's path)
		// is left for the try after the poller says the terminal is readable.
		first := true
		err := t.rc.Read(func(fd uintptr) bool {
			if first {
				first = false
				if !readable(int(fd)) {
					return false
				}
			}
			// Suspended meanwhile (prefix C-z: the view's process may not have stopped yet), or
			// found stopped or in the background: the input is the shell's.
			if t.suspended.Load() || !t.foreground() {
				away = true
				return true
			}
			t.sawForeground.Store(monotime())
			n, rerr = unix.Read(int(fd), b)
			return rerr != unix.EAGAIN
		})
		switch {
		case away:
			t.suspend()
		case err != nil:
			return 0, err
		case rerr != nil:
			return 0, rerr
		case n == 0:
			return 0, io.EOF
		default:
			return n, nil
		}
	}
}

// foreground reports whether the view's process may use the terminal now.
func (t *viewTty) foreground() bool { return t.client.foreground(t.rdev) }

// foregroundToDraw is foreground for a frame's write: a frame that follows a read by less than
// lookAgain draws on what that read's look found (a key's echo is drawn about half a
// millisecond after the key is read, and the look would cost it another 5-50 µs). A process
// stopped within that spell gets at most that one frame drawn over its shell's terminal, the
// race that a look right before the write leaves open too, only wider; its keys are never read.
func (t *viewTty) foregroundToDraw() bool {
	if at := t.sawForeground.Load(); at != 0 && monotime()-at < int64(lookAgain) {
		return true
	}
	return t.foreground()
}

// lookAgain is how long a look at the view's process that found it in the foreground serves
// the frames written after it (foregroundToDraw).
const lookAgain = 2 * time.Millisecond

// monotime is a monotonic clock in nanoseconds, never 0.
func monotime() int64 { return int64(time.Since(clockStart)) + 1 }

var clockStart = time.Now()

// readable reports whether a read of fd would not wait: bytes are there (FIONREAD), or the
// terminal hung up or failed (the read reports it). When the ioctl fails, it says yes.
func readable(fd int) bool {
	if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err != nil || n > 0 {
		return true
	}
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if _, err := unix.Poll(p, 0); err != nil {
		return true
	}
	return p[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
}

// suspend stops reading and drawing: the view's process was found stopped or in the
// background. The terminal is left to its shell as it is.
func (t *viewTty) suspend() {
	t.jobMu.Lock()
	defer t.jobMu.Unlock()
	t.suspendLocked()
}

// suspendLocked marks the view suspended; a shared file description (shareViewTty) is the
// shell's again meanwhile: blocking, as the shell expects. Under jobMu.
func (t *viewTty) suspendLocked() {
	t.sawForeground.Store(0)
	if !t.suspended.Swap(true) {
		t.own(false) // the shell's programs may open it (/dev/tty) meanwhile
		if t.shared {
			_ = unix.SetNonblock(t.fd, false)
		}
	}
}

// release suspends the view at the person's request (prefix C-z, SIGTSTP): the terminal is put
// back as it was before the view, with out (its modes reset, the normal screen) written first.
func (t *viewTty) release(out []byte) {
	t.jobMu.Lock()
	defer t.jobMu.Unlock()
	if !t.suspended.Load() {
		_ = t.f.SetWriteDeadline(time.Now().Add(writeStall))
		_, _ = t.f.Write(out)
	}
	t.suspendLocked()
	if t.saved != nil {
		_ = term.Restore(t.fd, t.saved)
	}
}

// resume is told that the view's process continued (SIGCONT): when it is in the foreground,
// the terminal is put in raw mode again (its shell may have had it meanwhile, suspended or not)
// and a suspended view reads and draws again. It reports whether the view was suspended; the
// caller redraws the view whole either way.
func (t *viewTty) resume() bool {
	t.jobMu.Lock()
	defer t.jobMu.Unlock()
	if !t.foreground() {
		return false
	}
	if t.raw != nil {
		_ = unix.IoctlSetTermios(t.fd, unix.TCSETS, t.raw)
	}
	t.own(true)
	if !t.suspended.Load() {
		return false
	}
	if t.shared {
		_ = unix.SetNonblock(t.fd, true)
	}
	t.suspended.Store(false)
	close(t.resumed)
	t.resumed = make(chan struct{})
	return true
}

// Write gives up after writeStall; the view is then broken and gets dropped. A suspended view's
// frames are dropped: it is redrawn whole when it resumes.
func (t *viewTty) Write(b []byte) (int, error) {
	if t.broken.Load() {
		return 0, errors.New("the view's terminal stopped reading")
	}
	t.jobMu.Lock()
	defer t.jobMu.Unlock()
	if t.suspended.Load() {
		return len(b), nil
	}
	if !t.foregroundToDraw() {
		t.suspendLocked()
		return len(b), nil
	}
	_ = t.f.SetWriteDeadline(time.Now().Add(writeStall))
	n, err := t.f.Write(b)
	if err != nil {
		t.broken.Store(true)
	}
	return n, err
}

// WriteNow writes what the terminal takes of b at once, and never waits: not for room, not for
// a frame or a suspension under way (their lock is busy: nothing is written). The App's
// goroutine writes a small frame so (viewterm's ShowNow), a key's echo with no wake-up of the
// view's copier, which writes what is left. As Write, a frame for a view that is not in the
// foreground is dropped.
func (t *viewTty) WriteNow(b []byte) (int, error) {
	if t.broken.Load() {
		return 0, errors.New("the view's terminal stopped reading")
	}
	if !t.nowOK || !t.jobMu.TryLock() {
		return 0, nil
	}
	defer t.jobMu.Unlock()
	if t.suspended.Load() {
		return len(b), nil
	}
	if !t.foregroundToDraw() {
		t.suspendLocked()
		return len(b), nil
	}
	n := 0
	var werr error
	// Not through the file's Write, which waits; the descriptor is kept open meanwhile.
	err := t.rc.Control(func(fd uintptr) {
		for {
			n, werr = unix.Write(int(fd), b)
			if werr != unix.EINTR {
				break
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case werr == unix.EAGAIN:
		return 0, nil
	case werr != nil:
		return 0, werr
	}
	return n, nil
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
	t.own(false)
	t.client.close()
	return t.f.Close()
}
