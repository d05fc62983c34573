package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
	"tickmux/tick/wire"
)

// Tests of the approval seam: a call knows its own card by id, through MCP tickets and the
// socket's progress, and another approver than the TUI's queue works without special cases.

// pendingIDs lists the ids of the cards waiting, oldest first.
func pendingIDs(q *host.ApprovalQueue) []uint64 {
	var ids []uint64
	for _, c := range q.Pending() {
		ids = append(ids, c.ID)
	}
	return ids
}

// waitPending waits until exactly want are pending.
func waitPending(t *testing.T, h *agenttest.Harness, want []uint64) {
	t.Helper()
	guard := time.Now().Add(agenttest.HangGuard)
	for !slices.Equal(pendingIDs(h.Cards.Queue), want) {
		if time.Now().After(guard) {
			t.Fatalf("pending cards %v, want %v", pendingIDs(h.Cards.Queue), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// socketCall calls set on the socket and reports the first card its progress names.
func socketCall(t *testing.T, ctx context.Context, cl *agent.Client, id string) (card <-chan uint64, done <-chan error) {
	cardCh, doneCh := make(chan uint64, 1), make(chan error, 1)
	go func() { // owner: the test; ends when the call is answered or ctx ends
		sent := false
		doneCh <- cl.Do(ctx, agent.MethodCall, agent.CallParams{ID: id, Tool: "set", Args: json.RawMessage(`{"value":5}`)}, nil,
			func(p agent.Progress) {
				if p.Card != 0 && !sent {
					sent = true
					cardCh <- p.Card
				}
			})
	}()
	return cardCh, doneCh
}

// spec: H-K2 (each request has its own card; withdrawing one withdraws exactly that card)
func TestIdenticalCallsHaveTheirOwnCards(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	args := map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 5}}

	// Two identical calls from one MCP client: two tickets, two cards.
	cs, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, nil)
	tk1 := ticketOf(t, cs, args)
	tk2 := ticketOf(t, cs, args)
	if tk1.Card == tk2.Card {
		t.Fatalf("two identical calls name one card: %+v, %+v", tk1, tk2)
	}
	waitPending(t, h, []uint64{tk1.Card, tk2.Card})
	var w agent.WaitResult
	call(t, cs, "wait", map[string]any{"calls": []string{tk1.Call, tk2.Call}, "timeout_s": 0}).decode(t, &w)
	if len(w.Calls) != 0 {
		t.Fatalf("wait before any answer: %+v", w)
	}

	// Two identical calls from one socket client: each progress names its own card.
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	cl, err := agent.Dial(ctx, h.Socket, "test-agent")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx1, cancel1 := context.WithCancel(ctx)
	defer cancel1()
	card1, done1 := socketCall(t, ctx1, cl, in.ID())
	s1 := receive(t, card1, "the first socket call's card")
	waitPending(t, h, []uint64{tk1.Card, tk2.Card, s1})
	card2, done2 := socketCall(t, ctx, cl, in.ID())
	s2 := receive(t, card2, "the second socket call's card")
	waitPending(t, h, []uint64{tk1.Card, tk2.Card, s1, s2})

	// Withdrawing the first ticket withdraws its card only, and the second ticket still names its own.
	var o agent.CallOutcome
	call(t, cs, "cancel_call", map[string]any{"call": tk1.Call}).decode(t, &o)
	if o.Status != agent.StatusWithdrawn {
		t.Fatalf("cancel_call %s: %+v", tk1.Call, o)
	}
	waitPending(t, h, []uint64{tk2.Card, s1, s2})

	// Withdrawing the first socket call withdraws its card only.
	cancel1()
	var e *agent.Error
	if err := receive(t, done1, "the withdrawn socket call"); !errors.As(err, &e) || e.Reason != agent.ReasonCancelled {
		t.Fatalf("withdrawn socket call: %v", err)
	}
	waitPending(t, h, []uint64{tk2.Card, s2})

	// Approving the second socket call's card answers that call, not the ticket's.
	h.Cards.Answer(t, s2, host.AllowOnce)
	if err := receive(t, done2, "the approved socket call"); err != nil {
		t.Fatalf("approved socket call: %v", err)
	}
	waitPending(t, h, []uint64{tk2.Card})
	h.Cards.Answer(t, tk2.Card, host.Deny)
	call(t, cs, "wait", map[string]any{"calls": []string{tk2.Call}}).decode(t, &w)
	if len(w.Calls) != 1 || w.Calls[0].Status != agent.StatusDenied {
		t.Fatalf("the denied ticket: %+v", w)
	}
	if st := in.State(); st.Seq != 1 {
		t.Errorf("the Tick saw %d changes, want exactly the one approved", st.Seq)
	}
}

// testApprover is another approver than the TUI's queue: it numbers its cards from 100, reports
// each through Shown, and answers when the test says so.
type testApprover struct {
	mu      sync.Mutex
	next    uint64
	answers map[uint64]chan error
}

func newTestApprover() *testApprover {
	return &testApprover{next: 100, answers: map[uint64]chan error{}}
}

func (a *testApprover) Approve(ctx context.Context, req host.ApprovalRequest) error {
	a.mu.Lock()
	a.next++
	id, answer := a.next, make(chan error, 1)
	a.answers[id] = answer
	a.mu.Unlock()
	if req.Shown != nil {
		req.Shown(id)
	}
	select {
	case err := <-answer:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (a *testApprover) answer(id uint64, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answers[id] <- err
}

// refuseAll is a headless policy: it refuses every request without showing anything.
type refuseAll struct{}

func (refuseAll) Approve(context.Context, host.ApprovalRequest) error { return host.ErrDenied }

// spec: H-K2 (any approver stands between an agent and a change; card ids come from it)
func TestAnotherApprover(t *testing.T) {
	t.Parallel()
	t.Run("cards", func(t *testing.T) {
		ap := newTestApprover()
		h := agenttest.StartWith(t, ap)
		in := h.OpenFake(t)
		cs, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, nil)
		args := map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 5}}
		tk1, tk2 := ticketOf(t, cs, args), ticketOf(t, cs, args)
		if tk1.Card != 101 || tk2.Card != 102 {
			t.Fatalf("tickets name cards %d and %d, want the approver's 101 and 102", tk1.Card, tk2.Card)
		}
		ap.answer(102, nil)
		var w agent.WaitResult
		call(t, cs, "wait", map[string]any{"calls": []string{tk2.Call}}).decode(t, &w)
		if len(w.Calls) != 1 || w.Calls[0].Status != agent.StatusOK {
			t.Fatalf("the approved ticket: %+v", w)
		}
		var o agent.CallOutcome
		call(t, cs, "cancel_call", map[string]any{"call": tk1.Call}).decode(t, &o)
		if o.Status != agent.StatusWithdrawn || o.Error == nil || o.Error.Effect != wire.EffectNone {
			t.Fatalf("cancel_call: %+v", o)
		}
		if st := in.State(); st.Seq != 1 {
			t.Errorf("the Tick saw %d changes, want 1", st.Seq)
		}
	})
	t.Run("refuse all", func(t *testing.T) {
		h := agenttest.StartWith(t, refuseAll{})
		in := h.OpenFake(t)
		cs, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, nil)
		e := call(t, cs, "call_tick", map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 5}}).errorOf(t)
		if e.Reason != agent.ReasonDenied || e.Effect != wire.EffectNone {
			t.Fatalf("call_tick under a refusing policy: %+v", e)
		}
		var get agent.CallResult
		call(t, cs, "call_tick", map[string]any{"id": in.ID(), "tool": "get"}).decode(t, &get)
		if get.Status != agent.StatusOK || in.State().Seq != 0 {
			t.Fatalf("a read-only call under a refusing policy: %+v, seq %d", get, in.State().Seq)
		}
	})
}

// Another session cannot collect or withdraw a session's call: its ticket names a call in that
// session's book only, so wait and cancel_call from elsewhere find nothing and the card stays.
// spec: H-K2
func TestTicketsBelongToTheirSession(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	owner, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, nil)
	other, _ := connectMCPWith(t, h.Socket, agent.MCPOptions{CallWait: shortWait}, nil)
	tk := ticketOf(t, owner, map[string]any{"id": in.ID(), "tool": "set", "args": map[string]any{"value": 5}})

	var w agent.WaitResult
	call(t, other, "wait", map[string]any{"calls": []string{tk.Call}, "timeout_s": 0}).decode(t, &w)
	if len(w.Calls) != 1 || w.Calls[0].Status != agent.StatusUnknown {
		t.Fatalf("another session's wait for %s: %+v", tk.Call, w)
	}
	var o agent.CallOutcome
	call(t, other, "cancel_call", map[string]any{"call": tk.Call}).decode(t, &o)
	if o.Status != agent.StatusUnknown {
		t.Fatalf("another session's cancel_call of %s: %+v", tk.Call, o)
	}
	waitPending(t, h, []uint64{tk.Card})

	h.Cards.Answer(t, tk.Card, host.AllowOnce)
	call(t, owner, "wait", map[string]any{"calls": []string{tk.Call}}).decode(t, &w)
	if len(w.Calls) != 1 || w.Calls[0].Status != agent.StatusOK {
		t.Fatalf("the owner's wait: %+v", w)
	}
}
