package host

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
// The guardian is this same binary started again with EnvGuardian set; the host package's init
// runs it before main (or a test's TestMain), so every binary that links host can guard itself.
// It sits in a process group of its own and ignores the signals a terminal sends, so a Ctrl-C
// or a hangup aimed at tickmux does not end it first. tickmux's end of the socket is
// close-on-exec: no program tickmux starts holds it open.

// EnvGuardian, set to "1", makes a binary that links host run as a guardian (see init).
const EnvGuardian = "TICKMUX_GUARDIAN"

func init() {
	if os.Getenv(EnvGuardian) == "1" {
		os.Exit(guardianMain(os.Stdin))
	}
}

// Guardian is the handle on a guardian process. Its methods are safe for concurrent use.
type Guardian struct {
	mu sync.Mutex
	w  *os.File // tickmux's end of the socket (SOCK_SEQPACKET: one message per line)
}

// StartGuardian starts a guardian: exe (normally os.Executable()) run with EnvGuardian=1.
func StartGuardian(exe string) (*Guardian, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot start the guardian: %w", err)
	}
	w, r := os.NewFile(uintptr(fds[0]), "guardian"), os.NewFile(uintptr(fds[1]), "guardian-input")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), EnvGuardian+"=1")
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = startTracked(cmd)
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("cannot start the guardian %s: %w", exe, err)
	}
	return &Guardian{w: w}, nil
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
// could be started (then children get a parent-death SIGKILL instead).
var processGuardian = sync.OnceValue(func() *Guardian {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	g, err := StartGuardian(exe)
	if err != nil {
		return nil
	}
	return g
})

// guardianMain is the guardian process: it keeps the list of watched groups until its input
// ends, then ends the groups still listed and exits.
func guardianMain(in *os.File) int {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	watched := map[int]bool{} // pgid → hang up (true) or terminate (false)
	held := map[int][]int{}   // pgid → the PTY masters kept open for it
	buf, oob := make([]byte, 256), make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(int(in.Fd()), buf, oob, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break // tickmux is gone (or closed us): act
		}
		var fds []int
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if rights, err := unix.ParseUnixRights(&m); err == nil {
					fds = append(fds, rights...)
				}
			}
		}
		f := strings.Fields(string(buf[:n]))
		pgid := 0
		if len(f) >= 2 {
			pgid, _ = strconv.Atoi(f[1])
		}
		switch {
		case pgid <= 1:
			closeAll(fds)
		case f[0] == "watch" && len(f) == 3:
			watched[pgid] = f[2] == "hup"
			held[pgid] = append(held[pgid], fds...)
		case f[0] == "forget":
			delete(watched, pgid)
			closeAll(held[pgid])
			delete(held, pgid)
			closeAll(fds)
		default:
			closeAll(fds)
		}
	}
	endGroups(watched, TerminateGrace)
	return 0 // the masters close as the guardian exits: whatever is left sees the hangup
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// endGroups sends each group its first signal, waits up to grace for them to be gone, then
// kills what is left.
func endGroups(groups map[int]bool, grace time.Duration) {
	if len(groups) == 0 {
		return
	}
	for pgid, hangup := range groups {
		sig := syscall.SIGTERM
		if hangup {
			sig = syscall.SIGHUP
		}
		_ = syscall.Kill(-pgid, sig)
		_ = syscall.Kill(-pgid, syscall.SIGCONT) // a stopped job must run to see its signal
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		alive := false
		for pgid := range groups {
			if groupAlive(pgid) {
				alive = true
				break
			}
		}
		if !alive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for pgid := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
