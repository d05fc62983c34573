// Package host runs Ticks and plain programs exactly as Tick protocol 3 asks of a host: it
// launches them on PTYs, speaks the protocol, keeps the latest state, puts approvals between
// agents and changes, and ends whatever misbehaves without harm to anything else. It is headless:
// views and agent servers subscribe to its events and never reach into its state.
//
//	           Open                     Subscribe
//	(views, agents) ──────▶ Host ◀────────────── (views, agents)
//	                         │ owns
//	                         ▼
//	                     Instance ── Process (PTY reader → vt.Terminal, waiter, input writer)
//	                         │
//	                         └────── Session (stdin writer, stdout reader: updates, replies)
//	                                    │ mutating calls wait on
//	                                    ▼
//	                                 Approver (the TUI's ApprovalQueue, or any policy)
package host

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"tickmux/internal/peer"
)

// Config sets up a Host.
type Config struct {
	// Approver answers calls to mutating tools (and agents' open, close and send). Nil refuses
	// them all, which is right for check and other headless uses.
	Approver Approver
	// Logf receives the host's log lines; nil discards them. Never the terminal tickmux draws on.
	Logf func(format string, args ...any)
	// InitTimeout and CallTimeout override the protocol's 10 s and 60 s (tests only).
	InitTimeout, CallTimeout time.Duration
	// Env holds KEY=VALUE entries every launched program gets (before OpenSpec.Env).
	Env []string
	// Scrollback is how many lines each terminal keeps (see LaunchSpec.Scrollback).
	Scrollback int
	// Journal records every decision on a card and every call under a grant (journaling.go);
	// nil records nothing.
	Journal JournalWriter
	// Sandbox says which panes run sandboxed and how (sandbox.go); nil sandboxes only those
	// asked for (OpenSpec.Sandbox), with the defaults.
	Sandbox *Sandbox
}

// Host is the registry of instances.
type Host struct {
	approver    Approver
	logf        func(format string, args ...any)
	bus         bus
	initTimeout time.Duration
	callTimeout time.Duration
	env         []string
	scrollback  int
	jr          journalState
	agents      *AgentBoard
	sandbox     Sandbox

	// opening is held (read) by each Open from before its program starts until its instance is
	// listed: a process of the new pane may ask which pane it runs in before then (a hook run at
	// once, on a loaded machine). PaneOf waits for those in flight.
	opening sync.RWMutex

	mu        sync.Mutex
	instances map[string]*Instance
	order     []string
	nextTick  int
	nextShell int
	closed    bool
}

// New makes a Host.
func New(cfg Config) *Host {
	h := &Host{approver: cfg.Approver, logf: cfg.Logf, instances: map[string]*Instance{},
		initTimeout: cfg.InitTimeout, callTimeout: cfg.CallTimeout, env: cfg.Env, scrollback: cfg.Scrollback,
		jr: journalState{w: cfg.Journal}}
	if cfg.Sandbox != nil {
		h.sandbox = *cfg.Sandbox
	}
	if h.logf == nil {
		h.logf = func(string, ...any) {}
	}
	h.agents = newAgentBoard(func(pane string) { h.bus.post(EventAgent, pane) })
	h.agents.exitedHook = func(session string) {
		h.logf("agent session %s ended: its program exited without saying so", session)
		if q, ok := h.approver.(AgentSessionForgetter); ok {
			q.ForgetAgentSession(session) // "again this session" ends with it, as at its SessionEnd
		}
		h.ForgetAgentSessionGrants(session)
	}
	if h.initTimeout <= 0 {
		h.initTimeout = InitTimeout
	}
	if h.callTimeout <= 0 {
		h.callTimeout = CallTimeout
	}
	hearGuardian(h, true) // until Close
	return h
}

// Approver returns the approver given in Config.
func (h *Host) Approver() Approver { return h.approver }

// Agents is the board of the agent sessions that run in panes (agents.go).
func (h *Host) Agents() *AgentBoard { return h.agents }

// OpenSpec says what to open.
type OpenSpec struct {
	// Argv is the command; for a shell, empty means $SHELL (or /bin/sh).
	Argv []string
	// Dir is the working directory; "" means tickmux's own.
	Dir string
	// Env holds extra KEY=VALUE entries.
	Env []string
	// Shell opens a plain program (shell:N, no protocol) instead of a Tick (hosted:N).
	Shell bool
	// Cols and Rows are the first PTY size; zero means 120x30 (H-S2).
	Cols, Rows int
	// Sandbox runs the program in a sandbox whatever the policy (sandbox.go).
	Sandbox bool
	// ByAgent: an agent asked for it (the open method); sandboxed unless the policy is off.
	ByAgent bool
	// Preface is text shown in the pane before the program's output (LaunchSpec.Preface).
	Preface []byte
	// Remote opens a pane of another host here (remotepane.go): a placeholder program whose
	// input and sizes go to Remote, its screen written to its terminal by the watcher; ID is its
	// instance id ("b:shell:1"). Argv, Shell and the sandbox do not apply.
	Remote RemoteIO
	ID     string
}

// Sandboxed reports whether Open would run spec in a sandbox: asked for, or by the policy.
func (h *Host) Sandboxed(spec OpenSpec) bool {
	switch h.sandbox.Policy {
	case SandboxAll:
		return true
	case SandboxOff:
		return spec.Sandbox
	default:
		return spec.Sandbox || spec.ByAgent
	}
}

// ErrHostClosed: the host is shutting down.
var ErrHostClosed = errors.New("tickmux is shutting down")

// Open launches a Tick or a plain program and returns at once; a Tick's initialization runs in
// the background (watch Ready, or the status events).
func (h *Host) Open(spec OpenSpec) (*Instance, error) {
	if spec.Remote != nil {
		spec = remoteSpec(spec)
	}
	argv := spec.Argv
	if spec.Shell && len(argv) == 0 {
		sh := os.Getenv("SHELL")
		if sh == "" {
			sh = "/bin/sh"
		}
		argv = []string{sh}
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrHostClosed
	}
	var id string
	switch {
	case spec.Remote != nil:
		if _, taken := h.instances[spec.ID]; taken || spec.ID == "" {
			h.mu.Unlock()
			return nil, fmt.Errorf("cannot show %q: a pane has that id already", spec.ID)
		}
		id = spec.ID
	case spec.Shell:
		h.nextShell++
		id = PrefixShell + strconv.Itoa(h.nextShell)
	default:
		h.nextTick++
		id = PrefixHosted + strconv.Itoa(h.nextTick)
	}
	h.mu.Unlock()

	env := append(append([]string(nil), h.env...), spec.Env...)
	ls := LaunchSpec{Argv: argv, Dir: spec.Dir, Env: env, Protocol: !spec.Shell, InstanceID: id, Cols: spec.Cols, Rows: spec.Rows, Scrollback: h.scrollback, Preface: spec.Preface, Remote: spec.Remote}
	if h.Sandboxed(spec) && spec.Remote == nil {
		sb := h.sandbox
		ls.Sandbox = &sb
	}
	h.opening.RLock()
	listed := false
	defer func() {
		if !listed {
			h.opening.RUnlock()
		}
	}()
	proc, err := Launch(ls)
	if err != nil {
		return nil, err
	}
	afterLaunch(proc)
	in := &Instance{
		id:      id,
		isTick:  !spec.Shell,
		host:    h,
		spec:    ls,
		proc:    proc,
		started: time.Now(),
		ready:   make(chan struct{}),
		endedCh: make(chan struct{}),
	}
	if spec.Shell {
		in.status = StatusReady
		in.everReady = true
		close(in.ready)
	} else {
		in.sess = newSession(proc.stdin, proc.stdout, SessionHooks{
			Update: in.onUpdate,
			End:    in.onSessionEnd,
			Logf: func(format string, args ...any) {
				h.logf(id+": "+format, args...)
			},
		})
	}

	if in.sess != nil {
		in.sess.start() // in.sess is set: the hooks may run from now on
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		in.Close()
		return nil, ErrHostClosed
	}
	h.instances[id] = in
	h.order = append(h.order, id)
	h.mu.Unlock()
	h.opening.RUnlock()
	listed = true

	// A pane whose group no guardian watches says so, in the log and on the pane (GuardError).
	if err := proc.whenGuardChanges(func(err error) {
		if err != nil {
			h.logf("%s: %v", id, err)
		} else {
			h.logf("%s: a guardian watches its processes again", id)
		}
		h.bus.post(EventStatus, id)
	}); err != nil {
		h.logf("%s: %v", id, err)
	}
	in.exitWG.Add(1)
	proc.WhenExited(in.watchExit) // on the process's waiter, once the process has exited
	if in.isTick {
		go in.initialize() // owner: in; exits when initialization succeeds or fails (10 s at most)
	}
	sandboxed := ""
	if ls.Sandbox != nil {
		sandboxed = ", sandboxed"
	}
	h.logf("%s opened: %q in %q (pid %d%s)", id, argv, spec.Dir, proc.Pid(), sandboxed)
	h.bus.post(EventAdded, id)
	return in, nil
}

// PaneOf finds the pane whose program is pid or one of its ancestors (a client run in a pane
// descends from its program: an agent's hook runs under the agent, which runs under the pane's
// shell), or nil. A process of a pane opened a moment ago may ask before that pane's Open has
// listed it (a hook run at once, on a loaded machine): when none is found, it looks again once
// the opens under way are done.
func (h *Host) PaneOf(pid int) *Instance {
	if pid <= 1 {
		return nil
	}
	if in := h.paneOf(pid); in != nil {
		return in
	}
	h.waitOpening()
	return h.paneOf(pid)
}

func (h *Host) paneOf(pid int) *Instance {
	panes := h.panesByPid()
	for i := 0; i < 64 && pid > 1; i++ {
		if in, ok := panes[pid]; ok {
			return in
		}
		pid = peer.ParentPID(pid)
	}
	return nil
}

// panesByPid maps each visible pane's program's pid to its instance.
func (h *Host) panesByPid() map[int]*Instance {
	panes := map[int]*Instance{}
	for _, in := range h.Instances() {
		if in.Visible() && in.Process() != nil {
			panes[in.Process().Pid()] = in
		}
	}
	return panes
}

// PaneOfPeer is PaneOf for a pinned process (the client of a socket, internal/peer): its
// ancestry is read so that no pid along it can have been taken by another process meanwhile, so
// a client cannot pass for one in another pane by exiting and having its pid reused. Nil when
// the process runs in no pane, or has exited.
func (h *Host) PaneOfPeer(p *peer.Process) *Instance {
	find := func() *Instance {
		panes := h.panesByPid()
		var found *Instance
		if ok, _ := p.Ancestry(func(pid int) bool { found = panes[pid]; return found != nil }); ok {
			return found
		}
		return nil
	}
	if in := find(); in != nil {
		return in
	}
	h.waitOpening()
	return find()
}

// waitOpening returns once every Open under way has listed its instance (or failed).
func (h *Host) waitOpening() {
	h.opening.Lock()
	h.opening.Unlock() // nothing inside: the wait is all
}

// afterLaunch runs between a program's start and its instance's listing (a test widens the gap).
var afterLaunch = func(*Process) {}

// Get returns the instance with id, or nil.
func (h *Host) Get(id string) *Instance {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.instances[id]
}

// Instances returns every instance in the registry, in the order they were opened.
func (h *Host) Instances() []*Instance {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Instance, 0, len(h.order))
	for _, id := range h.order {
		out = append(out, h.instances[id])
	}
	return out
}

// Subscribe returns a new event mailbox. Close it when done.
func (h *Host) Subscribe() *Subscription { return h.bus.subscribe() }

// Remove closes the instance if it still runs and takes it out of the registry (its pane was
// closed).
func (h *Host) Remove(id string) error {
	in := h.Get(id)
	if in == nil {
		return fmt.Errorf("no instance %q", id)
	}
	in.Close()
	h.mu.Lock()
	delete(h.instances, id)
	for i, x := range h.order {
		if x == id {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
	h.mu.Unlock()
	h.agents.forgetPane(id)
	h.bus.post(EventRemoved, id)
	return nil
}

// WaitTold waits until Close, running meanwhile, has told every program to end (sent its first
// signal, or found it gone), at most d; false when d passed first. Any goroutine.
func (h *Host) WaitTold(d time.Duration) bool {
	h.mu.Lock()
	all := make([]*Instance, 0, len(h.instances))
	for _, in := range h.instances {
		all = append(all, in)
	}
	h.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	for _, in := range all {
		select {
		case <-in.proc.told:
		case <-t.C:
			return false
		}
	}
	return true
}

// Close ends every instance, in parallel, and waits for all of them (H-X1). No new instance can
// be opened afterwards.
func (h *Host) Close() {
	defer hearGuardian(h, false)
	defer h.agents.Close()
	h.mu.Lock()
	h.closed = true
	all := make([]*Instance, 0, len(h.instances))
	for _, id := range h.order {
		all = append(all, h.instances[id])
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, in := range all {
		wg.Add(1)
		go func() { // owner: Close; returns when the instance has ended
			defer wg.Done()
			in.Close()
		}()
	}
	wg.Wait()
}
