package host

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/host/guardian"
)

// The guardian ends what tickmux started even when tickmux itself is killed with SIGKILL, the
// way tmux's panes end: shells get SIGHUP (the hangup of their terminal, which they pass on to
// their jobs), Ticks SIGTERM, and whatever is left SIGKILL after TerminateGrace. A parent-death
// signal cannot do that: it kills the shell before the shell can hang up its jobs.
//
//	tickmux ──(socket: "watch <pgid> hup|term" + the PTY master, "forget <pgid>")──▶ guardian
//	   │ dies (any way): the socket's other end is gone, the guardian reads EOF
//	   └──────────────────────────────────────────────────────────────────▶ HUP/TERM each group,
//	                                                                        KILL after 2 s, exit
//
// The guardian holds a copy of each PTY master, so tickmux's death does not hang the terminals up
// at once: a shell that saw its terminal vanish could read EOF and exit before the hangup signal
// arrives, and then it leaves its jobs running. With the masters held, each shell gets SIGHUP on
// a live terminal, as on a normal close, and passes it on; the masters close when the guardian
// exits.
//
// The guardian is this same binary started again with a variable of host/guardian's set; that
// package's init (host imports it) runs it before main (or a test's TestMain), so every binary
// that links host can guard itself. That package imports next to nothing, so that its init runs
// before the heavy ones of the libraries tickmux links (see its comment).
//
// Where the guardian runs:
//
//   - The server a view starts (server.Start: `tickmux`, `tickmux attach`) is started by its
//     guardian, which is its parent and a child subreaper (host/guardian/ancestor.go): when the
//     server dies it ends the watched groups as above, and then every process still below it,
//     those that left their group and session (setsid, a double fork) too: while the server
//     runs they are reparented to it (reaper.go), once it is gone to the guardian. The server
//     adopts the socket it inherited (guardian.Inherited); its parent's death wakes its exit loop
//     (a parent-death SIGCHLD), and it then starts a child guardian as below and says so in the
//     log: from then on a kill -9 of the server ends only the watched groups.
//   - Everywhere else (tickmux serve, check, tests, a server started by hand) it is tickmux's
//     child, started at init (guardian.EnvEarly) or by PrestartGuardian/StartGuardian, and ends
//     only the groups it was told of.
//
// It sits in a session or process group of its own and ignores the signals a terminal sends, so
// a Ctrl-C or a hangup aimed at tickmux does not end it first. tickmux's end of the socket is
// close-on-exec: no program tickmux starts holds it open.
//
// tickmux watches its guardian in turn: Guardian keeps what it told it (each group, its kind and
// its PTY master), and when the guardian dies (a kill -9 by hand, the OOM killer) the exit loop
// (reaper.go) reaps it (a child guardian; a parent is its starter's to reap), and a new guardian
// is started and told every group again, with a copy of each master; the hosts' logs say so.
// Until it is told, a kill -9 of tickmux would leave those groups running: a pane whose group no
// guardian watches says so (Process.GuardError).

// EnvGuardian, set to "1", makes a binary that links host run as a guardian.
const EnvGuardian = guardian.Env

// Guardian is the handle on the guardian process, and its keeper: it remembers every group it
// was asked to watch and tells a new guardian all of them when the one running dies. Its methods
// are safe for concurrent use.
type Guardian struct {
	exe string // the binary a new guardian runs

	mu      sync.Mutex
	w       *os.File // tickmux's end of the socket (SOCK_SEQPACKET: one message per line); nil while none runs
	pid     int      // the guardian's pid; 0 while none runs
	parent  int      // the pid of the guardian that is this process's parent (adoptParentGuardian) while it runs, else 0
	down    error    // why none runs (w nil)
	watched map[int]*guardWatch
	starts  []time.Time // the replacements' starts in the last restartWindow
}

// A guardian that dies as soon as it starts (a broken binary, a memory limit that kills it at
// once) is replaced at most maxRestarts times in restartWindow; then the panes say they are
// unguarded, and the next pane opened tries again.
const (
	maxRestarts   = 5
	restartWindow = 10 * time.Second
)

// guardWatch is one group the guardian watches, as it was told.
type guardWatch struct {
	hangup bool
	master *os.File // may be nil; owned by proc, closed only once the group is forgotten
	proc   *Process // told when no guardian watches its group any more, and again when one does
}

// StartGuardian starts a guardian: exe (normally os.Executable()) run with EnvGuardian=1.
func StartGuardian(exe string) (*Guardian, error) {
	g := &Guardian{exe: exe, watched: map[int]*guardWatch{}}
	g.mu.Lock()
	err := g.spawnLocked()
	g.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return g, nil
}

// adoptGuardian is the handle on a guardian already started (fd its socket, pid its pid).
func adoptGuardian(exe string, fd, pid int) *Guardian {
	g := &Guardian{exe: exe, watched: map[int]*guardWatch{}}
	g.mu.Lock()
	g.w, g.pid = os.NewFile(uintptr(fd), "guardian"), pid
	g.mu.Unlock()
	awaitChildExit(pid, func() { g.died(pid) })
	return g
}

// adoptParentGuardian is the handle on the guardian that started this process as its child (the
// server a view started): fd its socket, pid its pid, this process's parent. It is not this
// process's to reap or to kill; its death is noticed when this process is reparented.
func adoptParentGuardian(exe string, fd, pid int) *Guardian {
	g := &Guardian{exe: exe, watched: map[int]*guardWatch{}}
	g.mu.Lock()
	g.w, g.pid, g.parent = os.NewFile(uintptr(fd), "guardian"), pid, pid
	g.mu.Unlock()
	awaitParentExit(pid, func() { g.died(pid) })
	return g
}

// spawnLocked starts a new guardian and has its exit watched. Called with g.mu held.
func (g *Guardian) spawnLocked() error {
	fd, pid, err := guardian.Spawn(g.exe)
	if err != nil {
		g.down = fmt.Errorf("cannot start the guardian %s: %w", g.exe, err)
		return g.down
	}
	g.w, g.pid, g.down = os.NewFile(uintptr(fd), "guardian"), pid, nil
	awaitChildExit(pid, func() { g.died(pid) })
	return nil
}

// Pid is the running guardian's pid, 0 while none runs.
func (g *Guardian) Pid() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pid
}

// Watch asks the guardian to end process group pgid if tickmux dies: with SIGHUP first when
// hangup is true (a shell: what its terminal's hangup sends), else SIGTERM (a Tick); SIGKILL
// after TerminateGrace. The guardian keeps a copy of master (the group's PTY; may be nil) open
// until then, so the terminal stays up while the signals are delivered. proc (may be nil) is told
// when the group is left unwatched, and again when a new guardian watches it. An error means no
// guardian watches the group now; a guardian started later will.
func (g *Guardian) Watch(pgid int, hangup bool, master *os.File, proc *Process) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.watched[pgid] = &guardWatch{hangup: hangup, master: master, proc: proc}
	if g.w == nil {
		// The last start failed: try again, which tells the new guardian every group.
		g.restartLocked("no guardian was running (its last start failed)")
		return g.down
	}
	err := g.sendLocked(watchMessage(pgid, hangup), master)
	if err != nil && g.socketGone(err) {
		g.restartLocked(fmt.Sprintf("the guardian (pid %d) is gone: its socket is closed (%v)", g.pid, err))
		return g.down
	}
	if err != nil {
		return fmt.Errorf("cannot tell the guardian to watch process group %d: %w", pgid, err)
	}
	return nil
}

func watchMessage(pgid int, hangup bool) string {
	kind := "term"
	if hangup {
		kind = "hup"
	}
	return fmt.Sprintf("watch %d %s", pgid, kind)
}

// Forget tells the guardian that group pgid has ended (its id may be reused): it will not be
// signalled.
func (g *Guardian) Forget(pgid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.watched, pgid)
	if g.w == nil {
		return nil // a new guardian will not be told of it
	}
	if err := g.sendLocked(fmt.Sprintf("forget %d", pgid), nil); err != nil && !g.socketGone(err) {
		return fmt.Errorf("cannot tell the guardian that process group %d ended: %w", pgid, err)
	}
	return nil // a dead guardian is replaced by its exit's handler, without this group
}

// socketGone reports whether a send failed because the guardian is gone.
func (g *Guardian) socketGone(err error) bool {
	return errors.Is(err, unix.EPIPE) || errors.Is(err, unix.ECONNRESET) || errors.Is(err, unix.ENOTCONN)
}

// died runs (on a goroutine of the exit loop's) once guardian pid has exited: it reaps it (unless
// it was this process's parent) and, unless it was replaced already, starts a new one. Only died
// reaps a guardian, under g.mu: a replacement that kills the old one (restartLocked) never
// signals a pid already reaped, which could be another process's by then.
func (g *Guardian) died(pid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	how := "it exited"
	if pid == g.parent {
		g.parent = 0
		how = "it ended (it was this server's parent, which would also have ended the programs that left their process group; the new one, a child of the server's, ends only the process groups it is told of)"
	} else {
		var ws unix.WaitStatus
		for {
			_, err := unix.Wait4(pid, &ws, 0, nil) // it has exited: this does not wait
			if err != unix.EINTR {
				break
			}
		}
		switch {
		case ws.Signaled():
			how = fmt.Sprintf("it was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
		case ws.Exited():
			how = fmt.Sprintf("it exited with status %d", ws.ExitStatus())
		}
	}
	if g.pid != pid {
		return // replaced already (a send found its socket closed)
	}
	g.pid = 0 // reaped: never to be signalled
	g.restartLocked(fmt.Sprintf("the guardian (pid %d) is gone: %s", pid, how))
}

// restartLocked drops the guardian that was running (if any: it is dead, or its socket is),
// starts a new one and tells it every group, logging what happened, and tells each pane whether
// a guardian watches it. Called with g.mu held.
func (g *Guardian) restartLocked(what string) {
	if g.w != nil {
		g.w.Close()
	}
	if g.pid > 0 && g.pid != g.parent {
		// Its socket says it is gone; make sure. died reaps it (its pid is not reused before).
		// A parent is left alone: its starter reaps it, and its pid may be reused by then.
		_ = unix.Kill(g.pid, unix.SIGKILL)
	}
	g.w, g.pid = nil, 0
	now := time.Now()
	recent := g.starts[:0]
	for _, t := range g.starts {
		if now.Sub(t) < restartWindow {
			recent = append(recent, t)
		}
	}
	g.starts = recent
	var err error
	if len(g.starts) >= maxRestarts {
		err = fmt.Errorf("%d guardians started in the last %v died", len(g.starts), restartWindow)
		g.down = err
		g.starts = g.starts[1:] // the next pane opened tries once more
	} else {
		g.starts = append(g.starts, now)
		err = g.spawnLocked()
	}
	if err != nil {
		err = fmt.Errorf("%s, and no new one could be started: if tickmux is killed now, the programs in its panes keep running; quit tickmux normally, or start it again: %w", what, err)
		g.down = err
		logGuardian("%v", err)
		for _, wt := range g.watched {
			wt.proc.setGuardError(err)
		}
		return
	}
	told, failed := 0, 0
	var sendErr error
	for pgid, wt := range g.watched {
		if err := g.sendLocked(watchMessage(pgid, wt.hangup), wt.master); err != nil {
			failed++
			sendErr = err
			wt.proc.setGuardError(fmt.Errorf("the new guardian (pid %d) could not be told to watch this pane's processes: %w", g.pid, err))
			continue
		}
		told++
		wt.proc.setGuardError(nil)
	}
	groups := "process groups"
	if told == 1 {
		groups = "process group"
	}
	logGuardian("%s; started a new guardian (pid %d), which now watches %d %s", what, g.pid, told, groups)
	if failed > 0 {
		logGuardian("the new guardian (pid %d) could not be told of %d process groups: %v", g.pid, failed, sendErr)
	}
}

// sendLocked writes one message, with a copy of fd attached when fd is not nil. It reaches the
// descriptors through SyscallConn, which leaves their blocking mode as it is. Called with g.mu
// held.
func (g *Guardian) sendLocked(msg string, fd *os.File) error {
	sendWith := func(oob []byte) error {
		raw, err := g.w.SyscallConn()
		if err != nil {
			return err
		}
		var serr error
		if err := raw.Control(func(s uintptr) { serr = unix.Sendmsg(int(s), []byte(msg), oob, nil, 0) }); err != nil {
			return err
		}
		return serr
	}
	if fd == nil {
		return sendWith(nil)
	}
	raw, err := fd.SyscallConn()
	if err != nil {
		return sendWith(nil) // the master is closed: the group is being ended
	}
	var serr error
	if err := raw.Control(func(f uintptr) { serr = sendWith(unix.UnixRights(int(f))) }); err != nil {
		return sendWith(nil)
	}
	return serr
}

// processGuardian is the guardian Launch registers every process group with; nil when none
// could be started (then children get a parent-death SIGKILL instead, and processGuardianErr
// says why). Set in init: the reaping of a process forgets its group at the guardian, and
// starting the guardian goes through the reaper.
var (
	processGuardian    func() *Guardian
	processGuardianErr error
)

func init() { processGuardian = sync.OnceValue(startProcessGuardian) }

// guardianExe is the binary a guardian runs: this process's own executable through /proc, which
// still runs it after the file was replaced (an upgrade) or removed (a `go run` build).
const guardianExe = "/proc/self/exe"

func startProcessGuardian() *Guardian {
	if fd, pid, ok := guardian.Inherited(); ok {
		return adoptParentGuardian(guardianExe, fd, pid) // the server a view started: its parent
	}
	if fd, pid, err, ok := guardian.Early(); ok && err == nil {
		return adoptGuardian(guardianExe, fd, pid) // started at init (tickmux server)
	}
	g, err := StartGuardian(guardianExe)
	if err != nil {
		processGuardianErr = err
		return nil
	}
	return g
}

// guardianLogs are the hosts whose logs hear of the guardian (it is the process's, not a host's).
var guardianLogs struct {
	sync.Mutex
	hosts map[*Host]struct{}
}

func hearGuardian(h *Host, on bool) {
	guardianLogs.Lock()
	defer guardianLogs.Unlock()
	if guardianLogs.hosts == nil {
		guardianLogs.hosts = map[*Host]struct{}{}
	}
	if on {
		guardianLogs.hosts[h] = struct{}{}
	} else {
		delete(guardianLogs.hosts, h)
	}
}

// logGuardian writes a line about the guardian to every host's log.
func logGuardian(format string, args ...any) {
	guardianLogs.Lock()
	defer guardianLogs.Unlock()
	for h := range guardianLogs.hosts {
		h.logf("guardian: "+format, args...)
	}
}
