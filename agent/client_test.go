package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/tick/wire"
)

// A client that hangs up withdraws its cards.
// spec: H-K2
// README "Approvals": a client that disconnects withdraws its card.
func TestClientHangUpWithdrawsCard(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	c, err := agent.Dial(context.Background(), h.Socket, "quitter")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { // owner: the test; ends when Close retires the call
		errc <- c.Do(context.Background(), agent.MethodCall, agent.CallParams{ID: in.ID(), Tool: "set", Args: json.RawMessage(`{"value":1}`)}, nil, nil)
	}()
	if card := h.Cards.Next(t); card.Req.Client != "quitter" {
		t.Errorf("card from %q", card.Req.Client)
	}
	c.Close()
	var e *agent.Error
	if err := receive(t, errc, "the call's end"); !errors.As(err, &e) || e.Effect != wire.EffectUnknown {
		t.Errorf("a call cut off by Close: %v", err)
	}
	h.Cards.WaitNone(t)
	if in.State().Seq != 0 {
		t.Error("the withdrawn call went out")
	}
}

// Closing the server ends every connection and request; a call cut off says its effect is unknown.
// spec: H-E1
func TestServerCloseEndsRequests(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	c, err := agent.Dial(context.Background(), h.Socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	calls, waits := make(chan error, 1), make(chan error, 1)
	go func() { // owner: the test; ends when the server closes
		calls <- c.Do(context.Background(), agent.MethodCall, agent.CallParams{ID: in.ID(), Tool: "set", Args: json.RawMessage(`{"value":1}`)}, nil, nil)
	}()
	go func() { // owner: the test; ends when the server closes
		waits <- c.Do(context.Background(), agent.MethodWait, agent.WaitParams{IDs: []string{in.ID()}, AfterSeq: map[string]uint64{in.ID(): 0}}, nil, nil)
	}()
	h.Cards.Next(t)
	h.Server.Close()
	h.Cards.WaitNone(t)
	var e *agent.Error
	if err := receive(t, calls, "the call's end"); !errors.As(err, &e) || e.Effect == wire.EffectPossible {
		t.Errorf("a call cut off by the server's Close: %v", err)
	}
	if err := receive(t, waits, "the wait's end"); err == nil {
		t.Error("the wait succeeded after the server closed")
	}
	// The server answers the cut-off requests before it hangs up: the client learns that the
	// connection ended only when its reader sees the end.
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client never saw the server hang up")
	}
	if c.Err() == nil {
		t.Error("the client still works after the server closed")
	}
	if in.State().Seq != 0 {
		t.Error("the withdrawn call went out")
	}
}
