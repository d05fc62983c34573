package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
	"tickmux/tick/wire"
)

// Tests for what real MCP clients need beyond the plain tools: query_tick, tickets for calls
// that outlive a client's request timeout, clamped numbers, resources that are listed, and
// JSON-RPC errors with codes.

// shortWait is the ticket bound in these tests: a card left alone is still pending after it.
const shortWait = 200 * time.Millisecond

// connectMCPWith is connectMCP with the bridge's options; it also returns a func that ends the
// session and the bridge before the test does. protocol, when given, is the MCP protocol version
// the client asks for.
func connectMCPWith(t *testing.T, socket string, mopts agent.MCPOptions, opts *mcp.ClientOptions, protocol ...string) (*mcp.ClientSession, func()) {
	t.Helper()
	if mopts.Logf == nil {
		mopts.Logf = t.Logf
	}
	m := agent.NewMCP(socket, mopts)
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, st) }() // owner: the test; ends at cleanup or end()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, opts)
	var sopts *mcp.ClientSessionOptions
	if len(protocol) > 0 {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: protocol[0]}
	}
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		cancel()
		<-done
		m.Close()
		t.Fatalf("connect: %v", err)
	}
	ended := false
	end := func() {
		if ended {
			return
		}
		ended = true
		cs.Close()
		cancel()
		<-done
		m.Close()
	}
	t.Cleanup(end)
	return cs, end
}

// fakeOverMCP starts a host with the fake Tick open and connects an MCP client to it through a
// bridge with mopts.
func fakeOverMCP(t *testing.T, mopts agent.MCPOptions) (*agenttest.Harness, *host.Instance, *mcp.ClientSession) {
	t.Helper()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	cs, _ := connectMCPWith(t, h.Socket, mopts, nil)
	return h, in, cs
}

// cardGoneCallUnsent checks that the ticket's card went away, cannot be approved any more, and
// that its call never reached the Tick; why says what took the card away.
func cardGoneCallUnsent(t *testing.T, h *agenttest.Harness, in *host.Instance, card uint64, why string) {
	t.Helper()
	h.Cards.WaitNone(t)
	if err := h.Cards.Queue.Answer(card, host.AllowOnce); err == nil {
		t.Errorf("%s: the card could still be approved", why)
	}
	if in.State().Seq != 0 {
		t.Errorf("%s: the call reached the Tick", why)
	}
}

// spec: H-K2
func TestMCPQueryTickRefusesMutatingTools(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{CallWait: shortWait})

	var get agent.CallResult
	call(t, cs, "query_tick", map[string]any{"id": in.ID(), "tool": "get"}).decode(t, &get)
	if get.Status != agent.StatusOK || string(get.Result) != `{"value":0}` {
		t.Errorf("query_tick get: %+v", get)
	}

	e := call(t, cs, "query_tick", map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 9}}).errorOf(t)
	if e.Reason != agent.ReasonMutates || e.Effect != wire.EffectNone || !strings.Contains(e.Message, "call_tick") {
		t.Errorf("query_tick set: %+v", e)
	}
	if p := h.Cards.Queue.Pending(); len(p) != 0 {
		t.Errorf("query_tick of a mutating tool put up a card: %+v", p)
	}
	if in.State().Seq != 0 || len(in.Calls()) != 1 {
		t.Errorf("query_tick of a mutating tool reached the Tick: seq %d, calls %+v", in.State().Seq, in.Calls())
	}

	// A revision that is not the current one is refused too: the query was checked against it.
	e = call(t, cs, "query_tick", map[string]any{"id": in.ID(), "tool": "get", "revision": "r0"}).errorOf(t)
	if e.Reason != agent.ReasonCatalogChanged || e.Effect != wire.EffectNone {
		t.Errorf("query_tick with an old revision: %+v", e)
	}
}

// ticketOf calls call_tick and checks that the answer is a ticket awaiting approval.
func ticketOf(t *testing.T, cs *mcp.ClientSession, args map[string]any) agent.Ticket {
	t.Helper()
	r := call(t, cs, "call_tick", args)
	if r.isError {
		t.Fatalf("call_tick: an error, want a ticket: %s", r.raw)
	}
	var tk agent.Ticket
	r.decode(t, &tk)
	if tk.Status != agent.StatusAwaitingApproval || !strings.HasPrefix(tk.Call, "call:") || tk.Card == 0 ||
		!strings.Contains(tk.Message, `wait with {"calls": ["`+tk.Call+`"]}`) {
		t.Fatalf("call_tick: %s, want a ticket awaiting approval", r.raw)
	}
	return tk
}

// spec: H-K2 (the card stays up past the client's patience; the call goes out only once approved)
func TestMCPCallTicketThenApprove(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{CallWait: shortWait})

	tk := ticketOf(t, cs, map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 5}})
	pending := h.Cards.Queue.Pending()
	if len(pending) != 1 || pending[0].ID != tk.Card || pending[0].Req.Tool != "set" {
		t.Fatalf("after the ticket, cards %+v, want card %d still up", pending, tk.Card)
	}
	if in.State().Seq != 0 {
		t.Fatal("the call went out before approval")
	}

	// Looking finds nothing yet, and no state news either (only calls are named).
	var w agent.WaitResult
	call(t, cs, "wait", map[string]any{"calls": []string{tk.Call}, "timeout_s": 0}).decode(t, &w)
	if !w.TimedOut || len(w.Calls) != 0 || len(w.Entries) != 0 {
		t.Errorf("wait before the answer: %+v", w)
	}

	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	done := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"calls": []string{tk.Call}}})
	h.Cards.Answer(t, tk.Card, host.AllowOnce)
	receive(t, done, "the wait for the call").decode(t, &w)
	if len(w.Calls) != 1 {
		t.Fatalf("wait: %+v", w)
	}
	o := w.Calls[0]
	if o.Call != tk.Call || o.Status != agent.StatusOK || o.ID != in.ID() || o.Tool != "set" || o.Revision != "r1" || string(o.Result) != `{"value":5}` || o.Error != nil {
		t.Errorf("the call's outcome: %+v", o)
	}
	if calls := in.Calls(); calls[len(calls)-1].Approval != "approved" {
		t.Errorf("recent calls: %+v", calls)
	}

	// An outcome is given once.
	call(t, cs, "wait", map[string]any{"calls": []string{tk.Call}, "timeout_s": 0}).decode(t, &w)
	if len(w.Calls) != 1 || w.Calls[0].Status != agent.StatusUnknown || w.Calls[0].Error == nil {
		t.Errorf("second wait for the same call: %+v", w)
	}
}

// spec: H-K2
func TestMCPCallTicketDenied(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{CallWait: shortWait})
	tk := ticketOf(t, cs, map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 6}})
	h.Cards.Answer(t, tk.Card, host.Deny)
	var w agent.WaitResult
	call(t, cs, "wait", map[string]any{"calls": []string{tk.Call}}).decode(t, &w)
	if len(w.Calls) != 1 || w.Calls[0].Status != agent.StatusDenied || w.Calls[0].Error == nil ||
		w.Calls[0].Error.Effect != wire.EffectNone || w.Calls[0].Error.Rule != "" {
		t.Errorf("a denied call's outcome: %+v", w)
	}
	if in.State().Seq != 0 {
		t.Error("a denied call reached the Tick")
	}
}

// spec: H-K2
// README "MCP tools": cancel_call withdraws a ticketed call.
func TestMCPCancelCallWithdrawsTheCard(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{CallWait: shortWait})
	tk := ticketOf(t, cs, map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 8}})

	var o agent.CallOutcome
	call(t, cs, "cancel_call", map[string]any{"call": tk.Call}).decode(t, &o)
	if o.Call != tk.Call || o.Status != agent.StatusWithdrawn || o.Error == nil || o.Error.Effect != wire.EffectNone {
		t.Errorf("cancel_call: %+v", o)
	}
	cardGoneCallUnsent(t, h, in, tk.Card, "withdrawn")
	call(t, cs, "cancel_call", map[string]any{"call": tk.Call}).decode(t, &o)
	if o.Status != agent.StatusUnknown {
		t.Errorf("cancel_call again: %+v", o)
	}
}

// The card of a ticket lives as long as the session that holds the ticket.
// spec: H-K2
func TestMCPSessionEndWithdrawsTicketCards(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	cs, end := connectMCPWith(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, nil)
	tk := ticketOf(t, cs, map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 2}})
	// The ticket says what a one-shot client (one that exits after it) will see.
	if !strings.Contains(tk.Message, "while this session lasts") || !strings.Contains(tk.Message, "if this client disconnects, the card is withdrawn") {
		t.Errorf("the ticket does not say the card goes with the session: %q", tk.Message)
	}
	end()
	cardGoneCallUnsent(t, h, in, tk.Card, "the session ended")
}

// A call answered within the bound is an ordinary result, not a ticket.
// README "MCP tools", Tickets: a call answered within the 45 s bound is a plain result.
func TestMCPCallWithinTheBound(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{CallWait: agenttest.HangGuard})
	done := callAsync(t, context.Background(), cs, &mcp.CallToolParams{Name: "call_tick",
		Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 3}}})
	h.Cards.Approve(t)
	var cr agent.CallResult
	receive(t, done, "the call's result").decode(t, &cr)
	if cr.Status != agent.StatusOK || string(cr.Result) != `{"value":3}` {
		t.Errorf("call_tick: %+v", cr)
	}
}

// Numbers an agent gives above their bound are clamped, not refused (Codex drops maximum).
// README "MCP tools".
func TestMCPWaitClampsNumbers(t *testing.T) {
	t.Parallel()
	_, in, cs := fakeOverMCP(t, agent.MCPOptions{})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "wait" {
			schema, _ := json.Marshal(tool.InputSchema)
			if !strings.Contains(string(schema), "clamped to 50") || strings.Contains(string(schema), `"maximum"`) {
				t.Errorf("wait's schema does not say it clamps: %s", schema)
			}
		}
	}
	// The fake was never given to this session: news at once, whatever the timeout.
	var w agent.WaitResult
	call(t, cs, "wait", map[string]any{"timeout_s": 3600, "after_seq": map[string]any{"hosted:77": -5}}).decode(t, &w)
	if len(w.Entries) != 1 || w.Entries[0].ID != in.ID() {
		t.Errorf("wait with a large timeout and a negative seq: %+v", w)
	}
}

// A delivery says how many updates the client never saw; recover_with is worth calling only then.
// spec: H-U2, H-RC1
func TestMCPWaitSaysMissed(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{})
	var r agent.ReadResult
	call(t, cs, "read_tick", map[string]any{"id": in.ID()}).decode(t, &r)

	var w agent.WaitResult
	done := callAsync(t, context.Background(), cs, &mcp.CallToolParams{Name: "call_tick",
		Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 1}}})
	h.Cards.Approve(t)
	receive(t, done, "set 1")
	call(t, cs, "wait", map[string]any{"ids": []string{in.ID()}}).decode(t, &w)
	if len(w.Entries) != 1 || w.Entries[0].Merged != 1 || w.Entries[0].Missed != 0 {
		t.Errorf("one update: %+v", w.Entries)
	}
	raw := call(t, cs, "wait", map[string]any{"ids": []string{in.ID()}, "timeout_s": 0}).raw
	if !strings.Contains(string(raw), `"timed_out":true`) {
		t.Errorf("no news: %s", raw)
	}

	for v := 2; v <= 4; v++ {
		done := callAsync(t, context.Background(), cs, &mcp.CallToolParams{Name: "call_tick",
			Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": v}}})
		h.Cards.Approve(t)
		receive(t, done, "set")
	}
	raw = call(t, cs, "wait", map[string]any{"ids": []string{in.ID()}}).raw
	if err := json.Unmarshal(raw, &w); err != nil || len(w.Entries) != 1 || w.Entries[0].Merged != 3 || w.Entries[0].Missed != 2 ||
		!strings.Contains(string(raw), `"missed":2`) {
		t.Errorf("three updates: %s", raw)
	}
}

// A session's first delivery of a Tick counts nothing missed, however many updates came before it
// connected: missed is what this session never saw since it first saw the Tick.
// spec: H-U2
func TestMCPFirstDeliveryMissesNothing(t *testing.T) {
	t.Parallel()
	h, in, first := fakeOverMCP(t, agent.MCPOptions{})
	for v := 1; v <= 3; v++ {
		done := callAsync(t, context.Background(), first, &mcp.CallToolParams{Name: "call_tick",
			Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": v}}})
		h.Cards.Approve(t)
		receive(t, done, "set")
	}
	second, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{}, nil)
	var w agent.WaitResult
	raw := call(t, second, "wait", map[string]any{"ids": []string{in.ID()}}).raw
	if err := json.Unmarshal(raw, &w); err != nil || len(w.Entries) != 1 || w.Entries[0].Missed != 0 || w.Entries[0].Merged < 3 {
		t.Errorf("a new session's first delivery: %s", raw)
	}
}

// README "MCP tools": resources.
func TestMCPResourcesListed(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	h.Open(t, host.OpenSpec{Shell: true, Argv: []string{"/bin/sh"}})
	changed := make(chan struct{}, 16)
	cs, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	ctx := context.Background()
	list := func() map[string]*mcp.Resource {
		t.Helper()
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*mcp.Resource{}
		for _, r := range res.Resources {
			out[r.URI] = r
		}
		return out
	}
	got := list()
	r := got[agent.StateURI(in.ID())]
	if len(got) != 1 || r == nil || !strings.Contains(r.Description, "Fake") || !strings.Contains(r.Description, "test.fake") || r.MIMEType != "application/json" {
		t.Fatalf("resources/list: %+v", got)
	}

	// A Tick that comes is listed, and the client is told.
	second := h.OpenFake(t)
	for {
		if list()[agent.StateURI(second.ID())] != nil {
			break
		}
		receive(t, changed, "notifications/resources/list_changed for a new Tick")
	}
	// One that goes leaves the list, and the client is told.
	drain(changed)
	if err := h.Host.Remove(second.ID()); err != nil {
		t.Fatal(err)
	}
	receive(t, changed, "notifications/resources/list_changed for a Tick that left")
	for list()[agent.StateURI(second.ID())] != nil {
		receive(t, changed, "notifications/resources/list_changed for a Tick that left")
	}

	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: agent.StateURI(in.ID())})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, `"value":0`) {
		t.Errorf("read %s: %v %+v", agent.StateURI(in.ID()), err, read)
	}
}

func drain[T any](ch chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// rpcCode is the JSON-RPC error code of err, or fails the test.
func rpcCode(t *testing.T, what string, err error) (int64, string) {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v (%T), want a JSON-RPC error", what, err, err)
	}
	return e.Code, e.Message
}

// README "MCP tools": resources.
func TestMCPResourceErrors(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	sh := h.Open(t, host.OpenSpec{Shell: true, Argv: []string{"/bin/sh"}})
	// resources/subscribe as Claude Code and the TypeScript SDK send it (protocol 2025-11-25).
	cs, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{}, nil, "2025-11-25")
	ctx := context.Background()

	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: agent.StateURI(in.ID())}); err != nil {
		t.Errorf("subscribe to the fake: %v", err)
	}
	for _, c := range []struct{ uri, says string }{
		{"tick://hosted:99/state", "no Tick hosted:99"},
		{agent.StateURI(sh.ID()), "not a Tick"},
		{"tick://hosted:1", "tick://ID/state"},
		{"file:///etc/passwd", "tick://ID/state"},
	} {
		code, msg := rpcCode(t, "subscribe "+c.uri, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: c.uri}))
		if code != jsonrpc.CodeInvalidParams || !strings.Contains(msg, c.says) {
			t.Errorf("subscribe %s: code %d %q, want %d saying %q", c.uri, code, msg, jsonrpc.CodeInvalidParams, c.says)
		}
	}
	for _, uri := range []string{"tick://hosted:99/state", "tick://hosted:1", "file:///etc/passwd"} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if code, msg := rpcCode(t, "read "+uri, err); code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s: code %d %q, want %d", uri, code, msg, jsonrpc.CodeInvalidParams)
		}
	}
}

// README "MCP tools": resources with no tickmux running.
func TestMCPResourcesWithoutTickmux(t *testing.T) {
	t.Parallel()
	cs, _ := connectMCPWith(t, t.TempDir()+"/none.sock", agent.MCPOptions{}, nil, "2025-11-25")
	ctx := context.Background()
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 0 {
		t.Errorf("resources/list with no tickmux: %v %+v", err, res)
	}
	code, msg := rpcCode(t, "subscribe", cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "tick://hosted:1/state"}))
	if code == 0 || !strings.Contains(msg, "no tickmux is running") {
		t.Errorf("subscribe with no tickmux: code %d %q", code, msg)
	}
}

// A request the client cancelled gets no reply, and its card is withdrawn (raw JSON-RPC: the
// SDK's client would drop a stray reply without telling).
// README "Approvals": a client that cancels withdraws its card.
func TestMCPNoReplyAfterCancelled(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	m := agent.NewMCP(h.Socket, agent.MCPOptions{Logf: t.Logf})
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, st) }() // owner: the test; ends at cleanup
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
		<-done
		m.Close()
	})
	msgs := make(chan jsonrpc.Message, 64)
	go func() { // owner: the test; ends when the connection closes
		defer close(msgs)
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			msgs <- msg
		}
	}()
	send := func(id int64, method string, params any) {
		t.Helper()
		raw, _ := json.Marshal(params)
		req := &jsonrpc.Request{Method: method, Params: raw}
		if id > 0 {
			req.ID, _ = jsonrpc.MakeID(float64(id))
		}
		if err := conn.Write(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	// answer reads until the response to id, failing on a response to never.
	answer := func(id, never int64) *jsonrpc.Response {
		t.Helper()
		for {
			msg := receive(t, msgs, "a message from the server")
			res, ok := msg.(*jsonrpc.Response)
			if !ok {
				continue
			}
			if res.ID.Raw() == never {
				t.Fatalf("a reply to request %d, which the client cancelled: %s %v", never, res.Result, res.Error)
			}
			if res.ID.Raw() == id {
				return res
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
	answer(1, 0)
	send(0, "notifications/initialized", map[string]any{})
	send(2, "tools/call", map[string]any{"name": "call_tick", "arguments": map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 1}}})
	h.Cards.Next(t)
	send(0, "notifications/cancelled", map[string]any{"requestId": 2, "reason": "the user pressed Esc"})
	h.Cards.WaitNone(t)
	for i := range pollTicks(t) { // the host records the withdrawal once the call has returned
		calls := in.Calls()
		if len(calls) > 0 && calls[len(calls)-1].Approval == "withdrawn" {
			break
		}
		_ = i
	}
	// Later requests are answered, and request 2 never is.
	for id := int64(3); id <= 5; id++ {
		send(id, "tools/call", map[string]any{"name": "list_ticks", "arguments": map[string]any{}})
		answer(id, 2)
	}
	if in.State().Seq != 0 {
		t.Error("the cancelled call reached the Tick")
	}
}

// A session's first resources/list is not followed by notifications/resources/list_changed: the
// bridge fills the SDK's registry before the session connects (every registry change is a
// list_changed to the sessions), so the listing changes nothing; a Tick opened later does.
// README "MCP tools": resources.
func TestMCPFirstListingSendsNoListChanged(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	m := agent.NewMCP(h.Socket, agent.MCPOptions{Logf: t.Logf})
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, st) }() // owner: the test; ends at the cleanup
	changed := make(chan struct{}, 16)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); <-done; m.Close() })
	primed := m.RegistryChanges()
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != agent.StateURI(in.ID()) {
		t.Fatalf("the first listing: %+v, %v", res, err)
	}
	if primed == 0 || m.RegistryChanges() != primed {
		t.Fatalf("the first listing changed the registry (%d changes before it, %d after): the session is sent list_changed", primed, m.RegistryChanges())
	}
	// A real change is still told.
	h.OpenFake(t)
	select {
	case <-changed:
	case <-time.After(agenttest.HangGuard):
		t.Fatal("no list_changed after a new Tick")
	}
}
