package earlyview

import (
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unsafe"
)

// The view's notifications to the server, and the server's that end the view.
const (
	NotifyResize = "view/resize" // the terminal changed size
	NotifyRedraw = "view/redraw" // draw everything again (after SIGCONT)
	NotifyDetach = "view/detach" // detach me (the view got SIGTERM, SIGINT or SIGQUIT)
	NotifyLeft   = "view/left"   // server → view: the view is over, the terminal is restored
	// NotifySuspend, view → server: suspend me (the view got SIGTSTP); server → view: the
	// terminal is back as it was, stop yourself (prefix C-z, or the view's own request).
	NotifySuspend = "view/suspend"
)

// Notification is the line the view sends for method (no id, no params), newline included.
func Notification(method string) []byte { return []byte(`{"method":"` + method + `"}` + "\n") }

// Left is why a view ended (the server's view/left notification).
type Left struct {
	Reason string
	Exited bool // the server itself is ending
	Failed bool // the view never showed: Reason is an error
	// Suspend: not the end; the server released the terminal (view/suspend): stop until fg.
	Suspend bool
}

// A Decoder reads one line from the server: left is non-nil for view/left; known is false for a
// line it cannot read (then another decoder must, from the same line).
type Decoder func(line []byte) (left *Left, known bool)

// resetModes undoes what a server that died may have left on the terminal: the alternate
// screen, a hidden cursor, mouse reporting, bracketed paste, focus events.
const resetModes = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b[?25h\x1b[0m\x1b[?1049l"

// stopWait bounds the wait for the server's answer to a detach asked after a stop signal.
const stopWait = 2 * time.Second

// View is a view whose terminal is the server's: it relays what the terminal tells this process
// alone (SIGWINCH as a resize, SIGCONT as a redraw, SIGTSTP as a request to suspend; it stops
// itself when the server says the terminal is released), detaches on SIGTERM, SIGINT and SIGQUIT,
// ends at once on SIGHUP (the terminal is gone), and when the server says the view is over,
// puts the terminal's settings back and says why on the normal screen. One goroutine reads the
// server's lines; everything else happens in Wait.
type View struct {
	socket string
	in     int       // the terminal's descriptor, whose settings are put back
	out    io.Writer // the terminal
	errw   io.Writer
	saved  TermState
	sigs   chan os.Signal
	tell   func(method string)
	lines  chan []byte
	done   chan struct{}
	close  func()

	pending  []byte // a line the last decoder could not read
	stopping bool
	stopBy   time.Time
}

// NewView starts the wait of a view attached through the socket at path: its terminal is in
// (settings saved before the server had it) and out, messages go to errw, the server's lines
// come from r, tell sends a notification, sigs carries Signals, and closeConn ends the connection
// (Close calls it).
func NewView(path string, in int, out, errw io.Writer, saved TermState, sigs chan os.Signal, r io.Reader, tell func(method string), closeConn func()) *View {
	v := &View{socket: path, in: in, out: out, errw: errw, saved: saved, sigs: sigs, tell: tell,
		lines: make(chan []byte, 8), done: make(chan struct{}), close: closeConn}
	go v.read(r) // owner: the View; returns at the connection's end, or once Close is called
	return v
}

// Close ends the connection and stops listening for signals.
func (v *View) Close() {
	signal.Stop(v.sigs)
	close(v.done)
	v.close()
}

func (v *View) read(r io.Reader) {
	defer close(v.lines)
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for {
			i := 0
			for i < len(buf) && buf[i] != '\n' {
				i++
			}
			if i == len(buf) {
				break
			}
			line := append([]byte(nil), buf[:i+1]...)
			buf = buf[i+1:]
			select {
			case v.lines <- line:
			case <-v.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Wait waits for the view's end and returns the exit code. ok is false when decode could not
// read a line: Wait must be called again with a decoder that can, and goes on from that line.
func (v *View) Wait(decode Decoder) (code int, ok bool) {
	var stop <-chan time.Time
	if v.stopping {
		t := time.NewTimer(time.Until(v.stopBy))
		defer t.Stop()
		stop = t.C
	}
	for {
		line := v.pending
		v.pending = nil
		if line == nil {
			select {
			case sig := <-v.sigs:
				switch sig {
				case syscall.SIGWINCH:
					v.tell(NotifyResize)
				case syscall.SIGCONT:
					// Continued in the background (bg, kill -CONT): stopped again at once, as a
					// background read of the terminal would be, so that fg (whose SIGCONT is
					// the only one a running job gets) finds it stopped and continues it.
					WaitForeground(v.in)
					v.tell(NotifyRedraw)
				case syscall.SIGTSTP:
					v.tell(NotifySuspend) // the server releases the terminal, then says stop
				case syscall.SIGHUP:
					return 0, true // the terminal is gone: nothing to restore or print on
				default:
					if !v.stopping {
						v.stopping, v.stopBy = true, time.Now().Add(stopWait)
						v.tell(NotifyDetach)
						t := time.NewTimer(stopWait)
						defer t.Stop()
						stop = t.C
					}
				}
				continue
			case l, open := <-v.lines:
				if !open {
					return v.wentAway(), true
				}
				line = l
			case <-stop:
				return v.wentAway(), true
			}
		}
		left, known := decode(line)
		if !known {
			v.pending = line
			return 0, false
		}
		if left != nil && left.Suspend {
			v.stopSelf()
			continue
		}
		if left != nil {
			return v.end(*left), true
		}
	}
}

// stopSelf stops this process, as SIGTSTP's default would, once the server has released the
// terminal: the shell has it until fg, whose SIGCONT the view relays (the server reads and
// draws again).
func (v *View) stopSelf() {
	// SIGSTOP: once caught, SIGTSTP stays with Go's handler, which would drop it.
	syscall.Kill(os.Getpid(), syscall.SIGSTOP) // stopped here until SIGCONT
}

// WaitForeground waits until this process's group is the foreground of terminal fd, as a
// background job's read of its terminal would: SIGTTIN stops the group until fg. It reports
// false when the process stays in the background (SIGTTIN ignored); true too for a terminal
// that is not this process's controlling one (no job control to follow there).
func WaitForeground(fd int) bool {
	for i := 0; i < 100; i++ {
		var pg int32
		if ioctl(fd, syscall.TIOCGPGRP, unsafe.Pointer(&pg)) != nil || int(pg) == syscall.Getpgrp() {
			return true
		}
		syscall.Kill(0, syscall.SIGTTIN)
	}
	return false
}

// ErrBackground is the normal path's message when WaitForeground gave up.
const ErrBackground = "this view is a background job of its terminal: run tickmux attach in the foreground (fg)"

// wentAway: the server ended without restoring the terminal (killed, say), or did not answer a
// detach: the terminal is restored here, and the socket it left removed.
func (v *View) wentAway() int {
	_ = v.saved.Restore(v.in)
	io.WriteString(v.out, resetModes)
	io.WriteString(v.errw, "tickmux: the server went away\n")
	removeStale(v.socket)
	return 1
}

func (v *View) end(l Left) int {
	_ = v.saved.Restore(v.in)
	switch {
	case l.Failed:
		io.WriteString(v.errw, "tickmux: "+l.Reason+"\n")
		return 1
	case l.Exited:
		io.WriteString(v.out, "[tickmux exited]\n")
	default:
		// The server lives on: say how to show it again (tickmux may not be on PATH).
		io.WriteString(v.out, "["+l.Reason+"] to come back: "+comeBackHint(v.socket)+"\n")
	}
	return 0
}

// LightDecode reads the lines a server sends most: view/left with a reason of printable ASCII
// that JSON leaves as it is, as the server writes it (the reason, then exited and failed when
// true). It knows no other line: the normal path's JSON decoder reads those.
func LightDecode(line []byte) (*Left, bool) {
	const head = `{"method":"` + NotifyLeft + `","params":{"reason":"`
	s := string(line)
	if s == `{"method":"`+NotifySuspend+`"}`+"\n" {
		return &Left{Suspend: true}, true
	}
	if len(s) < len(head) || s[:len(head)] != head {
		return nil, false
	}
	s = s[len(head):]
	i := 0
	for i < len(s) && s[i] != '"' {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '\\' || c == '<' || c == '>' || c == '&' {
			return nil, false
		}
		i++
	}
	if i == len(s) {
		return nil, false
	}
	l := &Left{Reason: s[:i]}
	switch s[i+1:] {
	case "}}\n":
	case `,"exited":true}}` + "\n":
		l.Exited = true
	case `,"failed":true}}` + "\n":
		l.Failed = true
	case `,"exited":true,"failed":true}}` + "\n":
		l.Exited, l.Failed = true, true
	default:
		return nil, false
	}
	return l, true
}

// removeStale removes the socket a killed server left, once nobody holds its lock and nobody
// answers on it, so that it blocks nothing (the next server would replace it anyway).
func removeStale(path string) {
	for i := 0; i < 50; i++ { // the lock goes with the dead server's last descriptor
		lock, err := os.OpenFile(path+".lock", os.O_RDWR|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return
		}
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == os.ModeSocket && !Running(path) {
				os.Remove(path)
			}
			lock.Close()
			return
		}
		lock.Close()
		time.Sleep(20 * time.Millisecond)
	}
}
