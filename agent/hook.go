package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/host"
	"tickmux/internal/linediff"
	pinned "tickmux/internal/peer"
	"tickmux/tick/wire"
)

// DefaultNoViewWait is how long an agent's card waits while no view is attached to answer it.
const DefaultNoViewWait = 30 * time.Second

// errNoView ends a card that waited with no view attached for the whole of its wait.
var errNoView = errors.New("no view was attached to answer it")

// permission puts an agent's tool call before the person and returns the decision. It never
// answers for the person: nothing but the person's key gives an allow or a deny.
func (s *Server) permission(ctx context.Context, c *conn, p PermissionParams) (PermissionResult, error) {
	name, ok := agentNames[p.Agent]
	if !ok {
		return PermissionResult{}, failure(ReasonBadRequest, "unknown agent %q: tickmux answers the hooks of %q and %q", p.Agent, AgentClaudeCode, AgentCodex)
	}
	var in HookInput
	if err := json.Unmarshal(p.Input, &in); err != nil {
		return PermissionResult{}, failure(ReasonBadRequest, "the hook's input is not the JSON object %s writes: %v", name, err)
	}
	if in.ToolName == "" {
		return PermissionResult{}, failure(ReasonBadRequest, "the hook's input names no tool (tool_name); is this a PermissionRequest hook?")
	}
	// Counted before the file is read and diffed: the bounds hold that work too.
	leave, err := s.enterHook(c.pid)
	if err != nil {
		s.logf("agent hook: %s's %s refused: %s; the agent asks on its own prompt", name, in.ToolName, err.Error())
		return PermissionResult{}, err
	}
	defer leave()
	call := describeAgentCall(name, in)
	req := host.ApprovalRequest{Action: host.ActionAgent, Client: name, Agent: &call}
	pane := s.paneOfConn(c)
	if pane != nil {
		req.Instance, req.Title = pane.ID(), pane.Title()
	}
	// The agent's state on its pane: waiting for the person while the card is up; working once
	// allowed or denied (the agent goes on); still waiting when its own prompt takes over.
	sess := host.AgentSession{Agent: name, Session: in.SessionID, Pane: req.Instance, Cwd: in.Cwd, PID: agentPID(pane)}
	board := s.h.Agents()
	board.Set(withDetail(sess, "a card: "+in.ToolName), host.AgentWaiting, time.Now())
	defer func() {
		if st, ok := board.Get(in.SessionID); ok && st.State == host.AgentWaiting && st.Detail == "a card: "+in.ToolName {
			board.Set(withDetail(sess, "its own prompt: "+in.ToolName), host.AgentWaiting, time.Now())
		}
	}()
	what := fmt.Sprintf("%s's %s in %s", name, in.ToolName, orOutside(req.Instance))
	ap := s.h.Approver()
	if ap == nil {
		s.logf("agent hook: %s: no screen here to ask the person on; the agent asks on its own prompt", what)
		return PermissionResult{}, failure(ReasonNoApprover, "nobody can approve %s here: this tickmux has no screen to ask the person on", what)
	}
	// Every such card, and every call allowed by a session grant, is a journal entry (kind
	// agent) with the agent's tool and input.
	rec := s.h.NewRecord(req, c.peer())
	rec.SetTool(in.ToolName, in.ToolInput)
	if g, ok := ap.(host.Granter); ok && g.Granted(req) {
		board.Set(withDetail(sess, in.ToolName), host.AgentWorking, time.Now())
		s.logf("agent hook: %s allowed by the person's grant for this session", what)
		rec.Granted()
		rec.FinishWith(journalOutcome(nil), nil)
		return PermissionResult{Decision: DecisionAllow, Granted: true, Pane: req.Instance}, nil
	}
	wait := DefaultNoViewWait
	if p.NoViewWaitS > 0 {
		wait = time.Duration(p.NoViewWaitS * float64(time.Second))
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if s.attached != nil {
		go s.watchViews(ctx, cancel, wait) // owner: this request; exits when it ends
	}
	var card atomic.Uint64
	req.Shown = card.Store
	rec.Watch(&req)
	err = ap.Approve(ctx, req)
	if err != nil && ctx.Err() != nil && !errors.Is(context.Cause(ctx), errNoView) {
		err = fmt.Errorf("%s: %w", hookStopped(p, context.Cause(ctx), time.Now()), err)
	}
	if err == nil {
		rec.Sent() // the agent runs its tool: tickmux sees no outcome of it
		rec.FinishWith(journalOutcome(nil), nil)
	} else {
		rec.FinishWith(journalOutcome(err), err)
	}
	res := PermissionResult{Card: card.Load(), Pane: req.Instance}
	switch {
	case err == nil:
		res.Decision = DecisionAllow
		board.Set(withDetail(sess, in.ToolName), host.AgentWorking, time.Now())
		return res, nil
	case errors.Is(err, host.ErrDenied):
		res.Decision = DecisionDeny
		board.Set(withDetail(sess, in.ToolName+" denied"), host.AgentWorking, time.Now())
		return res, nil
	case errors.Is(context.Cause(ctx), errNoView):
		s.logf("agent hook: card %d (%s) withdrawn: no view was attached for %v; the agent asks on its own prompt", res.Card, what, wait)
		return PermissionResult{}, &Error{Message: fmt.Sprintf("the card for %s was withdrawn: no view was attached for %v (run tickmux attach); the agent asks on its own prompt", what, wait),
			Effect: wire.EffectNone, Reason: ReasonNoView}
	case ctx.Err() != nil:
		why := hookStopped(p, context.Cause(ctx), time.Now())
		s.logf("agent hook: card %d (%s) withdrawn before an answer: %s; the agent asks on its own prompt", res.Card, what, why)
		return PermissionResult{}, failure(ReasonWithdrawn, "the card for %s was withdrawn before the person answered: %s", what, why)
	}
	return PermissionResult{}, failure(ReasonFailed, "%s was not answered: %v", what, err)
}

// hookStopped says why a hook's request ended before the person answered (its cause). A hook
// that cancelled its request did so at its own --timeout, which ends its wait at p.GiveUpAtMS,
// or earlier because the agent ended it (a signal: the agent's timeout for the hook passed, or
// its own prompt was answered). Anything else (a hook that hung up without cancelling, the
// server stopping, a hook that does not say when it gives up) is the cause as it is.
func hookStopped(p PermissionParams, cause error, now time.Time) string {
	if p.GiveUpAtMS <= 0 || !errors.Is(cause, errCancelled) {
		return fmt.Sprint(cause)
	}
	timeout := time.Duration(p.TimeoutS * float64(time.Second))
	if !now.Before(time.UnixMilli(p.GiveUpAtMS)) {
		return fmt.Sprintf("the hook's own --timeout (%v) passed", timeout)
	}
	return fmt.Sprintf("the hook was stopped %v before its own --timeout (%v): the agent ended it (a signal: the agent's timeout for the hook passed, or its own prompt was answered)",
		time.UnixMilli(p.GiveUpAtMS).Sub(now).Round(time.Millisecond), timeout)
}

// agentEvent sets an agent session's state from one of its hook events; events it does not know
// are ignored (an agent's newer events must not break its hooks).
func (s *Server) agentEvent(c *conn, p AgentEventParams) (struct{}, error) {
	name, ok := agentNames[p.Agent]
	if !ok {
		return struct{}{}, failure(ReasonBadRequest, "unknown agent %q: tickmux answers the hooks of %q and %q", p.Agent, AgentClaudeCode, AgentCodex)
	}
	var in HookInput
	if err := json.Unmarshal(p.Input, &in); err != nil {
		return struct{}{}, failure(ReasonBadRequest, "the hook's input is not the JSON object %s writes: %v", name, err)
	}
	st, ok := eventStates[in.HookEventName]
	if !ok || in.SessionID == "" {
		return struct{}{}, nil
	}
	sess := host.AgentSession{Agent: name, Session: in.SessionID, Cwd: in.Cwd}
	if pane := s.paneOfConn(c); pane != nil {
		sess.Pane, sess.PID = pane.ID(), agentPID(pane)
	}
	switch in.HookEventName {
	case "PreToolUse":
		sess.Detail = in.ToolName
	case "Notification":
		sess.Detail = in.Message
	}
	s.h.Agents().Set(sess, st, time.Now())
	if st == host.AgentEnded {
		if q, ok := s.h.Approver().(host.AgentSessionForgetter); ok {
			q.ForgetAgentSession(in.SessionID) // "again this session" ends with it
		}
		s.h.ForgetAgentSessionGrants(in.SessionID)
	}
	return struct{}{}, nil
}

// eventStates: the state each hook event puts an agent session in (Claude Code's event names,
// which Codex shares).
var eventStates = map[string]host.AgentState{
	"SessionStart":     host.AgentStarted,
	"UserPromptSubmit": host.AgentWorking,
	"PreToolUse":       host.AgentWorking,
	"PostToolUse":      host.AgentWorking,
	"Notification":     host.AgentWaiting,
	"Stop":             host.AgentDone,
	"SessionEnd":       host.AgentEnded,
}

func withDetail(s host.AgentSession, d string) host.AgentSession {
	s.Detail = d
	return s
}

// paneOfConn is the pane the client at the other end of c runs in, or nil. The client is
// pinned (internal/peer), so a hook that connected and exited cannot have its pid taken by a
// process of another pane and its card shown as that pane's; a client that has exited is in no
// pane.
func (s *Server) paneOfConn(c *conn) *host.Instance {
	p, err := pinned.Of(c.nc)
	if err != nil {
		return nil
	}
	defer p.Close()
	return s.h.PaneOfPeer(p)
}

// agentPID is the agent's process in pane, whose hook is running: the job in the pane's
// foreground (the agent started from the pane's shell, or the pane's program itself); 0 when
// not known. Not the hook's ancestor below the pane: an agent that is the pane's program runs its
// hook under a shell of its own, which would be taken for the agent and end at once.
func agentPID(pane *host.Instance) int {
	if pane == nil || pane.Process() == nil {
		return 0
	}
	return pane.Process().ForegroundPID()
}

// agentNames are the agents' names as cards show them.
var agentNames = map[string]string{AgentClaudeCode: "Claude Code", AgentCodex: "Codex"}

func orOutside(pane string) string {
	if pane == "" {
		return "a terminal outside tickmux"
	}
	return pane
}

// watchViews withdraws the request (cause errNoView) once no view has been attached for wait.
// Attaching has no event to wait on, so it looks a few times a second.
func (s *Server) watchViews(ctx context.Context, cancel context.CancelCauseFunc, wait time.Duration) {
	every := min(max(wait/8, 10*time.Millisecond), time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	seen := time.Now()
	for {
		if s.attached() > 0 {
			seen = time.Now()
		} else if time.Since(seen) >= wait {
			cancel(errNoView)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// peerPID is the pid of the process at the other end of a Unix socket (SO_PEERCRED), as it was
// when it connected.
func peerPID(nc *net.UnixConn) (int, error) {
	raw, err := nc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, serr
	}
	return int(cred.Pid), nil
}

// describeAgentCall picks out of a hook's input what the card shows besides the whole input: a
// shell tool's command, an edit's file and its diff against the file on disk, an MCP tool's
// server and tool.
func describeAgentCall(agent string, in HookInput) host.AgentCall {
	input := in.ToolInput
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	a := host.AgentCall{Agent: agent, Session: in.SessionID, Cwd: in.Cwd, Tool: in.ToolName, Input: input}
	var f struct {
		Command     json.RawMessage `json:"command"`
		Description string          `json:"description"`
		FilePath    string          `json:"file_path"`
		OldString   *string         `json:"old_string"`
		NewString   *string         `json:"new_string"`
		ReplaceAll  bool            `json:"replace_all"`
		Content     *string         `json:"content"`
		Edits       []struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
	}
	_ = json.Unmarshal(input, &f) // a tool whose input is not an object shows only as input
	a.Description = f.Description
	switch {
	case strings.HasPrefix(in.ToolName, "mcp__"):
		server, tool, _ := strings.Cut(strings.TrimPrefix(in.ToolName, "mcp__"), "__")
		a.MCPServer, a.MCPTool = server, tool
	case len(f.Command) > 0:
		a.Command = commandText(f.Command)
	}
	switch in.ToolName {
	case "Edit":
		if f.OldString != nil && f.NewString != nil {
			editDiff(&a, in.Cwd, f.FilePath, func(old string) (string, error) {
				return replace(old, *f.OldString, *f.NewString, f.ReplaceAll)
			})
		}
	case "MultiEdit":
		editDiff(&a, in.Cwd, f.FilePath, func(old string) (string, error) {
			var err error
			for i, e := range f.Edits {
				if old, err = replace(old, e.OldString, e.NewString, e.ReplaceAll); err != nil {
					return "", fmt.Errorf("edit %d: %w", i+1, err)
				}
			}
			return old, nil
		})
	case "Write":
		if f.Content != nil {
			editDiff(&a, in.Cwd, f.FilePath, func(string) (string, error) { return *f.Content, nil })
		}
	}
	return a
}

// commandText is a command as the card shows it: a string as it is, an argv (Codex) joined with
// spaces, each argument quoted when it needs to be.
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		q := make([]string, len(argv))
		for i, x := range argv {
			q[i] = x
			if x == "" || strings.ContainsAny(x, " \t\n'\"\\$`;&|<>()*?[]{}~#") {
				q[i] = strconv.Quote(x)
			}
		}
		return strings.Join(q, " ")
	}
	return string(raw)
}

// replace does what an Edit asks: old must be in s (once, unless all).
func replace(s, old, new string, all bool) (string, error) {
	n := strings.Count(s, old)
	switch {
	case old == "":
		return "", errors.New("the text to replace is empty")
	case n == 0:
		return "", errors.New("the text to replace is not in the file on disk")
	case n > 1 && !all:
		return "", fmt.Errorf("the text to replace is in the file %d times", n)
	}
	if all {
		return strings.ReplaceAll(s, old, new), nil
	}
	return strings.Replace(s, old, new, 1), nil
}

// editDiff sets a.File and a.Diff (or a.DiffNote): the change edit makes to the file on disk.
func editDiff(a *host.AgentCall, cwd, file string, edit func(old string) (string, error)) {
	if file == "" {
		a.DiffNote = "the input names no file"
		return
	}
	a.File = file
	path := file
	if !filepath.IsAbs(path) && cwd != "" {
		path = filepath.Join(cwd, path)
	}
	oldName := file
	old, err := readEditedFile(path)
	switch {
	case errors.Is(err, errNoFile):
		oldName = "/dev/null (a new file)"
	case err != nil:
		a.DiffNote = "no diff: " + err.Error()
		return
	}
	new, err := edit(old)
	if err != nil {
		a.DiffNote = "no diff: " + err.Error() + " (the agent's tool will fail or its view of the file is stale)"
		return
	}
	d, err := linediff.Unified(oldName, file, old, new)
	switch {
	case errors.Is(err, linediff.ErrTooLarge):
		// Too costly to diff: the whole new text instead, so the card still shows all of what
		// will be written.
		a.Diff = linediff.Replaced(oldName, file, old, new)
	case err != nil:
		a.DiffNote = "no diff: " + err.Error()
	case d == "":
		a.DiffNote = "the edit changes nothing in the file on disk"
	default:
		a.Diff = d
	}
}
