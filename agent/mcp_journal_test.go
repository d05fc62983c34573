package agent_test

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host/journal"
)

// The journal MCP tool gives an agent the entries of its own requests (calls, opens, sends and
// closes) with the decision and, for a call, the change; another agent's process sees none of
// them. list_ticks counts each Tick's decisions.
// README "The approval journal".
func TestMCPJournal(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	cs := connectMCP(t, h.Socket, nil) // in this process: the socket sees the test's pid
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()

	done := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "call_tick", Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 7}}})
	h.Cards.Approve(t)
	receive(t, done, "call_tick's result")
	done = callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "call_tick", Arguments: map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 8}}})
	h.Cards.Deny(t)
	receive(t, done, "the denied call")

	dir := t.TempDir()
	opened := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "open_tick", Arguments: map[string]any{"command": []string{"/bin/sh"}, "shell": true, "cwd": dir}})
	h.Cards.Approve(t)
	var info agent.TickInfo
	receive(t, opened, "open_tick's result").decode(t, &info)
	sent := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "send_input", Arguments: map[string]any{"id": info.ID, "text": "true\r"}})
	h.Cards.Approve(t)
	receive(t, sent, "send_input's result")
	closed := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "close_tick", Arguments: map[string]any{"id": info.ID}})
	h.Cards.Deny(t)
	receive(t, closed, "the denied close")

	var jr agent.JournalResult
	call(t, cs, "journal", map[string]any{}).decode(t, &jr)
	var got []string
	for _, e := range jr.Entries {
		got = append(got, e.Kind+" "+e.Decision+" "+e.Outcome.Status)
		if e.Client.Name != "test-agent" || e.Card == nil || e.View != nil {
			t.Errorf("entry %+v", e)
		}
	}
	want := []string{"call once ok", "call denied error", "open once ok", "send once ok", "close denied error"}
	if !slices.Equal(got, want) {
		t.Fatalf("journal: %q, want %q", got, want)
	}
	if e := jr.Entries[0]; e.Instance != in.ID() || e.Change == nil || len(e.Change) == 0 || e.SeqAfter == nil {
		t.Errorf("the approved call's entry has no change: %+v", e)
	}
	if e := jr.Entries[2]; e.Instance != info.ID || !slices.Equal(e.Argv, []string{"/bin/sh"}) || e.Dir != dir {
		t.Errorf("the open's entry: %+v", e)
	}
	call(t, cs, "journal", map[string]any{"id": in.ID(), "n": 1}).decode(t, &jr)
	if len(jr.Entries) != 1 || jr.Entries[0].Decision != journal.Denied {
		t.Errorf("journal for %s, n 1: %+v", in.ID(), jr.Entries)
	}

	var list agent.ListResult
	call(t, cs, "list_ticks", map[string]any{}).decode(t, &list)
	if len(list.Ticks) == 0 || list.Ticks[0].Decisions == nil || *list.Ticks[0].Decisions != 2 {
		t.Errorf("list_ticks does not count %s's 2 decisions: %+v", in.ID(), list.Ticks)
	}

	// Another process's MCP session sees none of this one's entries.
	other := connectMCPProcess(t, h.Socket, nil)
	call(t, other, "journal", map[string]any{}).decode(t, &jr)
	if len(jr.Entries) != 0 {
		t.Errorf("another agent read this one's journal: %+v", jr.Entries)
	}
}
