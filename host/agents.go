package host

import (
	"sort"
	"sync"
	"time"
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
}

// AgentBoard holds the agent sessions' states. Its methods are safe for concurrent use.
type AgentBoard struct {
	changed func(pane string) // after every change; must not block

	mu       sync.Mutex
	sessions map[string]*AgentSession // by session id
}

// maxAgentSessions bounds the board: the oldest ended sessions go first.
const maxAgentSessions = 256

func newAgentBoard(changed func(pane string)) *AgentBoard {
	return &AgentBoard{changed: changed, sessions: map[string]*AgentSession{}}
}

// Set records that session s is now in state st (Since is set here). A session already in st
// keeps its Since, so a run of tool events does not reset "working 3m".
func (b *AgentBoard) Set(s AgentSession, st AgentState, at time.Time) {
	if s.Session == "" {
		return
	}
	b.mu.Lock()
	cur := b.sessions[s.Session]
	if cur != nil && cur.State == st && cur.Pane == s.Pane && cur.Detail == s.Detail {
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
