package server

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/agent"
	"tickmux/internal/sockpath"
)

// viewSignals are the signals a view relays to the server (SIGWINCH, SIGCONT, SIGTSTP) or acts on.
var viewSignals = []os.Signal{syscall.SIGWINCH, syscall.SIGCONT, syscall.SIGTSTP, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT}

// notifySignals relays viewSignals to c (signal.Notify); a test sees when it is called.
var notifySignals = func(c chan os.Signal) { signal.Notify(c, viewSignals...) }

// notification is the line a view or the server sends for method (no id, no params), newline
// included.
func notification(method string) []byte {
	b, _ := json.Marshal(agent.Request{Method: method})
	return append(b, '\n')
}

// resetModes undoes what a server that died may have left on the terminal: the alternate
// screen, a hidden cursor, mouse reporting, bracketed paste, focus events.
const resetModes = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b[?25h\x1b[0m\x1b[?1049l"

// stopWait bounds the wait for the server's answer to a detach asked after a stop signal.
const stopWait = 2 * time.Second

// left is why a view ended (the server's view/left), or, with suspend, that the server released
// the terminal (view/suspend).
type left struct {
	LeftParams
	suspend bool
}

// view is a view whose terminal is the server's: it relays what the terminal tells this process
// alone (SIGWINCH as a resize, SIGCONT as a redraw, SIGTSTP as a request to suspend; it stops
// itself when the server says the terminal is released), detaches on SIGTERM, SIGINT and SIGQUIT,
// ends at once on SIGHUP (the terminal is gone), and when the server says the view is over,
// puts the terminal's settings back and says why on the normal screen. One goroutine reads the
// server's lines; everything else happens in wait.
type view struct {
	socket string
	in     int       // the terminal's descriptor, whose settings are put back
	out    io.Writer // the terminal
	errw   io.Writer
	saved  termState
	sigs   chan os.Signal
	tell   func(method string)
	lines  chan []byte
	done   chan struct{}
	close  func()
}

// newView starts the wait of a view attached through the socket at path: its terminal is in
// (settings saved before the server had it) and out, messages go to errw, the server's lines
// come from r, tell sends a notification, sigs carries viewSignals, and closeConn ends the
// connection (stop calls it).
func newView(path string, in int, out, errw io.Writer, saved termState, sigs chan os.Signal, r *bufio.Reader, tell func(method string), closeConn func()) *view {
	v := &view{socket: path, in: in, out: out, errw: errw, saved: saved, sigs: sigs, tell: tell,
		lines: make(chan []byte, 8), done: make(chan struct{}), close: closeConn}
	go v.read(r) // owner: the view; returns at the connection's end, or once stop is called
	return v
}

// stop ends the connection and stops listening for signals.
func (v *view) stop() {
	signal.Stop(v.sigs)
	close(v.done)
	v.close()
}

func (v *view) read(r *bufio.Reader) {
	defer close(v.lines)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		select {
		case v.lines <- line:
		case <-v.done:
			return
		}
	}
}

// wait waits for the view's end and returns the exit code.
func (v *view) wait() int {
	var stop <-chan time.Time
	for {
		select {
		case sig := <-v.sigs:
			switch sig {
			case syscall.SIGWINCH:
				v.tell(notifyResize)
			case syscall.SIGCONT:
				// Continued in the background (bg, kill -CONT): stopped again at once, as a
				// background read of the terminal would be, so that fg (whose SIGCONT is the
				// only one a running job gets) finds it stopped and continues it.
				waitForeground(v.in)
				v.tell(notifyRedraw)
			case syscall.SIGTSTP:
				v.tell(notifySuspend) // the server releases the terminal, then says stop
			case syscall.SIGHUP:
				return 0 // the terminal is gone: nothing to restore or print on
			default:
				if stop == nil {
					v.tell(notifyDetach)
					t := time.NewTimer(stopWait)
					defer t.Stop()
					stop = t.C
				}
			}
		case line, open := <-v.lines:
			if !open {
				return v.wentAway()
			}
			l := decodeLine(line)
			switch {
			case l == nil:
			case l.suspend:
				// SIGSTOP, as SIGTSTP's default would: once caught, SIGTSTP stays with Go's
				// handler, which would drop it. Stopped here until fg's SIGCONT, which the view
				// relays (the server reads and draws again).
				syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			default:
				return v.end(l.LeftParams)
			}
		case <-stop:
			return v.wentAway()
		}
	}
}

// decodeLine reads a line from the server: view/left, view/suspend, or nil for a line to ignore.
func decodeLine(line []byte) *left {
	var m agent.Message
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	switch m.Method {
	case notifySuspend:
		return &left{suspend: true}
	case notifyLeft:
		var l left
		_ = json.Unmarshal(m.Params, &l.LeftParams)
		return &l
	}
	return nil
}

// wentAway: the server ended without restoring the terminal (killed, say), or did not answer a
// detach: the terminal is restored here, and the socket it left removed.
func (v *view) wentAway() int {
	_ = v.saved.restore(v.in)
	io.WriteString(v.out, resetModes)
	io.WriteString(v.errw, "tickmux: the server went away\n")
	removeStale(v.socket)
	return 1
}

func (v *view) end(l LeftParams) int {
	_ = v.saved.restore(v.in)
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
			if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == os.ModeSocket && !sockpath.Running(path) {
				os.Remove(path)
			}
			lock.Close()
			return
		}
		lock.Close()
		time.Sleep(20 * time.Millisecond)
	}
}

// waitForeground waits until this process's group is the foreground of terminal fd, as a
// background job's read of its terminal would: SIGTTIN stops the group until fg. It reports
// false when the process stays in the background (SIGTTIN ignored, or an orphaned group, where
// the kernel drops it); true too for a terminal that is not this process's controlling one (no
// job control to follow there).
func waitForeground(fd int) bool {
	return awaitForeground(func() bool {
		pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err != nil || pg == unix.Getpgrp()
	}, func() { unix.Kill(0, unix.SIGTTIN) }, 5*time.Millisecond)
}

// foregroundTries is how many times awaitForeground stops its group before it gives up: with
// its pause, about a second of running in the background.
const foregroundTries = 200

// awaitForeground reports whether foreground() holds, calling stop() and pausing after each
// miss. The pause lets the stop take effect: kill wakes one of the process's threads to stop
// the group, and on a loaded machine that thread may run milliseconds later (a loop without
// pauses used up its tries before it did, and the view gave up in the background). The tries
// count running time only: a group stopped until fg spends none of them.
func awaitForeground(foreground func() bool, stop func(), pause time.Duration) bool {
	for i := 0; i < foregroundTries; i++ {
		if foreground() {
			return true
		}
		stop()
		time.Sleep(pause)
	}
	return foreground()
}

// termState is a terminal's settings, to put back when the server could not, and whether its
// file description was non-blocking (a server that may not open the terminal afresh, another
// uid's, uses this process's file description, non-blocking).
type termState struct {
	t        *unix.Termios
	nonblock int
	flagsSet bool
}

// getTermState reads the settings of terminal fd; an error when fd is not a terminal.
func getTermState(fd int) (termState, error) {
	var s termState
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
		s.nonblock, s.flagsSet = fl&unix.O_NONBLOCK, true
	}
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	s.t = t
	return s, err
}

// restore puts the settings back on terminal fd.
func (s termState) restore(fd int) error {
	if s.flagsSet {
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil && fl&unix.O_NONBLOCK != s.nonblock {
			unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK|s.nonblock)
		}
	}
	if s.t == nil {
		return nil
	}
	return unix.IoctlSetTermios(fd, unix.TCSETS, s.t)
}

// WindowSize is terminal fd's size, 0, 0 when unknown.
func WindowSize(fd int) (cols, rows int) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Col), int(ws.Row)
}
