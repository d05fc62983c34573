package host

import (
	"errors"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// pipeReader reads a Tick's stdout pipe, in or out of the runtime's poller.
//
// A pipe registered with the poller (as every os.File pipe is) wakes the poller at every write
// the Tick makes, whether or not anyone waits to read it: the registration is edge-triggered, so
// a Tick flooding one line per write costs the host a wake-up per line even while its reader
// sleeps between paced reads (see pacedReader). So while the Tick floods, its pipe is read
// without the poller, by non-blocking reads on a descriptor the poller does not know; only when
// a read finds nothing does the reader register a duplicate of the descriptor and wait in the
// poller, at no cost while the Tick is quiet. A read while the Tick is busy (tryRead, called by
// the pacer) takes the pipe out of the poller again.
type pipeReader struct {
	name string

	mu     sync.Mutex // held across every non-blocking read and every change below
	fd     int        // non-blocking, never registered with the poller; -1 once closed
	polled *os.File   // a registered duplicate of fd while the reader may wait; nil otherwise
	closed bool
}

// newPipeReader takes over f, a pipe's read end: f is closed and the pipeReader reads its
// descriptor from now on. It fails (and leaves f as it was) when f is not a pipe.
func newPipeReader(f *os.File) (*pipeReader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		return nil, errors.New("not a pipe")
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	if cerr := rc.Control(func(raw uintptr) { fd, err = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil || err != nil {
		return nil, errors.Join(cerr, err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	name := f.Name()
	f.Close()
	return &pipeReader{name: name, fd: fd}, nil
}

// tryRead reads what is there without waiting, (0, nil) if nothing is, and takes the pipe out
// of the poller: the pacer calls it while the Tick is busy.
func (p *pipeReader) tryRead(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := p.lockOpen(); err != nil {
		return 0, err
	}
	leave := p.polled
	p.polled = nil
	n, err := p.readNow(b)
	p.mu.Unlock()
	closeQuietly(leave)
	return n, err
}

// Read reads what is there, or waits in the poller for it.
func (p *pipeReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := p.lockOpen(); err != nil {
		return 0, err
	}
	if p.polled == nil {
		n, err := p.readNow(b)
		if n > 0 || err != nil {
			p.mu.Unlock()
			return n, err
		}
		// Nothing there: wait in the poller on a registered duplicate.
		if p.polled, err = p.register(); err != nil {
			p.mu.Unlock()
			return 0, err
		}
	}
	f := p.polled
	p.mu.Unlock()
	return f.Read(b) // Close closes f, which ends this wait
}

// lockOpen locks mu, unless the reader is closed.
func (p *pipeReader) lockOpen() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return os.ErrClosed
	}
	return nil
}

// readNow makes one non-blocking read: (0, nil) when nothing is there. Called with mu held.
func (p *pipeReader) readNow(b []byte) (int, error) {
	for {
		n, err := unix.Read(p.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, nil
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: p.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// register returns a duplicate of fd that the poller serves. Called with mu held.
func (p *pipeReader) register() (*os.File, error) {
	dup, err := unix.FcntlInt(uintptr(p.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: p.name, Err: err}
	}
	return os.NewFile(uintptr(dup), p.name), nil // non-blocking already: the poller takes it
}

// Close ends a read waiting in the poller and releases the descriptors. Safe to call more than
// once and from any goroutine.
func (p *pipeReader) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	f := p.polled
	p.polled = nil
	err := unix.Close(p.fd) // no non-blocking read is running: they hold mu
	p.fd = -1
	p.mu.Unlock()
	closeQuietly(f) // wakes a read waiting on it with os.ErrClosed
	return err
}

func closeQuietly(f *os.File) {
	if f != nil {
		f.Close()
	}
}
