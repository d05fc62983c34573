// Package agenttest runs a headless tickmux for tests: a host whose approvals the test answers
// (the seam the TUI's key handling uses), the agent server on a real Unix socket in a temporary
// directory, and a fake Tick played by the test binary.
//
// A test package that opens fake Ticks calls RunFakeIfAsked first thing in its TestMain.
package agenttest

import (
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/host"
	"tickmux/host/journal"
)

// HangGuard bounds how long a helper waits for something that must happen. It is not a timing
// assertion, only a way to fail instead of hanging.
const HangGuard = 30 * time.Second

// Cards is the approval seam: an ApprovalQueue whose every change wakes the test, so it can wait
// for a card without polling and answer it as the person's keypress would.
type Cards struct {
	Queue *host.ApprovalQueue
	wake  chan struct{}
}

// NewCards makes an ApprovalQueue for a test. notify, when not nil, also runs on every change (a
// view under test can redraw from it); it must not block.
func NewCards(notify func()) *Cards {
	c := &Cards{wake: make(chan struct{}, 1)}
	c.Queue = host.NewApprovalQueue(func() {
		select {
		case c.wake <- struct{}{}:
		default:
		}
		if notify != nil {
			notify()
		}
	})
	return c
}

// Next waits for a pending card and returns the oldest.
func (c *Cards) Next(t testing.TB) host.Card {
	t.Helper()
	guard := time.After(HangGuard)
	for {
		if p := c.Queue.Pending(); len(p) > 0 {
			return p[0]
		}
		select {
		case <-c.wake:
		case <-guard:
			t.Fatalf("no approval card appeared within %v", HangGuard)
		}
	}
}

// Answer gives the person's decision on card id.
func (c *Cards) Answer(t testing.TB, id uint64, d host.Decision) {
	t.Helper()
	if err := c.Queue.Answer(id, d); err != nil {
		t.Fatalf("answer card %d: %v", id, err)
	}
}

// Approve waits for the next card and allows it once.
func (c *Cards) Approve(t testing.TB) host.Card {
	t.Helper()
	card := c.Next(t)
	c.Answer(t, card.ID, host.AllowOnce)
	return card
}

// Deny waits for the next card and denies it.
func (c *Cards) Deny(t testing.TB) host.Card {
	t.Helper()
	card := c.Next(t)
	c.Answer(t, card.ID, host.Deny)
	return card
}

// WaitNone waits until no card is pending (answered, withdrawn or voided).
func (c *Cards) WaitNone(t testing.TB) {
	t.Helper()
	guard := time.After(HangGuard)
	for len(c.Queue.Pending()) > 0 {
		select {
		case <-c.wake:
		case <-guard:
			t.Fatalf("approval cards still pending after %v: %+v", HangGuard, c.Queue.Pending())
		}
	}
}

// Harness is a headless tickmux: a host answered through Cards and the agent server on a socket.
type Harness struct {
	Host   *host.Host
	Cards  *Cards
	Server *agent.Server
	// Socket is the control socket's path, in the test's temporary directory.
	Socket string
	// Journal is the approval journal, in the test's temporary directory.
	Journal *journal.Journal
}

// Start runs a Harness until the test ends. ProgressEvery is short, so that tests see progress
// without waiting seconds for it.
func Start(t testing.TB) *Harness {
	t.Helper()
	cards := NewCards(nil)
	h := StartWith(t, cards.Queue)
	h.Cards = cards
	return h
}

// StartWith is Start with another approver (nil: none, as a headless tickmux has); Cards is nil.
func StartWith(t testing.TB, ap host.Approver) *Harness {
	t.Helper()
	dir := t.TempDir()
	j, err := journal.Open(dir+"/state", 0) // the approval journal, as a server keeps it
	if err != nil {
		t.Fatalf("journal: %v", err)
	}
	h := host.New(host.Config{Approver: ap, Logf: func(format string, args ...any) { t.Logf("host: "+format, args...) }, Journal: j})
	path := dir + "/tickmux.sock"
	srv, err := agent.Serve(h, path, agent.Options{
		Logf:          func(format string, args ...any) { t.Logf("server: "+format, args...) },
		ProgressEvery: 50 * time.Millisecond,
	})
	if err != nil {
		h.Close()
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		srv.Close()
		h.Close()
		j.Close()
	})
	return &Harness{Host: h, Server: srv, Socket: path, Journal: j}
}

// Open opens a program as the person would (no approval) and waits until it is ready.
func (h *Harness) Open(t testing.TB, spec host.OpenSpec) *host.Instance {
	t.Helper()
	in, err := h.Host.Open(spec)
	if err != nil {
		t.Fatalf("open %q: %v", spec.Argv, err)
	}
	select {
	case <-in.Ready():
	case <-time.After(HangGuard):
		t.Fatalf("%s did not finish initialization", in.ID())
	}
	if st := in.Status(); st != host.StatusReady {
		t.Fatalf("%s is %s, want ready: %+v", in.ID(), st, in.EndInfo())
	}
	return in
}

// OpenFake opens the fake Tick (see fake.go), played by the test binary.
func (h *Harness) OpenFake(t testing.TB) *host.Instance {
	t.Helper()
	return h.Open(t, host.OpenSpec{Argv: []string{Executable(t)}, Env: []string{EnvFake + "=1"}})
}

// WaitState waits until the instance's latest state satisfies ok.
func (h *Harness) WaitState(t testing.TB, in *host.Instance, ok func(host.StateInfo) bool) host.StateInfo {
	t.Helper()
	sub := h.Host.Subscribe()
	defer sub.Close()
	guard := time.After(HangGuard)
	for {
		if st := in.State(); ok(st) {
			return st
		}
		select {
		case <-sub.C():
			sub.Drain()
		case <-guard:
			t.Fatalf("%s: the state did not arrive within %v; last: %s", in.ID(), HangGuard, in.State().Data)
		}
	}
}
