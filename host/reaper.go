package host

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"tickmux/tick/wire"
)

// The host makes itself a child subreaper (PR_SET_CHILD_SUBREAPER): when a Tick's process dies,
// its children are reparented to tickmux instead of init. That lets the host reap them (no
// zombies, whatever init does) and find the ones that left the Tick's process group with setsid:
// they still carry the instance id in their environment. A process that both left the group and
// cleared its environment is not found; nothing short of a cgroup would find it.
//
// exec.Cmd reaps the children it started itself; the reaper must not steal their exit status, so
// those pids are tracked and left alone. Children in tickmux's own session (started by other code
// with os/exec, such as a clipboard tool) are never touched either: a Tick's leftovers are always
// in another session, the Tick's or their own. Code in this process that starts a child in a new
// session must do it through Launch.
//
// A second loop notices the exits of the programs Launch started: at each SIGCHLD it looks which
// of them have exited, without reaping them (waitid with WNOWAIT), and has each reaped by its
// exec.Cmd (Process.reap). A goroutine waiting for each running program (in the poller on a
// pidfd, and before that in a blocking waitid that held a thread) cost an idle server a stack a
// pane.
var reaper struct {
	once    sync.Once
	mu      sync.Mutex       // held across fork+track so a fast exit is never reaped as a stray
	tracked map[int]struct{} // pids an exec.Cmd will reap
	ended   endedSet         // instance ids whose strays are killed on sight
	enabled bool             // the host is a subreaper: strays are its to reap

	waitMu  sync.Mutex
	waiting map[int]*Process // running leaders whose exit the loop looks for
	others  map[int]func()   // other children whose exit it looks for (the guardian): what to run then
	parent  int              // the parent whose exit it looks for (a guardian that started this process), 0 if none
	orphan  func()           // what to run once parent has exited
}

// maxEnded bounds the ended instances whose strays are killed on sight. Strays of an older one
// that reach the host later are still killed when tickmux ends (KillAllStrays).
const maxEnded = 256

// endedSet remembers the last maxEnded instance ids added, forgetting the oldest first.
type endedSet struct {
	has   map[string]bool
	order []string // oldest first
}

func (s *endedSet) add(id string) {
	if s.has[id] {
		return
	}
	if s.has == nil {
		s.has = map[string]bool{}
	}
	if len(s.order) == maxEnded {
		delete(s.has, s.order[0])
		s.order = append(s.order[:0], s.order[1:]...)
	}
	s.has[id] = true
	s.order = append(s.order, id)
}

func initReaper() {
	reaper.once.Do(func() {
		reaper.tracked = map[int]struct{}{}
		reaper.waiting = map[int]*Process{}
		reaper.others = map[int]func(){}
		// Exits have a loop of their own: a sweep reads /proc for every child, and an exit that
		// waited behind one (with the race detector, under load) was seen after the Tick's
		// closed stdout had already ended its session without its exit status.
		exits := make(chan os.Signal, 1) // a SIGCHLD while one is handled makes one more: none is missed
		signal.Notify(exits, syscall.SIGCHLD)
		go exitLoop(exits) // owner: the process; lives as long as tickmux, idle between SIGCHLDs
		if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != nil {
			return // not fatal: orphans go to init as usual
		}
		reaper.enabled = true
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGCHLD)
		go reapLoop(sigs) // owner: the process; lives as long as tickmux, idle between SIGCHLDs
	})
}

func reapLoop(sigs <-chan os.Signal) {
	for range sigs {
		sweepStrays()
	}
}

func exitLoop(sigs <-chan os.Signal) {
	for range sigs {
		noticeExits()
	}
}

// awaitExit has p reaped (Process.reap, on a goroutine of its own) once its leader has exited.
func awaitExit(p *Process) {
	initReaper()
	reaper.waitMu.Lock()
	reaper.waiting[p.pid] = p
	reaper.waitMu.Unlock()
	noticeExits() // it may have exited before it was listed: its SIGCHLD found nothing to do
}

// awaitChildExit runs f on a goroutine of its own once child pid has exited, leaving the child
// to f to reap. For children that are not Processes: the guardian.
func awaitChildExit(pid int, f func()) {
	initReaper()
	reaper.waitMu.Lock()
	reaper.others[pid] = f
	reaper.waitMu.Unlock()
	noticeExits() // it may have exited before it was listed
}

// awaitParentExit runs f on a goroutine of its own once this process's parent pid has exited:
// once this process was reparented. The parent started it with SIGCHLD as its parent-death
// signal (host/guardian's ancestor), so the exit loop hears of it.
func awaitParentExit(pid int, f func()) {
	initReaper()
	reaper.waitMu.Lock()
	reaper.parent, reaper.orphan = pid, f
	reaper.waitMu.Unlock()
	noticeExits() // it may have exited before it was listed
}

// noticeExits starts the reaping of every listed leader (and other listed child) that has exited.
func noticeExits() {
	var exited []*Process
	var others []func()
	reaper.waitMu.Lock()
	for pid, p := range reaper.waiting {
		if hasExited(pid) {
			delete(reaper.waiting, pid)
			exited = append(exited, p)
		}
	}
	for pid, f := range reaper.others {
		if hasExited(pid) {
			delete(reaper.others, pid)
			others = append(others, f)
		}
	}
	if reaper.parent != 0 && os.Getppid() != reaper.parent {
		others = append(others, reaper.orphan)
		reaper.parent, reaper.orphan = 0, nil
	}
	reaper.waitMu.Unlock()
	for _, p := range exited {
		go p.reap() // owner: p; reaps the leader at once and ends its Process's wait
	}
	for _, f := range others {
		go f() // owner: whoever listed the child; f reaps it and returns
	}
}

// hasExited reports whether child pid has exited, leaving it to be reaped. A child that cannot be
// waited for any more counts as exited: its exec.Cmd's Wait says why.
func hasExited(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err != nil || info.Signo != 0 // with WNOHANG, nothing to report leaves it zero
	}
}

// startTracked starts cmd with its pid tracked before any SIGCHLD for it can be handled.
func startTracked(cmd *exec.Cmd) error {
	initReaper()
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	reaper.tracked[cmd.Process.Pid] = struct{}{}
	return nil
}

func untrack(pid int) {
	reaper.mu.Lock()
	delete(reaper.tracked, pid)
	reaper.mu.Unlock()
}

// killStrays kills the untracked children tagged with instance id, now and whenever more of them
// are reparented to the host later.
func killStrays(id string) {
	if id == "" {
		return
	}
	initReaper()
	reaper.mu.Lock()
	reaper.ended.add(id)
	reaper.mu.Unlock()
	sweepStrays()
}

// KillAllStrays kills every stray child: tickmux is shutting down and nothing it started may
// outlive it.
func KillAllStrays() {
	initReaper()
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	for _, pid := range strayPids() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// sweepStrays reaps untracked children that have exited and kills those of ended instances.
func sweepStrays() {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	for _, pid := range strayPids() {
		if id := instanceTag(pid); id != "" && reaper.ended.has[id] {
			_ = syscall.Kill(-pid, syscall.SIGKILL) // it may lead a group of its own
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// strayPids lists the host's children that it did not start itself and that live outside its
// session: what Ticks and panes left behind. Called with reaper.mu held.
func strayPids() []int {
	own, _ := unix.Getsid(0)
	var strays []int
	for _, pid := range childPids() {
		if _, ok := reaper.tracked[pid]; ok {
			continue
		}
		if sid, err := unix.Getsid(pid); err != nil || sid == own {
			continue
		}
		strays = append(strays, pid)
	}
	return strays
}

// childPids lists the host's children, from every thread's children file.
func childPids() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(field); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// instanceTag is the instance id in a process's environment, if any.
func instanceTag(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		for _, name := range []string{wire.EnvInstanceID, EnvPane} {
			if v, ok := bytes.CutPrefix(kv, []byte(name+"=")); ok {
				return string(v)
			}
		}
	}
	return ""
}
