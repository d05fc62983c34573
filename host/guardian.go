package host

import (
	"fmt"
	"os"
	"sync"

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
// The guardian is this same binary started again with EnvGuardian set; the init of host/guardian
// (which host imports) runs it before main (or a test's TestMain), so every binary that links
// host can guard itself. That package imports next to nothing, so that its init runs before the
// heavy ones of the libraries tickmux links (see its comment).
// It sits in a process group of its own and ignores the signals a terminal sends, so a Ctrl-C
// or a hangup aimed at tickmux does not end it first. tickmux's end of the socket is
// close-on-exec: no program tickmux starts holds it open.

// EnvGuardian, set to "1", makes a binary that links host run as a guardian.
const EnvGuardian = guardian.Env

// Guardian is the handle on a guardian process. Its methods are safe for concurrent use.
type Guardian struct {
	mu sync.Mutex
	w  *os.File // tickmux's end of the socket (SOCK_SEQPACKET: one message per line)
}

// StartGuardian starts a guardian: exe (normally os.Executable()) run with EnvGuardian=1.
func StartGuardian(exe string) (*Guardian, error) {
	fd, _, err := guardian.Spawn(exe)
	if err != nil {
		return nil, fmt.Errorf("cannot start the guardian %s: %w", exe, err)
	}
	return &Guardian{w: os.NewFile(uintptr(fd), "guardian")}, nil
}

// Watch asks the guardian to end process group pgid if tickmux dies: with SIGHUP first when
// hangup is true (a shell: what its terminal's hangup sends), else SIGTERM (a Tick); SIGKILL
// after TerminateGrace. The guardian keeps a copy of master (the group's PTY; may be nil) open
// until then, so the terminal stays up while the signals are delivered.
func (g *Guardian) Watch(pgid int, hangup bool, master *os.File) error {
	kind := "term"
	if hangup {
		kind = "hup"
	}
	return g.send(fmt.Sprintf("watch %d %s", pgid, kind), master)
}

// Forget tells the guardian that group pgid has ended (its id may be reused): it will not be
// signalled.
func (g *Guardian) Forget(pgid int) error {
	return g.send(fmt.Sprintf("forget %d", pgid), nil)
}

// send writes one message, with a copy of fd attached when fd is not nil. It reaches the
// descriptors through SyscallConn, which leaves their blocking mode as it is.
func (g *Guardian) send(msg string, fd *os.File) error {
	g.mu.Lock()
	defer g.mu.Unlock()
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
		return sendWith(nil)
	}
	var serr error
	if err := raw.Control(func(f uintptr) { serr = sendWith(unix.UnixRights(int(f))) }); err != nil {
		return err
	}
	return serr
}

// processGuardian is the guardian Launch registers every process group with; nil when none
// could be started (then children get a parent-death SIGKILL instead). Set in init: the reaping of
// a process forgets its group at the guardian, and starting the guardian goes through the reaper.
var processGuardian func() *Guardian

func init() { processGuardian = sync.OnceValue(startProcessGuardian) }

func startProcessGuardian() *Guardian {
	if fd, _, err, ok := guardian.Early(); ok && err == nil {
		return &Guardian{w: os.NewFile(uintptr(fd), "guardian")} // started at init (tickmux server)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	g, err := StartGuardian(exe)
	if err != nil {
		return nil
	}
	return g
}
