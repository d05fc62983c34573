package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/agent/mcptask"
	"tickmux/host"
	"tickmux/host/journal"
	"tickmux/tick/wire"
)

// MCP tasks (SEP-2663, docs/agents.md "Tasks"): a client that declares the extension on a
// tools/call gets a task at once for a call that waits for a card; one that does not (the SDK
// client below, Claude Code 2.1.197, Codex) gets a ticket. The go-sdk client cannot read a task
// answer, so these tests speak JSON-RPC on the SDK's in-memory transport, as Claude Code
// 2.1.328 does: no initialize, the protocol version, client info and capabilities in every
// request's _meta.

// rawMCP is a client that writes requests by hand and reads answers and notifications.
type rawMCP struct {
	t     *testing.T
	conn  mcp.Connection
	tasks bool // declare the tasks extension

	mu      sync.Mutex
	next    int64
	waiting map[jsonrpc.ID]chan *jsonrpc.Response
	notes   chan *jsonrpc.Request
}

// connectRaw serves a bridge with mopts to one raw client; end ends both before the test does.
func connectRaw(t *testing.T, socket string, mopts agent.MCPOptions, tasks bool) (r *rawMCP, end func()) {
	t.Helper()
	if mopts.Logf == nil {
		mopts.Logf = t.Logf
	}
	m := agent.NewMCP(socket, mopts)
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, st) }() // owner: the test; ends at end()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r = &rawMCP{t: t, conn: conn, tasks: tasks, waiting: map[jsonrpc.ID]chan *jsonrpc.Response{}, notes: make(chan *jsonrpc.Request, 64)}
	read := make(chan struct{})
	go func() { // owner: the test; ends when the connection closes at end()
		defer close(read)
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			switch msg := msg.(type) {
			case *jsonrpc.Response:
				r.mu.Lock()
				ch := r.waiting[msg.ID]
				delete(r.waiting, msg.ID)
				r.mu.Unlock()
				if ch != nil {
					ch <- msg
				}
			case *jsonrpc.Request:
				if !msg.IsCall() {
					select {
					case r.notes <- msg:
					default:
					}
				}
			}
		}
	}()
	ended := false
	end = func() {
		if ended {
			return
		}
		ended = true
		conn.Close()
		cancel()
		<-read
		<-done
		m.Close()
	}
	t.Cleanup(end)
	return r, end
}

// request sends method with params (and the 2026-07-28 _meta) and returns the answer.
func (r *rawMCP) request(method string, params map[string]any) (json.RawMessage, error) {
	r.t.Helper()
	caps := map[string]any{}
	if r.tasks {
		caps["extensions"] = map[string]any{mcptask.ExtensionID: map[string]any{}}
	}
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientInfo:         map[string]any{"name": "claude-code", "version": "2.1.328"},
		mcp.MetaKeyClientCapabilities: caps,
	}
	raw, err := json.Marshal(params)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.next++
	id, err := jsonrpc.MakeID(float64(r.next)) // a number id: MakeID takes float64 or string
	if err != nil {
		r.t.Fatal(err)
	}
	ch := make(chan *jsonrpc.Response, 1)
	r.waiting[id] = ch
	r.mu.Unlock()
	if err := r.conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		r.t.Fatalf("%s: %v", method, err)
	}
	res := receive(r.t, ch, method+"'s answer")
	return res.Result, res.Error
}

// must is request that fails the test on an error answer.
func (r *rawMCP) must(method string, params map[string]any) json.RawMessage {
	r.t.Helper()
	res, err := r.request(method, params)
	if err != nil {
		r.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// taskAnswer is a tools/call or tasks/get answer as Claude Code 2.1.328 reads it.
type taskAnswer struct {
	ResultType string `json:"resultType"`
	mcptask.Task
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *mcptask.Error `json:"error"`
}

func decodeTask(t *testing.T, raw json.RawMessage) taskAnswer {
	t.Helper()
	var a taskAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return a
}

// startTask calls call_tick set value and checks that it answers at once with a working task
// naming the card that is up.
func startTask(t *testing.T, h *agenttest.Harness, in *host.Instance, r *rawMCP, value int) (taskAnswer, host.Card) {
	t.Helper()
	began := time.Now()
	raw := r.must("tools/call", map[string]any{"name": "call_tick", "arguments": map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": value}}})
	took := time.Since(began)
	a := decodeTask(t, raw)
	if a.ResultType != mcptask.ResultTypeTask || a.TaskID == "" || a.Status != mcptask.StatusWorking {
		t.Fatalf("call_tick: %s, want a working task", raw)
	}
	if took > 5*time.Second {
		t.Errorf("the task came after %s, not at once", took)
	}
	pending := h.Cards.Queue.Pending()
	if len(pending) != 1 || pending[0].Req.Tool != "set" {
		t.Fatalf("cards %+v, want the call's card up", pending)
	}
	card := pending[0]
	want := fmt.Sprintf("waiting for the person's approval on card %d (%s set)", card.ID, in.ID())
	if a.StatusMessage != want {
		t.Errorf("statusMessage %q, want %q", a.StatusMessage, want)
	}
	// The fields Claude Code 2.1.328 reads (its task handle schema): ttlMs and pollIntervalMs in
	// milliseconds, ISO 8601 times, and no field of the draft's spelling.
	if a.TTLMs != agent.DefaultTaskTTL.Milliseconds() || a.PollIntervalMs < 250 || a.PollIntervalMs > 30000 {
		t.Errorf("ttlMs %d, pollIntervalMs %d", a.TTLMs, a.PollIntervalMs)
	}
	if _, err := time.Parse(time.RFC3339, a.CreatedAt); err != nil || a.LastUpdatedAt == "" {
		t.Errorf("createdAt %q, lastUpdatedAt %q", a.CreatedAt, a.LastUpdatedAt)
	}
	for _, draft := range []string{"ttlSeconds", "pollIntervalMilliseconds", `"task":`} {
		if strings.Contains(string(raw), draft) {
			t.Errorf("the handle has %s: %s", draft, raw)
		}
	}
	if in.State().Seq != 0 {
		t.Fatal("the call went out before approval")
	}
	return a, card
}

// getTask polls tasks/get until the task is not working, at most HangGuard.
func getTask(t *testing.T, r *rawMCP, id string) taskAnswer {
	t.Helper()
	deadline := time.Now().Add(agenttest.HangGuard)
	for {
		a := decodeTask(t, r.must(mcptask.MethodGet, map[string]any{"taskId": id}))
		if a.ResultType != mcptask.ResultTypeComplete || a.TaskID != id {
			t.Fatalf("tasks/get: %+v", a)
		}
		if a.Status != mcptask.StatusWorking || time.Now().After(deadline) {
			return a
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The server lists the extension in server/discover (the real go-sdk client asks with
// 2026-07-28), and still answers the SDK client, which does not declare it, with a ticket.
func TestMCPTasksDiscoverAndTicketsWithout(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	cs, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, nil, "2026-07-28")
	ir := cs.InitializeResult()
	if ir == nil || ir.ProtocolVersion != "2026-07-28" || ir.Capabilities == nil {
		t.Fatalf("discover: %+v", ir)
	}
	if _, ok := ir.Capabilities.Extensions[mcptask.ExtensionID]; !ok {
		t.Errorf("server/discover's capabilities lack %s: %+v", mcptask.ExtensionID, ir.Capabilities.Extensions)
	}
	tk := ticketOf(t, cs, map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 3}})
	h.Cards.Answer(t, tk.Card, host.Deny)

	// The same raw client without the extension: a ticket too.
	r, _ := connectRaw(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, false)
	raw := r.must("tools/call", map[string]any{"name": "call_tick", "arguments": map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 4}}})
	var res struct {
		ResultType        string       `json:"resultType"`
		StructuredContent agent.Ticket `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.ResultType == mcptask.ResultTypeTask || res.StructuredContent.Status != agent.StatusAwaitingApproval {
		t.Errorf("without the extension: %s, want a ticket", raw)
	}
	h.Cards.Deny(t)
}

// y: tasks/get gives the task completed with call_tick's result, and the session is told.
// spec: H-K2
func TestMCPTaskApproved(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	r, _ := connectRaw(t, h.Socket, agent.MCPOptions{}, true)
	a, card := startTask(t, h, in, r, 5)
	if got := decodeTask(t, r.must(mcptask.MethodGet, map[string]any{"taskId": a.TaskID})); got.Status != mcptask.StatusWorking || got.StatusMessage != a.StatusMessage {
		t.Errorf("tasks/get before the answer: %+v", got)
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)
	got := getTask(t, r, a.TaskID)
	if got.Status != mcptask.StatusCompleted || got.Result == nil || got.Result.IsError || got.Error != nil {
		t.Fatalf("tasks/get after y: %+v", got)
	}
	var res agent.CallResult
	if err := json.Unmarshal(got.Result.StructuredContent, &res); err != nil || res.Status != agent.StatusOK || string(res.Result) != `{"value":5}` || res.ID != in.ID() || res.Tool != "set" {
		t.Errorf("the task's result: %s", got.Result.StructuredContent)
	}
	if len(got.Result.Content) != 1 || got.Result.Content[0].Type != "text" || got.Result.Content[0].Text != string(got.Result.StructuredContent) {
		t.Errorf("the result's content: %+v", got.Result.Content)
	}
	if in.State().Seq == 0 {
		t.Error("the approved call did not reach the Tick")
	}
	// notifications/tasks/status went out with the end.
	deadline := time.After(agenttest.HangGuard)
	for {
		select {
		case n := <-r.notes:
			if n.Method != mcptask.NotificationStatus {
				continue
			}
			var tn mcptask.DetailedTask
			if err := json.Unmarshal(n.Params, &tn); err != nil || tn.TaskID != a.TaskID || tn.Status != mcptask.StatusCompleted || len(tn.Result) == 0 {
				t.Errorf("notifications/tasks/status: %s", n.Params)
			}
			return
		case <-deadline:
			t.Fatal("no notifications/tasks/status")
		}
	}
}

// n: the task completes with call_tick's denial, an error result, as without tasks.
// spec: H-K2
func TestMCPTaskDenied(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	r, _ := connectRaw(t, h.Socket, agent.MCPOptions{}, true)
	a, card := startTask(t, h, in, r, 6)
	h.Cards.Answer(t, card.ID, host.Deny)
	got := getTask(t, r, a.TaskID)
	if got.Status != mcptask.StatusCompleted || got.Result == nil || !got.Result.IsError {
		t.Fatalf("tasks/get after n: %+v", got)
	}
	var e struct{ Error agent.Error }
	if err := json.Unmarshal(got.Result.StructuredContent, &e); err != nil || e.Error.Reason != agent.ReasonDenied || e.Error.Effect != wire.EffectNone || e.Error.Rule != "" {
		t.Errorf("the denial: %s", got.Result.StructuredContent)
	}
	if in.State().Seq != 0 {
		t.Error("a denied call reached the Tick")
	}
}

// tasks/cancel withdraws the card: it comes down, the call never goes out, the journal says
// withdrawn, tasks/get says cancelled. Unknown ids are acknowledged on cancel, refused on get.
// spec: H-K2
func TestMCPTaskCancelWithdrawsTheCard(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	r, _ := connectRaw(t, h.Socket, agent.MCPOptions{}, true)
	a, card := startTask(t, h, in, r, 8)
	r.must(mcptask.MethodCancel, map[string]any{"taskId": a.TaskID})
	cardGoneCallUnsent(t, h, in, card.ID, "tasks/cancel")
	got := getTask(t, r, a.TaskID)
	if got.Status != mcptask.StatusCancelled || got.Result != nil {
		t.Errorf("tasks/get after tasks/cancel: %+v", got)
	}
	var jr agent.JournalResult
	raw := r.must("tools/call", map[string]any{"name": "journal", "arguments": map[string]any{"id": in.ID()}})
	var res struct{ StructuredContent json.RawMessage }
	if err := json.Unmarshal(raw, &res); err != nil || json.Unmarshal(res.StructuredContent, &jr) != nil {
		t.Fatalf("journal: %s", raw)
	}
	if n := len(jr.Entries); n == 0 || jr.Entries[n-1].Decision != journal.Withdrawn || jr.Entries[n-1].Tool != "set" {
		t.Errorf("the journal does not say withdrawn: %+v", jr.Entries)
	}

	r.must(mcptask.MethodCancel, map[string]any{"taskId": "call:kept-999"})
	r.must(mcptask.MethodCancel, map[string]any{"taskId": "no-such-task"})
	r.must(mcptask.MethodUpdate, map[string]any{"taskId": a.TaskID, "inputResponses": map[string]any{}})
	_, err := r.request(mcptask.MethodGet, map[string]any{"taskId": "no-such-task"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/get of an unknown id: %v, want invalid params", err)
	}
}

// A task outlives its client: the card stays after the session ends, and a later session
// collects the outcome by the task id.
// spec: H-K2
func TestMCPTaskOutlivesTheSession(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	r, end := connectRaw(t, h.Socket, agent.MCPOptions{}, true)
	a, card := startTask(t, h, in, r, 9)
	end()
	if p := h.Cards.Queue.Pending(); len(p) != 1 || p[0].ID != card.ID {
		t.Fatalf("after the session ended, cards %+v, want card %d still up", p, card.ID)
	}
	again, _ := connectRaw(t, h.Socket, agent.MCPOptions{}, true)
	if got := decodeTask(t, again.must(mcptask.MethodGet, map[string]any{"taskId": a.TaskID})); got.Status != mcptask.StatusWorking {
		t.Errorf("tasks/get in the next session: %+v", got)
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)
	got := getTask(t, again, a.TaskID)
	if got.Status != mcptask.StatusCompleted || got.Result == nil || got.Result.IsError {
		t.Errorf("tasks/get after y in the next session: %+v", got)
	}
}

// A task whose card nobody answers within its lifetime is withdrawn: a client stops polling
// then, so a late y would run a call whose result nobody reads.
func TestMCPTaskTTLWithdraws(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	r, _ := connectRaw(t, h.Socket, agent.MCPOptions{TaskTTL: time.Second}, true)
	raw := r.must("tools/call", map[string]any{"name": "call_tick", "arguments": map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 1}}})
	a := decodeTask(t, raw)
	if a.ResultType != mcptask.ResultTypeTask || a.TTLMs != 1000 {
		t.Fatalf("call_tick: %s", raw)
	}
	got := getTask(t, r, a.TaskID)
	if got.Status != mcptask.StatusCancelled || !strings.Contains(got.StatusMessage, "nobody answered within 1s") {
		t.Errorf("after the TTL: %+v", got)
	}
	h.Cards.WaitNone(t)
	if in.State().Seq != 0 {
		t.Error("the call reached the Tick")
	}
}
