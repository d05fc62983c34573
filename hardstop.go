package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"
)

// hardStopAfter is how long a stop waits for the graceful way before tickmux exits anyway:
// SIGHUP, SIGTERM, SIGINT and quit end tickmux within 2 s whatever the UI is doing. What tickmux
// started is then ended by its guardian (host.Guardian) as on a normal close. The second left
// is for the exit itself and the views' (TestExitUnderLoad: with 50 busy Ticks on a loaded
// machine, exiting after a 1.5 s deadline took up to 0.8 s more).
const hardStopAfter = 1000 * time.Millisecond

// signalStop ends tickmux on SIGHUP, SIGTERM or SIGINT: it asks for a graceful stop, and if the
// process is still here after deadline, it puts the terminal back as it found it and exits with
// 128+signal. A stop that came another way (quit, kill-server) arms the same deadline (exit
// status 1). The deadline runs on its own goroutine and timer, never on the UI loop.
type signalStop struct {
	sigs     chan os.Signal
	armed    chan struct{} // closed by arm
	armOnce  sync.Once
	done     chan struct{}
	deadline time.Duration
	exit     func(code int)
	restore  func()
	logf     func(format string, args ...any)
}

// newSignalStop starts listening for the signals and notes the terminal's state, so call it
// before the UI takes the terminal over.
func newSignalStop(logf func(format string, args ...any)) *signalStop {
	s := &signalStop{sigs: make(chan os.Signal, 1), armed: make(chan struct{}), done: make(chan struct{}), deadline: hardStopAfter, exit: os.Exit, logf: logf}
	fd := int(os.Stdin.Fd())
	if st, err := term.GetState(fd); err == nil {
		s.restore = func() {
			// Leave the alternate screen, show the cursor, stop mouse reports and bracketed
			// paste, then the saved tty modes: what tcell's Fini would have done.
			os.Stdout.WriteString("\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?25h\x1b[0m\x1b[?1049l")
			_ = term.Restore(fd, st)
		}
	}
	signal.Notify(s.sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	return s
}

// arm starts the deadline for a stop that is already under way without a signal (the person
// quit, kill-server). Any goroutine, any number of times; a deadline already running stays.
func (s *signalStop) arm() { s.armOnce.Do(func() { close(s.armed) }) }

// watch calls stop on the first signal, then exits the process if Close has not been called
// within the deadline (from the signal, or from arm if that came first). It returns at once;
// Close ends the watch.
func (s *signalStop) watch(stop func()) {
	go func() { // owner: s; returns on Close, or exits the process after a signal or arm
		var sig os.Signal
		select {
		case sig = <-s.sigs:
			s.logf("got %v: stopping", sig)
			go stop() // owner: none; the process ends within the deadline either way
		case <-s.armed:
		case <-s.done:
			return
		}
		t := time.NewTimer(s.deadline)
		defer t.Stop()
		select {
		case <-s.done:
		case <-t.C:
			code := 1
			if n, ok := sig.(syscall.Signal); ok {
				s.logf("still running %v after %v: exiting now", sig, s.deadline)
				code = 128 + int(n)
			} else {
				s.logf("still stopping %v after the stop began: exiting now", s.deadline)
			}
			if s.restore != nil {
				s.restore()
			}
			s.exit(code)
		}
	}()
}

// Close stops listening; a graceful stop finished in time.
func (s *signalStop) Close() {
	signal.Stop(s.sigs)
	close(s.done)
}
