package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent/mcptask"
	"tickmux/tick/wire"
)

// MCP tasks (SEP-2663, agent/mcptask): for a client that declares the extension on a tools/call
// (Claude Code 2.1.328 interactively), a call_tick or query_tick that must wait for the person's
// card, or for a slow Tick, answers at once with a task instead of a ticket after 45 s.
//
// A task is a kept call (CallParams.Keep, calls.go): it runs under the tickmux server, not this
// session's connection, so it outlives the client; its task id is the kept call's name
// ("call:kept-N"), which any later session (tasks/get) or `tickmux wait --call` can collect.
// While the session lasts, a watcher per task collects the outcome into the table, sends
// notifications/tasks/status and withdraws the card when the task's TTL passes unanswered.
// Clients that do not declare the extension (Claude Code 2.1.197, Codex, `claude -p`) keep
// getting tickets.
//
//	tools/call ──offerTasks (middleware)──► tool handler ──call, Keep, 0.5 s──► tickmux
//	     ◄── task handle (working, card N) ◄── a Ticket ◄──────────────────────────┘
//	watcher ──wait {calls}──► outcome ──► table ──► notifications/tasks/status
//	tasks/get ──► table (else wait {calls, timeout 0} on tickmux)
//	tasks/cancel ──► cancel_call: the card comes down (withdrawn)

// DefaultTaskTTL is how long a task lives from its creation: a person away for an hour still
// answers in time; past it an unanswered card is withdrawn (the client has stopped polling).
const DefaultTaskTTL = time.Hour

// taskPoll is the poll interval the tasks tell clients (Claude Code clamps it to 250 ms–30 s):
// tasks/get is a look in a table here, and the model gets the outcome this soon after `y`.
const taskPoll = 500 * time.Millisecond

// taskAfter is how long a call that may become a task waits first: enough for its card to go
// up (so the task names it), short enough to count as at once; a call done by then answers as
// usual.
const taskAfter = 500 * time.Millisecond

// taskSlot carries a task from the tool handler back to offerTasks, which answers with it.
type taskSlot struct{ task *mcptask.Task }

type taskSlotKey struct{}

// taskSlotOf is the slot of a tools/call whose client declared the extension, else nil.
func taskSlotOf(ctx context.Context) *taskSlot {
	s, _ := ctx.Value(taskSlotKey{}).(*taskSlot)
	return s
}

// taskSession is what the tasks need of one MCP session: where to send notifications and who
// stops the watchers.
type taskSession struct {
	ctx    context.Context // cancelled when the session ends
	cancel context.CancelFunc
	conn   mcp.Connection // the session's connection, for notifications/tasks/status
	wg     sync.WaitGroup // the watchers

	mu       sync.Mutex
	watched  map[string]bool // task ids with a watcher
	canceled map[string]bool // task ids tasks/cancel is withdrawing
}

// addTaskMethods registers tasks/get, tasks/cancel and tasks/update on the server, and the
// middleware that answers a waiting call with a task. (NewMCP lists the extension in the
// capabilities, which initialize and server/discover give.)
func (m *MCP) addTaskMethods() {
	must := func(err error) {
		if err != nil {
			panic(fmt.Sprintf("agent: %v", err))
		}
	}
	must(mcp.AddReceivingCustomMethod(m.server, mcptask.MethodGet, m.taskGet))
	must(mcp.AddReceivingCustomMethod(m.server, mcptask.MethodCancel, m.taskCancel))
	must(mcp.AddReceivingCustomMethod(m.server, mcptask.MethodUpdate,
		func(context.Context, *mcp.ServerSession, *mcptask.UpdateParams) (*mcptask.AckResult, error) {
			return mcptask.Ack(), nil // tickmux never asks the client for input
		}))
	m.server.AddReceivingMiddleware(m.offerTasks)
}

// offerTasks marks a tools/call whose client declared the extension, and answers with the task
// when the handler made one.
func (m *MCP) offerTasks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || !mcptask.Declared(r.ClientCapabilities()) {
			return next(ctx, method, req)
		}
		slot := &taskSlot{}
		res, err := next(context.WithValue(ctx, taskSlotKey{}, slot), method, req)
		if err == nil && slot.task != nil {
			return mcptask.NewCreateTaskResult(*slot.task), nil
		}
		return res, err
	}
}

// asTask turns a call's params into a kept call with a short bound, when the request may be
// answered with a task.
func asTask(ctx context.Context, params any) any {
	p, ok := params.(CallParams)
	if !ok || taskSlotOf(ctx) == nil {
		return params
	}
	p.TicketAfterS, p.Keep = ptr(taskAfter.Seconds()), true
	return p
}

// taskOf makes the task for a call that answered with a ticket; it reports false when raw is
// not a ticket (the call is done) or the request may not become a task.
func (m *MCP) taskOf(ctx context.Context, ss *mcp.ServerSession, raw json.RawMessage) bool {
	slot := taskSlotOf(ctx)
	if slot == nil {
		return false
	}
	var tk Ticket
	if json.Unmarshal(raw, &tk) != nil || tk.Call == "" || (tk.Status != StatusAwaitingApproval && tk.Status != StatusRunning) {
		return false
	}
	task, _ := m.tasks.Start(tk.Call, taskMessage(tk))
	m.watchTask(ss, tk.Call)
	slot.task = &task
	m.logf("tickmux mcp: %s on %s is task %s (%s)", tk.Tool, tk.ID, tk.Call, tk.Status)
	return true
}

// taskMessage is a working task's status message, naming the card the person sees.
func taskMessage(tk Ticket) string {
	if tk.Status == StatusAwaitingApproval && tk.Card != 0 {
		return fmt.Sprintf("waiting for the person's approval on card %d (%s %s)", tk.Card, tk.ID, tk.Tool)
	}
	return fmt.Sprintf("waiting for %s to answer %s", tk.ID, tk.Tool)
}

// session is the task side of ss, nil before Run has registered it.
func (m *MCP) session(ss *mcp.ServerSession) *taskSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.taskSessions[ss]
}

// watchTask starts the watcher of the task id unless one runs.
func (m *MCP) watchTask(ss *mcp.ServerSession, id string) {
	ts := m.session(ss)
	if ts == nil {
		return // tasks/get asks tickmux each time instead
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.watched[id] || ts.ctx.Err() != nil {
		return
	}
	ts.watched[id] = true
	ts.wg.Add(1)
	go func() { // owner: the MCP session (Run waits); ends with the task's outcome, its TTL or the session
		defer ts.wg.Done()
		m.watchOutcome(ts, ss, id)
	}()
}

// watchOutcome waits for the outcome of the kept call id and ends its task; at the task's TTL it
// withdraws the call. The session's end leaves the call kept, for a later session to collect.
func (m *MCP) watchOutcome(ts *taskSession, ss *mcp.ServerSession, id string) {
	t, ok := m.tasks.Get(id)
	if !ok {
		return
	}
	created, err := time.Parse(time.RFC3339Nano, t.CreatedAt)
	if err != nil {
		created = time.Now()
	}
	deadline := created.Add(m.tasks.TTL())
	for {
		c, err := m.client(ts.ctx, ss, sessionClientName(ss))
		if ts.ctx.Err() != nil {
			return
		}
		if err != nil {
			m.failTask(ss, id, err)
			return
		}
		left := time.Until(deadline)
		if left <= 0 {
			m.withdrawTask(ts, ss, c, id, fmt.Sprintf("nobody answered within %s, the task's lifetime: the card was withdrawn and nothing was done", m.tasks.TTL()))
			return
		}
		var w WaitResult
		err = c.Do(ts.ctx, MethodWait, WaitParams{Calls: []string{id}, TimeoutS: ptr(min(left.Seconds(), MaxWaitS))}, &w, nil)
		if ts.ctx.Err() != nil {
			return
		}
		if err != nil {
			m.failTask(ss, id, err)
			return
		}
		for _, o := range w.Calls {
			if o.Call == id {
				if o.Status == StatusUnknown && ts.cancelling(id) {
					return // tasks/cancel collected it and ends the task
				}
				m.endTask(ss, o)
				return
			}
		}
	}
}

// cancelling reports whether tasks/cancel is withdrawing id.
func (ts *taskSession) cancelling(id string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.canceled[id]
}

// withdrawTask withdraws the kept call id (its card comes down) and ends its task.
func (m *MCP) withdrawTask(ts *taskSession, ss *mcp.ServerSession, c *Client, id, why string) {
	var o CallOutcome
	ctx, cancel := context.WithTimeout(ts.ctx, 10*time.Second)
	defer cancel()
	if err := c.Do(ctx, MethodCancelCall, CancelCallParams{Call: id}, &o, nil); err != nil {
		m.failTask(ss, id, err)
		return
	}
	if o.Status == StatusWithdrawn {
		o.Error = &Error{Message: why, Effect: wire.EffectNone, Reason: ReasonWithdrawn}
	}
	m.endTask(ss, o)
}

// endTask ends the task of a call's outcome and tells the session. ok is completed with the
// result call_tick gives; denied, voided and failed are completed with the error result
// call_tick gives (isError), as without tasks; withdrawn is cancelled; unknown (collected
// elsewhere, or tickmux restarted) is failed.
func (m *MCP) endTask(ss *mcp.ServerSession, o CallOutcome) {
	var (
		status mcptask.Status
		msg    string
		result json.RawMessage
		rpcErr *mcptask.Error
	)
	switch o.Status {
	case StatusOK:
		raw, _ := encode(CallResult{Status: StatusOK, ID: o.ID, Tool: o.Tool, Revision: o.Revision, Result: o.Result})
		status, msg = mcptask.StatusCompleted, fmt.Sprintf("%s on %s is done", o.Tool, o.ID)
		result, _ = json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: raw})
	case StatusWithdrawn:
		status, msg = mcptask.StatusCancelled, "withdrawn: the card came down and nothing was done"
		if o.Error != nil {
			msg = m.plainError("task "+o.Call, o.Error).Message
		}
	case StatusUnknown:
		status, msg = mcptask.StatusFailed, "the call's outcome is not known here"
		if o.Error != nil {
			msg = m.plainError("task "+o.Call, o.Error).Message
		}
		rpcErr = &mcptask.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	default:
		e := o.Error
		if e == nil {
			e = &Error{Message: "the call failed", Reason: ReasonFailed}
		}
		status, msg = mcptask.StatusCompleted, fmt.Sprintf("%s on %s: %s", o.Tool, o.ID, o.Status)
		result, _ = json.Marshal(m.errorResult(o.Tool, e))
	}
	if t, ok := m.tasks.End(o.Call, status, msg, result, rpcErr); ok {
		m.notifyTask(ss, t)
	}
}

// failTask fails a task whose outcome cannot be had (the connection to tickmux broke).
func (m *MCP) failTask(ss *mcp.ServerSession, id string, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = errorOf(err)
	}
	msg := m.plainError("task "+id, e).Message
	if t, ok := m.tasks.End(id, mcptask.StatusFailed, msg, nil, &mcptask.Error{Code: jsonrpc.CodeInternalError, Message: msg}); ok {
		m.notifyTask(ss, t)
	}
}

// notifyTask sends notifications/tasks/status with the task on the session's connection, when
// the session still has one.
func (m *MCP) notifyTask(ss *mcp.ServerSession, t mcptask.DetailedTask) {
	ts := m.session(ss)
	if ts == nil || ts.conn == nil || ts.ctx.Err() != nil {
		return
	}
	params, err := json.Marshal(t)
	if err != nil {
		return
	}
	if err := ts.conn.Write(ts.ctx, &jsonrpc.Request{Method: mcptask.NotificationStatus, Params: params}); err != nil {
		m.logf("tickmux mcp: notifications/tasks/status for %s: %v", t.TaskID, err)
	}
}

// sessionClientName is the client's name for a request that is not a tool call.
func sessionClientName(ss *mcp.ServerSession) string {
	if p := ss.InitializeParams(); p != nil {
		return clientName(p.ClientInfo)
	}
	return clientName(nil)
}

// taskGet answers tasks/get from the table; a task it does not hold (made by an earlier session,
// or collected by none yet) is asked of tickmux by its kept call's name.
func (m *MCP) taskGet(ctx context.Context, ss *mcp.ServerSession, p *mcptask.GetParams) (*mcptask.GetResult, error) {
	if t, ok := m.tasks.Get(p.TaskID); ok {
		return mcptask.NewGetResult(t), nil
	}
	if !strings.HasPrefix(p.TaskID, keptPrefix) {
		return nil, noTask(p.TaskID)
	}
	c, err := m.client(ctx, ss, sessionClientName(ss))
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: m.plainError("tasks/get", errorOf(err)).Message}
	}
	var w WaitResult
	if err := c.Do(ctx, MethodWait, WaitParams{Calls: []string{p.TaskID}, TimeoutS: ptr(0.0)}, &w, nil); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: m.plainError("tasks/get", errorOf(err)).Message}
	}
	for _, o := range w.Calls {
		if o.Call != p.TaskID {
			continue
		}
		if o.Status == StatusUnknown {
			return nil, noTask(p.TaskID)
		}
		m.tasks.Start(o.Call, "")
		m.endTask(ss, o)
		t, _ := m.tasks.Get(p.TaskID)
		return mcptask.NewGetResult(t), nil
	}
	// Still under way: this session watches it from now on.
	t, _ := m.tasks.Start(p.TaskID, "waiting for the person or the Tick")
	m.watchTask(ss, p.TaskID)
	return mcptask.NewGetResult(mcptask.DetailedTask{Task: t}), nil
}

// noTask is tasks/get's error for an id that names no task (SEP-2663: invalid params).
func noTask(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("there is no task %q here: its outcome was already given, its lifetime passed, or tickmux restarted since", id)}
}

// taskCancel withdraws the task's call: a card still up comes down, and a call the Tick runs is
// told to stop. It is acknowledged whatever the id names (SEP-2663 "Cancelling Tasks").
func (m *MCP) taskCancel(ctx context.Context, ss *mcp.ServerSession, p *mcptask.CancelParams) (*mcptask.AckResult, error) {
	t, held := m.tasks.Get(p.TaskID)
	if (held && t.Status.Terminal()) || (!held && !strings.HasPrefix(p.TaskID, keptPrefix)) {
		return mcptask.Ack(), nil
	}
	if ts := m.session(ss); ts != nil {
		ts.mu.Lock()
		ts.canceled[p.TaskID] = true
		ts.mu.Unlock()
	}
	c, err := m.client(ctx, ss, sessionClientName(ss))
	if err != nil {
		m.logf("tickmux mcp: tasks/cancel %s: %v", p.TaskID, err)
		return mcptask.Ack(), nil
	}
	var o CallOutcome
	if err := c.Do(ctx, MethodCancelCall, CancelCallParams{Call: p.TaskID}, &o, nil); err != nil {
		m.logf("tickmux mcp: tasks/cancel %s: %v", p.TaskID, err)
		return mcptask.Ack(), nil
	}
	if o.Status != StatusUnknown {
		if !held {
			m.tasks.Start(o.Call, "")
		}
		m.endTask(ss, o)
	}
	return mcptask.Ack(), nil
}

// startTaskSession registers ss's task side; the returned func ends it and waits for its
// watchers (the kept calls stay on tickmux).
func (m *MCP) startTaskSession(ss *mcp.ServerSession, conn mcp.Connection) func() {
	ts := &taskSession{conn: conn, watched: map[string]bool{}, canceled: map[string]bool{}}
	ts.ctx, ts.cancel = context.WithCancel(m.ctx)
	m.mu.Lock()
	m.taskSessions[ss] = ts
	m.mu.Unlock()
	return func() {
		ts.cancel()
		ts.wg.Wait()
		m.mu.Lock()
		delete(m.taskSessions, ss)
		m.mu.Unlock()
	}
}
