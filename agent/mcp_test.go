package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
	"tickmux/host/trim"
	"tickmux/tick/wire"
)

// README "MCP tools": the tool list and each tool's annotations.
func TestMCPToolsAndAnnotations(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	cs := connectMCP(t, h.Socket, nil)
	ctx := context.Background()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.ToolAnnotations{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool.Annotations
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("%s: no description or input schema", tool.Name)
		}
	}
	// Each tool's hints hold for every call it can make: query_tick only runs tools with
	// mutates: false, call_tick may run any; read_tick and wait move the session's cursor; a
	// Tick's tools and a program in a pane may reach outside.
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"list_ticks":    {readOnly: true, idempotent: true},
		"journal":       {readOnly: true, idempotent: true},
		"describe_tick": {readOnly: true, idempotent: true},
		"read_tick":     {readOnly: true},
		"wait":          {readOnly: true},
		"read_screen":   {readOnly: true, idempotent: true},
		"query_tick":    {readOnly: true, openWorld: true},
		"call_tick":     {destructive: true, openWorld: true},
		"cancel_call":   {destructive: false, idempotent: true, openWorld: true}, // withdraws the caller's own call
		"open_tick":     {destructive: true, openWorld: true},
		"close_tick":    {destructive: true, idempotent: true},
		"send_input":    {destructive: true, openWorld: true},
	}
	if len(got) != len(want) {
		t.Errorf("tools: %v", slices.Collect(mapsKeys(got)))
	}
	for name, w := range want {
		a := got[name]
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v, want every hint set", name, a)
			continue
		}
		if h := (hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}); h != w {
			t.Errorf("%s: hints %+v, want %+v", name, h, w)
		}
	}

	// The instructions name the resources, the query/call split, the ticket and the recover_with rule.
	instr := cs.InitializeResult().Instructions
	for _, want := range []string{"tick://ID/state", "query_tick", "call_tick", `"awaiting_approval"`, `"calls": ["call:N"]`, "cancel_call", "recover_with tool only when missed > 0"} {
		if !strings.Contains(instr, want) {
			t.Errorf("instructions do not say %q:\n%s", want, instr)
		}
	}

	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "tick://{+id}/state" {
		t.Errorf("resource templates: %+v", tmpl.ResourceTemplates)
	}
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("resources capability %+v, want subscribe", caps.Resources)
	}
}

func mapsKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// spec: H-E1
// README "MCP tools": with no tickmux running, a tool says so (effect none).
func TestMCPNotRunning(t *testing.T) {
	t.Parallel()
	cs := connectMCP(t, t.TempDir()+"/none.sock", nil)
	e := call(t, cs, "list_ticks", map[string]any{}).errorOf(t)
	if e.Reason != agent.ReasonNotRunning || e.Effect != wire.EffectNone || !strings.Contains(e.Message, "no tickmux is running on") {
		t.Errorf("list_ticks with no tickmux: %+v", e)
	}
}

// README "MCP tools": list_ticks, describe_tick and read_tick.
func TestMCPListDescribeRead(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	sh := h.Open(t, host.OpenSpec{Shell: true, Argv: []string{"/bin/sh"}})
	cs := connectMCP(t, h.Socket, nil)

	var list agent.ListResult
	call(t, cs, "list_ticks", map[string]any{}).decode(t, &list)
	if len(list.Ticks) != 2 {
		t.Fatalf("list_ticks: %+v", list)
	}
	tk, shell := list.Ticks[0], list.Ticks[1]
	if tk.ID != in.ID() || tk.Type != "tick" || tk.Kind != "test.fake" || tk.Title != "Fake" || tk.Revision != "r1" ||
		tk.RecoverWith != "history" || tk.Status != "ready" || tk.Seq == nil || *tk.Seq != 0 {
		t.Errorf("the fake in list_ticks: %+v", tk)
	}
	if shell.ID != sh.ID() || shell.Type != "shell" || shell.Seq != nil {
		t.Errorf("the shell in list_ticks: %+v", shell)
	}

	var d agent.Description
	call(t, cs, "describe_tick", map[string]any{"id": in.ID()}).decode(t, &d)
	var names []string
	for _, tool := range d.Tools {
		names = append(names, tool.Name)
		if tool.Mutates != (tool.Name == "set" || tool.Name == "flood" || tool.Name == "big") {
			t.Errorf("tool %s: mutates %v", tool.Name, tool.Mutates)
		}
	}
	if !slices.Equal(names, agenttest.FakeTools) || d.Revision != "r1" || d.RecoverWith != "history" ||
		d.State == nil || len(d.State.Series) != 1 || d.State.Series[0].Path != "/recent" {
		t.Errorf("describe_tick: %+v", d)
	}

	// spec: H-RC1 (recover_with named with the state)
	var r agent.ReadResult
	call(t, cs, "read_tick", map[string]any{"id": in.ID()}).decode(t, &r)
	if r.ID != in.ID() || r.Seq != 0 || r.RecoverWith != "history" || !strings.Contains(string(r.Data), `"value":0`) || r.At == "" {
		t.Errorf("read_tick: %+v (%s)", r, r.Data)
	}

	e := call(t, cs, "read_tick", map[string]any{"id": "hosted:99"}).errorOf(t)
	if e.Reason != agent.ReasonNotFound || e.Effect != wire.EffectNone {
		t.Errorf("read_tick of an unknown id: %+v", e)
	}
	e = call(t, cs, "describe_tick", map[string]any{"id": sh.ID()}).errorOf(t)
	if e.Reason != agent.ReasonNotATick {
		t.Errorf("describe_tick of a shell: %+v", e)
	}
	e = call(t, cs, "read_tick", map[string]any{}).errorOf(t)
	if e.Reason != agent.ReasonBadRequest || !strings.Contains(e.Message, "input schema") {
		t.Errorf("read_tick without id: %+v", e)
	}

	var screen agent.ScreenResult
	call(t, cs, "read_screen", map[string]any{"id": in.ID()}).decode(t, &screen)
	if !strings.Contains(screen.Text, "fake tick ready") || screen.Cols != 120 || screen.Rows != 30 {
		t.Errorf("read_screen: %+v", screen)
	}
}

// spec: H-K2 (a mutating call waits for the person, the card names the client, tool, description
// and args, the call carries the approved revision)
func TestMCPCallWaitsForApproval(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	progress := make(chan *mcp.ProgressNotificationParams, 64)
	cs := connectMCP(t, h.Socket, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	})

	params := &mcp.CallToolParams{Name: "call_tick", Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 7}}}
	params.SetProgressToken("call-1")
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	done := callAsync(t, ctx, cs, params)

	card := h.Cards.Next(t)
	r := card.Req
	if r.Action != host.ActionCall || r.Client != "test-agent" || r.Instance != in.ID() || r.Tool != "set" ||
		r.ToolDescription != "Set the value." || string(r.Args) != `{"value":7}` || r.Revision != "r1" {
		t.Errorf("card: %+v", r)
	}
	p := receive(t, progress, "a progress notification while the card waits")
	if p.ProgressToken != "call-1" || !strings.Contains(p.Message, "approve set") {
		t.Errorf("progress: %+v", p)
	}
	if in.State().Seq != 0 {
		t.Fatal("the call went out before approval")
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)

	res := receive(t, done, "the call's result")
	if res.isError {
		t.Fatalf("call_tick: %s", res.raw)
	}
	var cr agent.CallResult
	res.decode(t, &cr)
	if cr.ID != in.ID() || cr.Tool != "set" || cr.Revision != "r1" || string(cr.Result) != `{"value":7}` {
		t.Errorf("call_tick: %+v", cr)
	}
	calls := in.Calls()
	if last := calls[len(calls)-1]; last.Approval != "approved" || last.Client != "test-agent" || !last.OK {
		t.Errorf("recent call: %+v", last)
	}

	// A query tool needs no approval.
	var get agent.CallResult
	call(t, cs, "call_tick", map[string]any{"id": in.ID(), "tool": "get"}).decode(t, &get)
	if string(get.Result) != `{"value":7}` {
		t.Errorf("get: %+v", get)
	}
}

// spec: H-K1 (args that do not fit are refused at once, with no card)
func TestMCPCallRefusedAtOnce(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{})

	for _, c := range []struct {
		name   string
		args   map[string]any
		reason string
	}{
		{"args that do not fit the schema", map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": "seven"}}, agent.ReasonInvalidArgs},
		{"missing args", map[string]any{"id": in.ID(), "tool": "set"}, agent.ReasonInvalidArgs},
		{"an unknown tool", map[string]any{"id": in.ID(), "tool": "explode"}, agent.ReasonUnknownTool},
		{"a stale revision", map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 1}, "revision": "r0"}, agent.ReasonCatalogChanged},
		{"args that are not an object", map[string]any{"id": in.ID(), "tool": "set", "args": []int{1}}, agent.ReasonBadRequest},
	} {
		e := call(t, cs, "call_tick", c.args).errorOf(t)
		if e.Reason != c.reason || e.Effect != wire.EffectNone || e.Message == "" {
			t.Errorf("%s: %+v, want reason %s and effect none", c.name, e, c.reason)
		}
		if p := h.Cards.Queue.Pending(); len(p) != 0 {
			t.Fatalf("%s: a card appeared: %+v", c.name, p)
		}
	}
	for _, rec := range in.Calls() {
		if rec.Approval != "" {
			t.Errorf("call %+v went to approval", rec)
		}
	}
}

// spec: H-K2
func TestMCPCallDenied(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{})
	done := callAsync(t, context.Background(), cs, &mcp.CallToolParams{Name: "call_tick",
		Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 3}}})
	h.Cards.Deny(t)
	e := receive(t, done, "the denied call's result").errorOf(t)
	if e.Reason != agent.ReasonDenied || e.Effect != wire.EffectNone || !strings.Contains(e.Message, "denied") {
		t.Errorf("denied call: %+v", e)
	}
	if in.State().Seq != 0 {
		t.Error("a denied call changed the state")
	}
}

// A client that cancels withdraws its card.
// spec: H-K2
// README "Approvals".
func TestMCPCancelWithdrawsCard(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "call_tick",
		Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 3}}})
	h.Cards.Next(t)
	cancel()
	receive(t, done, "the cancelled call's end")
	h.Cards.WaitNone(t)
	guardCalls(t, h, in, func(r host.CallRecord) bool { return r.Approval == "withdrawn" })
	if in.State().Seq != 0 {
		t.Error("a withdrawn call changed the state")
	}
}

// guardCalls waits until the instance's last recent call satisfies ok.
func guardCalls(t *testing.T, h *agenttest.Harness, in *host.Instance, ok func(host.CallRecord) bool) {
	t.Helper()
	sub := h.Host.Subscribe()
	defer sub.Close()
	for {
		calls := in.Calls()
		if len(calls) > 0 && ok(calls[len(calls)-1]) {
			return
		}
		receive(t, sub.C(), "a change to the recent calls")
		sub.Drain()
	}
}

// spec: H-K3 (an approval waiting on a catalog that changed is void; the call must be prepared
// again)
func TestMCPCallVoidedByCatalogChange(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{})
	done := callAsync(t, context.Background(), cs, &mcp.CallToolParams{Name: "call_tick",
		Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 3}}})
	card := h.Cards.Next(t)

	if err := in.Process().Signal(syscall.SIGUSR1); err != nil { // the fake moves to revision r2
		t.Fatal(err)
	}
	h.WaitState(t, in, func(st host.StateInfo) bool { return strings.Contains(string(st.Data), `"revision":"r2"`) })
	var d agent.Description
	call(t, cs, "describe_tick", map[string]any{"id": in.ID()}).decode(t, &d) // the host learns of it
	if d.Revision != "r2" {
		t.Fatalf("describe_tick: revision %q, want r2", d.Revision)
	}
	e := receive(t, done, "the voided call's result").errorOf(t)
	if e.Reason != agent.ReasonVoided || e.Effect != wire.EffectNone || e.Rule != "" {
		t.Errorf("voided call: %+v (want no rule id: the log has it)", e)
	}
	if err := h.Cards.Queue.Answer(card.ID, host.AllowOnce); err == nil {
		t.Error("the voided card could still be approved")
	}

	// Prepared again against r2, it goes out with r2.
	done = callAsync(t, context.Background(), cs, &mcp.CallToolParams{Name: "call_tick",
		Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 4}, "revision": "r2"}})
	if c := h.Cards.Approve(t); c.Req.Revision != "r2" {
		t.Errorf("card revision %q", c.Req.Revision)
	}
	var cr agent.CallResult
	receive(t, done, "the second call's result").decode(t, &cr)
	if cr.Revision != "r2" || string(cr.Result) != `{"value":4}` {
		t.Errorf("second call: %+v", cr)
	}
}

// spec: H-E1 (every failed call says its effect)
func TestMCPCallOutcomes(t *testing.T) {
	t.Parallel()
	_, in, cs := fakeOverMCP(t, agent.MCPOptions{})

	e := call(t, cs, "call_tick", map[string]any{"id": in.ID(), "tool": "fail"}).errorOf(t)
	if e.Effect != wire.EffectPossible || e.Reason != agent.ReasonToolFailed || e.Code != wire.CodeToolFailed || e.Message != "the fake failed halfway" {
		t.Errorf("a tool that failed: %+v", e)
	}
	e = call(t, cs, "call_tick", map[string]any{"id": in.ID(), "tool": "crash"}).errorOf(t)
	if e.Effect != wire.EffectUnknown || e.Reason != agent.ReasonSessionEnded {
		t.Errorf("a Tick that died during the call: %+v", e)
	}
}

// spec: H-SUB1 H-U2 H-RC1 (wait delivers each instance with news once, with its merged count and
// recovery tool, and sleeps until there is news)
func TestMCPWaitMerged(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{})

	var r agent.ReadResult
	call(t, cs, "read_tick", map[string]any{"id": in.ID()}).decode(t, &r)

	// Nothing new since the read: a wait that only looks finds nothing.
	var w agent.WaitResult
	call(t, cs, "wait", map[string]any{"timeout_s": 0}).decode(t, &w)
	if !w.TimedOut || len(w.Entries) != 0 {
		t.Fatalf("wait with no news: %+v", w)
	}

	// A wait in flight is woken by the next update.
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	woken := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"ids": []string{in.ID()}}})
	flood := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "call_tick", Arguments: map[string]any{"id": in.ID(), "tool": "flood", "args": map[string]any{"n": 5}}})
	h.Cards.Approve(t)
	var f agent.CallResult
	receive(t, flood, "flood's result").decode(t, &f)
	receive(t, woken, "the woken wait").decode(t, &w)
	if len(w.Entries) != 1 || w.Entries[0].ID != in.ID() || w.Entries[0].Merged < 1 || w.Entries[0].RecoverWith != "history" {
		t.Fatalf("woken wait: %+v", w)
	}
	first := w.Entries[0]

	// The rest of the burst, merged: every update since what this session was last given.
	var rest agent.WaitResult
	call(t, cs, "wait", map[string]any{"timeout_s": 0}).decode(t, &rest)
	delivered := first.Merged
	if len(rest.Entries) == 1 {
		delivered += rest.Entries[0].Merged
		if rest.Entries[0].Seq != r.Seq+5 {
			t.Errorf("second delivery: %+v", rest.Entries[0])
		}
	} else if first.Seq != r.Seq+5 {
		t.Errorf("first delivery %+v is not the newest and no second came", first)
	}
	if delivered != 5 {
		t.Errorf("merged %d in all, want 5 (the flood)", delivered)
	}

	// after_seq counts from the caller's own seq.
	call(t, cs, "wait", map[string]any{"after_seq": map[string]any{in.ID(): r.Seq + 2}, "timeout_s": 0}).decode(t, &w)
	if len(w.Entries) != 1 || w.Entries[0].Merged != 3 || w.Entries[0].Seq != r.Seq+5 {
		t.Errorf("wait after seq %d: %+v", r.Seq+2, w)
	}
	var data struct{ Value int }
	if err := json.Unmarshal(w.Entries[0].Data, &data); err != nil || data.Value != 5 {
		t.Errorf("delivered data %s", w.Entries[0].Data)
	}

	// A named id that does not exist is gone, at once.
	call(t, cs, "wait", map[string]any{"ids": []string{"hosted:42"}}).decode(t, &w)
	if len(w.Gone) != 1 || w.Gone[0].ID != "hosted:42" {
		t.Errorf("wait on an unknown id: %+v", w)
	}
}

// A session that was never given an instance's state gets it as news at once.
// spec: H-SUB1, H-U2
func TestMCPWaitFirstSight(t *testing.T) {
	t.Parallel()
	_, in, cs := fakeOverMCP(t, agent.MCPOptions{})
	var w agent.WaitResult
	call(t, cs, "wait", map[string]any{}).decode(t, &w)
	if len(w.Entries) != 1 || w.Entries[0].ID != in.ID() || w.Entries[0].Merged != 0 {
		t.Fatalf("first wait: %+v", w)
	}
	call(t, cs, "wait", map[string]any{"timeout_s": 0}).decode(t, &w)
	if len(w.Entries) != 0 {
		t.Fatalf("second wait: %+v", w)
	}
}

// spec: H-SUB2 (deliveries are trimmed to the budget, series keep their newest end, undeclared
// arrays their head and tail, and every cut is reported)
func TestMCPWaitTrimmed(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	a, b := h.OpenFake(t), h.OpenFake(t)
	cs := connectMCP(t, h.Socket, nil)
	const n = 3000
	for _, in := range []*host.Instance{a, b} {
		done := callAsync(t, context.Background(), cs, &mcp.CallToolParams{Name: "call_tick", Arguments: map[string]any{"id": in.ID(), "tool": "big", "args": map[string]any{"n": n}}})
		h.Cards.Approve(t)
		receive(t, done, "big's result")
	}

	// One instance: 16 KiB.
	var w agent.WaitResult
	res := call(t, cs, "wait", map[string]any{"ids": []string{a.ID()}, "after_seq": map[string]any{a.ID(): 0}})
	res.decode(t, &w)
	if len(w.Entries) != 1 {
		t.Fatalf("wait: %+v", w)
	}
	checkTrimmed(t, w.Entries[0], trim.TotalBudget, n)

	// Two instances: 4 KiB each.
	call(t, cs, "wait", map[string]any{"after_seq": map[string]any{a.ID(): 0, b.ID(): 0}}).decode(t, &w)
	if len(w.Entries) != 2 {
		t.Fatalf("wait: %+v", w)
	}
	for _, e := range w.Entries {
		checkTrimmed(t, e, trim.EntryBudget, n)
	}

	// read_tick is trimmed the same way.
	var r agent.ReadResult
	call(t, cs, "read_tick", map[string]any{"id": a.ID()}).decode(t, &r)
	if len(r.Trimmed) == 0 || len(r.Data) > trim.TotalBudget {
		t.Errorf("read_tick of a big state: %d bytes, trimmed %+v", len(r.Data), r.Trimmed)
	}
}

func checkTrimmed(t *testing.T, e trim.Entry, budget, n int) {
	t.Helper()
	enc, err := agentEncode(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) > budget {
		t.Errorf("%s: the entry is %d bytes, over %d", e.ID, len(enc), budget)
	}
	if e.RecoverWith != "history" {
		t.Errorf("%s: recover_with %q", e.ID, e.RecoverWith)
	}
	var data struct {
		Recent []int    `json:"recent"`
		Blob   []string `json:"blob"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatalf("%s: trimmed data is not JSON: %v", e.ID, err)
	}
	if len(data.Recent) == 0 || data.Recent[len(data.Recent)-1] != n-1 {
		t.Errorf("%s: the series lost its newest end: %v", e.ID, data.Recent)
	}
	if len(data.Blob) >= 2 && (!strings.HasPrefix(data.Blob[0], "blob item 0 ") || !strings.HasPrefix(data.Blob[len(data.Blob)-1], "blob item 2999 ")) {
		t.Errorf("%s: the undeclared array lost its head or tail: %q … %q", e.ID, data.Blob[0], data.Blob[len(data.Blob)-1])
	}
	cut := map[string]int{}
	for _, d := range e.Trimmed {
		cut[d.Pointer] += d.Dropped
	}
	if cut["/recent"] != n-len(data.Recent) {
		t.Errorf("%s: /recent kept %d of %d, reported %d dropped (%+v)", e.ID, len(data.Recent), n, cut["/recent"], e.Trimmed)
	}
	if data.Blob != nil && cut["/blob"] != n-len(data.Blob) {
		t.Errorf("%s: /blob kept %d of %d, reported %d dropped", e.ID, len(data.Blob), n, cut["/blob"])
	}
}

// agentEncode encodes like a delivery: compact, no HTML escaping.
func agentEncode(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// README "MCP tools": resources and their subscriptions.
func TestMCPResourceSubscription(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	updated := make(chan string, 64)
	cs := connectMCP(t, h.Socket, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case updated <- req.Params.URI:
			default:
			}
		},
	})
	uri := agent.StateURI(in.ID())
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" || !strings.Contains(res.Contents[0].Text, `"seq":0`) {
		t.Fatalf("read %s: %+v", uri, res.Contents)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: agent.StateURI("hosted:77")}); err == nil {
		t.Error("reading the state of an unknown instance succeeded")
	}

	subCtx, subCancel := context.WithCancel(ctx)
	subscribed := make(chan error, 1)
	go func() { subscribed <- cs.Subscribe(subCtx, &mcp.SubscribeParams{URI: uri}) }() // owner: the test; returns at once, or with subCtx on protocols that stream
	defer func() {
		subCancel()
		<-subscribed
	}()
	// The watcher starts with the first subscription and may miss what happens before it runs:
	// make new states (a tick/read posts one) until one is reported.
	for range pollTicks(t) {
		if _, err := in.Read(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-updated:
			if got != uri {
				t.Fatalf("updated %q, want %q", got, uri)
			}
			return
		case err := <-subscribed:
			if err != nil {
				t.Fatalf("subscribe: %v", err)
			}
			subscribed <- nil
		default:
		}
	}
	t.Fatal("no notifications/resources/updated arrived")
}

// spec: H-K2
// README "MCP tools": open, send, screen and close, each change behind a card.
func TestMCPOpenSendScreenClose(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	cs := connectMCP(t, h.Socket, nil)
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()

	dir := t.TempDir()
	opened := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "open_tick", Arguments: map[string]any{"command": []string{"/bin/sh"}, "shell": true, "cwd": dir}})
	card := h.Cards.Approve(t)
	if card.Req.Action != host.ActionOpen || !slices.Equal(card.Req.Argv, []string{"/bin/sh"}) || !card.Req.Shell || card.Req.Dir != dir || card.Req.Client != "test-agent" {
		t.Errorf("open card: %+v", card.Req)
	}
	var info agent.TickInfo
	receive(t, opened, "open_tick's result").decode(t, &info)
	if info.Type != "shell" || !strings.HasPrefix(info.ID, "shell:") || info.Cwd != dir {
		t.Fatalf("open_tick: %+v", info)
	}

	sent := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "send_input", Arguments: map[string]any{"id": info.ID, "text": "echo hello-$((6*7))\r"}})
	card = h.Cards.Approve(t)
	if card.Req.Action != host.ActionSend || card.Req.Text != "echo hello-$((6*7))\r" || card.Req.Instance != info.ID {
		t.Errorf("send card: %+v", card.Req)
	}
	var sr agent.SendResult
	receive(t, sent, "send_input's result").decode(t, &sr)
	if sr.Bytes != len("echo hello-$((6*7))\r") {
		t.Errorf("send_input: %+v", sr)
	}
	in := h.Host.Get(info.ID)
	waitScreen(t, in, "hello-42")
	var screen agent.ScreenResult
	call(t, cs, "read_screen", map[string]any{"id": info.ID}).decode(t, &screen)
	if !strings.Contains(screen.Text, "hello-42") {
		t.Errorf("read_screen: %q", screen.Text)
	}

	closed := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "close_tick", Arguments: map[string]any{"id": info.ID}})
	if card = h.Cards.Approve(t); card.Req.Action != host.ActionClose || card.Req.Instance != info.ID {
		t.Errorf("close card: %+v", card.Req)
	}
	var cr agent.CloseResult
	receive(t, closed, "close_tick's result").decode(t, &cr)
	if !cr.Closed || h.Host.Get(info.ID) != nil {
		t.Errorf("close_tick: %+v", cr)
	}

	// spec: H-I1 (a program that fails initialization is never shown; the failure and its screen
	// are reported). It answers the describe with garbage: one that writes garbage before being
	// asked trips a race in host.Open (in.sess is assigned after the session's reader starts).
	opened = callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "open_tick", Arguments: map[string]any{"command": []string{"/bin/sh", "-c", "echo not-a-tick >&2; read request; echo garbage; sleep 30"}}})
	h.Cards.Approve(t)
	e := receive(t, opened, "the failed open").errorOf(t)
	if e.Effect != wire.EffectPossible || !strings.Contains(e.Message, "did not start: initialization failed") || !strings.Contains(e.Message, "its screen showed: not-a-tick") {
		t.Errorf("open of a program that is not a Tick: %+v", e)
	}
	var list agent.ListResult
	call(t, cs, "list_ticks", map[string]any{}).decode(t, &list)
	if len(list.Ticks) != 0 {
		t.Errorf("list_ticks shows a Tick that never initialized: %+v", list.Ticks)
	}

	// Denied: nothing opens.
	opened = callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "open_tick", Arguments: map[string]any{"command": []string{"/bin/true"}}})
	h.Cards.Deny(t)
	if e := receive(t, opened, "the denied open").errorOf(t); e.Reason != agent.ReasonDenied || e.Effect != wire.EffectNone {
		t.Errorf("denied open: %+v", e)
	}
	if n := len(h.Host.Instances()); n != 1 { // the one that failed to initialize
		t.Errorf("%d instances after a denied open, want 1", n)
	}
}

// waitScreen waits until the instance's screen shows want. The screen has no change event for
// clients, so this looks again after each host event or every few milliseconds.
func waitScreen(t *testing.T, in *host.Instance, want string) {
	t.Helper()
	for range pollTicks(t) {
		if strings.Contains(in.Terminal().Text(), want) {
			return
		}
	}
	t.Fatalf("%s never showed %q; screen:\n%s", in.ID(), want, in.Terminal().Text())
}
