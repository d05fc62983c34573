package host

import (
	"os"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// An agent program running in a pane (Claude Code, Codex) tells tickmux what it does through its
// hooks (`tickmux hook claude-code|codex`, registered for its session, prompt, tool, notification
// and stop events). AgentBoard keeps one state per agent session, which the pane's border, the
// status bar and list_ticks show.

// AgentState is what an agent session is doing.
type AgentState string

const (
	AgentStarted AgentState = "started"         // the session began; no prompt yet
	AgentWorking AgentState = "working"         // a prompt was submitted, or a tool runs
	AgentWaiting AgentState = "waiting for you" // a card, or the agent waits for the person's input
	AgentDone    AgentState = "done"            // the agent finished its turn
	AgentEnded   AgentState = "ended"           // the session ended
)

// AgentSession is one agent session's latest state. Its strings come from the agent: views
// escape them before drawing.
type AgentSession struct {
	Agent   string // "Claude Code", "Codex"
	Session string
	Pane    string // the pane it runs in; "" outside tickmux
	Cwd     string
	State   AgentState
	Since   time.Time // when it entered State
	// Detail says more about the state: the tool that runs, what the agent waits for.
	Detail string
	// PID is the agent's process: the job in its pane's foreground when the hook ran (0 when not
	// known). The session ends when it exits, whether or not the agent said so.
	PID int
}

// AgentBoard holds the agent sessions' states. Its methods are safe for concurrent use.
//
// An agent that exits without its SessionEnd (killed, crashed, or Codex handing its session to a
// background app-server as its TUI quits) would leave its pane's border saying "working 3h". So
// the board watches each session's process through a pidfd (the kernel says when it exits: no
// polling, nothing runs while it lives) and ends the session when it exits.
type AgentBoard struct {
	changed func(pane string) // after every change; must not block
	// exitedHook is told of a session ended by its process's exit (the Host forgets the
	// session's grants, as a SessionEnd does); must not block.
	exitedHook func(session string)

	mu       sync.Mutex
	sessions map[string]*AgentSession // by session id
	watches  map[string]*agentWatch   // by session id: the process watched
	closed   bool
	wg       sync.WaitGroup // the watches' goroutines
}

// agentWatch waits for one agent process to exit; closing f ends the wait.
type agentWatch struct {
	pid int
	f   *os.File // the pidfd
}

// maxAgentSessions bounds the board: the oldest ended sessions go first.
const maxAgentSessions = 256

func newAgentBoard(changed func(pane string)) *AgentBoard {
	return &AgentBoard{changed: changed, sessions: map[string]*AgentSession{}, watches: map[string]*agentWatch{}}
}

// Set records that session s is now in state st (Since is set here). A session already in st
// keeps its Since, so a run of tool events does not reset "working 3m".
func (b *AgentBoard) Set(s AgentSession, st AgentState, at time.Time) {
	if s.Session == "" {
		return
	}
	b.mu.Lock()
	cur := b.sessions[s.Session]
	if s.PID == 0 && cur != nil {
		s.PID = cur.PID // an event whose hook found no pane: the process stays the one known
	}
	b.watchLocked(s.Session, s.PID, st)
	if cur != nil && cur.State == st && cur.Pane == s.Pane && cur.Detail == s.Detail && cur.PID == s.PID {
		b.mu.Unlock()
		return
	}
	if cur == nil || cur.State != st {
		s.Since = at
	} else {
		s.Since = cur.Since
	}
	s.State = st
	b.sessions[s.Session] = &s
	if len(b.sessions) > maxAgentSessions {
		b.dropOldest()
	}
	b.mu.Unlock()
	if b.changed != nil {
		b.changed(s.Pane)
	}
}

// dropOldest forgets the session changed longest ago, ended ones first. b.mu is held.
func (b *AgentBoard) dropOldest() {
	goesFirst := func(x, y *AgentSession) bool {
		if xe, ye := x.State == AgentEnded, y.State == AgentEnded; xe != ye {
			return xe
		}
		return x.Since.Before(y.Since)
	}
	var oldest *AgentSession
	for _, s := range b.sessions {
		if oldest == nil || goesFirst(s, oldest) {
			oldest = s
		}
	}
	delete(b.sessions, oldest.Session)
	b.watchLocked(oldest.Session, 0, AgentEnded)
}

// watchLocked makes session's watch follow process pid while the session is in state st: a new
// process is watched (the one watched before is let go), and an ended session watches none.
// b.mu is held.
func (b *AgentBoard) watchLocked(session string, pid int, st AgentState) {
	w := b.watches[session]
	if st == AgentEnded || pid <= 0 || b.closed {
		if w != nil {
			w.f.Close()
			delete(b.watches, session)
		}
		return
	}
	if w != nil && w.pid == pid {
		return
	}
	if w != nil {
		w.f.Close()
		delete(b.watches, session)
	}
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err == unix.EINVAL { // before Linux 5.10: no PIDFD_NONBLOCK
		if fd, err = unix.PidfdOpen(pid, 0); err == nil {
			if err = unix.SetNonblock(fd, true); err != nil {
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		return // gone already (its exit is for the next event to tell), or no pidfds here
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return
	}
	w = &agentWatch{pid: pid, f: f}
	b.watches[session] = w
	b.wg.Add(1)
	go func() { // owner: the board; ends when the process exits or the watch is let go (f closed)
		defer b.wg.Done()
		exited := false
		err := rc.Read(func(fd uintptr) bool {
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, _ := unix.Poll(p, 0)
			exited = n > 0 && p[0].Revents&unix.POLLIN != 0
			return exited
		})
		if err == nil && exited {
			b.exited(session, w)
		}
	}()
}

// exited ends session, if its watch w is still the one in place (checked and changed under one
// lock: an event that moved the session to another process meanwhile keeps it): its process
// exited.
func (b *AgentBoard) exited(session string, w *agentWatch) {
	b.mu.Lock()
	cur := b.sessions[session]
	if b.watches[session] != w || cur == nil {
		b.mu.Unlock()
		return
	}
	w.f.Close()
	delete(b.watches, session)
	s := *cur
	s.State, s.Since, s.Detail = AgentEnded, time.Now(), "its program exited"
	b.sessions[session] = &s
	b.mu.Unlock()
	if b.changed != nil {
		b.changed(s.Pane)
	}
	if b.exitedHook != nil {
		b.exitedHook(session)
	}
}

// Close lets every watch go and waits for their goroutines; the board keeps its states.
func (b *AgentBoard) Close() {
	b.mu.Lock()
	b.closed = true
	for id, w := range b.watches {
		w.f.Close()
		delete(b.watches, id)
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// Get returns session id's state.
func (b *AgentBoard) Get(id string) (AgentSession, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.sessions[id]; s != nil {
		return *s, true
	}
	return AgentSession{}, false
}

// ForPane returns the state of the agent session in pane that changed last (a pane may have run
// several, one after another).
func (b *AgentBoard) ForPane(pane string) (AgentSession, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var last *AgentSession
	for _, s := range b.sessions {
		if s.Pane == pane && pane != "" && (last == nil || s.Since.After(last.Since)) {
			last = s
		}
	}
	if last == nil {
		return AgentSession{}, false
	}
	return *last, true
}

// All returns every session, by pane then session.
func (b *AgentBoard) All() []AgentSession {
	b.mu.Lock()
	out := make([]AgentSession, 0, len(b.sessions))
	for _, s := range b.sessions {
		out = append(out, *s)
	}
	b.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pane != out[j].Pane {
			return out[i].Pane < out[j].Pane
		}
		return out[i].Session < out[j].Session
	})
	return out
}

// forgetPane drops the sessions of a pane that left.
func (b *AgentBoard) forgetPane(pane string) {
	b.mu.Lock()
	for id, s := range b.sessions {
		if s.Pane == pane {
			delete(b.sessions, id)
		}
	}
	b.mu.Unlock()
}
