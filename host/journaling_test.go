package host

import (
	"tickmux/internal/peer"
	"time"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"tickmux/host/journal"
	"tickmux/tick/wire"
)

// answeringQueue is an ApprovalQueue whose cards view-7 answers with d as soon as they wait.
func answeringQueue(d Decision) *ApprovalQueue {
	var q *ApprovalQueue
	q = NewApprovalQueue(func() {
		for _, c := range q.Pending() {
			go q.AnswerFrom(c.ID, d, "view-7") // owner: the test; returns at once
		}
	})
	return q
}

// memJournal keeps entries in memory, or hands them to fail while it is set.
type memJournal struct {
	mu      sync.Mutex
	fail    JournalWriter
	entries chan journal.Entry
}

func (m *memJournal) Append(e journal.Entry) error {
	m.mu.Lock()
	fail := m.fail
	m.mu.Unlock()
	if fail != nil {
		return fail.Append(e)
	}
	m.entries <- e
	return nil
}

func (m *memJournal) next(t *testing.T) journal.Entry {
	t.Helper()
	select {
	case e := <-m.entries:
		return e
	case <-t.Context().Done():
		t.Fatal("no journal entry")
	}
	return journal.Entry{}
}

// The change of an approved call runs from the state before it went out to the state when its
// result arrived: the update the person made meanwhile is in it and counted as merged, and the
// update after the result is not claimed. Applying the change to the state before gives exactly
// the state after.
func TestJournalChangeExactWithInterleavedUpdates(t *testing.T) {
	t.Parallel()
	mj := &memJournal{entries: make(chan journal.Entry, 16)}
	h := newTestHost(t, Config{Approver: answeringQueue(AllowOnce), Journal: mj})
	in := openReady(t, h, "normal")
	before := in.State()
	if _, err := callJSON(t, in, "interleave", `{"amount":5}`); err != nil {
		t.Fatal(err)
	}
	waiting, e := mj.next(t), mj.next(t)
	if waiting.Decision != journal.Waiting || waiting.Card == nil || e.Card == nil || *e.Card != *waiting.Card {
		t.Fatalf("want a waiting line then the outcome of the same card: %+v / %+v", waiting, e)
	}
	if e.Decision != journal.Once || e.View == nil || *e.View != "view-7" || e.Outcome == nil || e.Outcome.Status != "ok" ||
		e.Tool != "interleave" || string(e.Args) != `{"amount":5}` || e.Tick == nil || e.Tick.Kind != "test.fake" {
		t.Fatalf("entry %+v", e)
	}
	if e.SeqBefore == nil || *e.SeqBefore != before.Seq || e.SeqAfter == nil || *e.SeqAfter != before.Seq+2 || e.Merged != 1 {
		t.Fatalf("seq %s -> %s merged %d; want %d -> %d merged 1", seqText(e.SeqBefore), seqText(e.SeqAfter), e.Merged, before.Seq, before.Seq+2)
	}
	got, err := journal.Apply(before.Data, e.Change)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	json.Unmarshal(got, &g)
	json.Unmarshal([]byte(`{"value":105,"recent":[100,105],"by":"tool"}`), &w)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("before + change = %s, want the state when the result arrived", got)
	}
}

// A journal that cannot be written holds up no card and no call: the call runs, the host says
// why on the panel (JournalWarning) and in the log, and the next entry that can be written
// clears the warning.
func TestJournalUnwritableNeverBlocks(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(file, "tickmux"), 0)
	if err == nil {
		t.Fatal("a journal under a regular file opened")
	}
	var mu sync.Mutex
	var logged strings.Builder
	mj := &memJournal{fail: j, entries: make(chan journal.Entry, 16)}
	h := newTestHost(t, Config{Approver: answeringQueue(AllowOnce), Journal: mj,
		Logf: func(format string, args ...any) {
			mu.Lock()
			fmt.Fprintf(&logged, format+"\n", args...)
			mu.Unlock()
		}})
	in := openReady(t, h, "normal")
	if _, err := callJSON(t, in, "increment", `{"amount":1}`); err != nil {
		t.Fatalf("the call failed with an unwritable journal: %v", err)
	}
	if w := h.JournalWarning(); !strings.Contains(w, "journal") {
		t.Fatalf("warning %q", w)
	}
	mu.Lock()
	if !strings.Contains(logged.String(), "journal: cannot") {
		t.Errorf("the log does not say why:\n%s", logged.String())
	}
	mu.Unlock()
	if h.JournalCount(in.ID()) != 0 {
		t.Fatal("an entry that was not written was counted")
	}
	mj.mu.Lock()
	mj.fail = nil
	mj.mu.Unlock()
	if _, err := callJSON(t, in, "increment", `{"amount":1}`); err != nil {
		t.Fatal(err)
	}
	if w := h.JournalWarning(); w != "" || h.JournalCount(in.ID()) != 1 {
		t.Fatalf("after a good write: warning %q, count %d", w, h.JournalCount(in.ID()))
	}
}

// A call that ran under a grant names the card that made the grant; a denial and a withdrawal
// are recorded with no change, and effect none.
// spec: H-E1
func TestJournalGrantedDeniedWithdrawn(t *testing.T) {
	t.Parallel()
	mj := &memJournal{entries: make(chan journal.Entry, 16)}
	h := newTestHost(t, Config{Approver: answeringQueue(AllowRevision), Journal: mj})
	in := openReady(t, h, "normal")
	mustCall(t, in, "increment", `{"amount":1}`)
	mj.next(t)
	rev := mj.next(t)
	mustCall(t, in, "increment", `{"amount":2}`)
	g := mj.next(t)
	if rev.Decision != journal.Revision || g.Decision != journal.Granted || g.Card != nil || g.GrantedBy == nil || *g.GrantedBy != *rev.Card {
		t.Fatalf("revision %+v, granted %+v", rev, g)
	}

	h2 := newTestHost(t, Config{Approver: answeringQueue(Deny), Journal: mj})
	in2 := openReady(t, h2, "normal")
	if _, err := callJSON(t, in2, "increment", `{"amount":1}`); !errors.Is(err, ErrDenied) {
		t.Fatalf("want a denial, got %v", err)
	}
	mj.next(t)
	if d := mj.next(t); d.Decision != journal.Denied || d.Change != nil || d.Outcome.Effect != "none" {
		t.Fatalf("denied %+v", d)
	}

	q := NewApprovalQueue(nil) // nobody answers
	h3 := newTestHost(t, Config{Approver: q, Journal: mj})
	in3 := openReady(t, h3, "normal")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { // owner: the test; returns when the call is withdrawn
		_, err := in3.Call(ctx, CallRequest{Client: "test", Tool: "increment", Args: json.RawMessage(`{"amount":1}`)})
		done <- err
	}()
	if w := mj.next(t); w.Decision != journal.Waiting {
		t.Fatalf("want the waiting line, got %+v", w)
	}
	cancel()
	<-done
	if w := mj.next(t); w.Decision != journal.Withdrawn || w.View != nil {
		t.Fatalf("withdrawn %+v", w)
	}
}

func seqText(p *uint64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// A client that runs in a pane is named by that pane: PaneOf walks the client's parents up to a
// pane's program.
func TestJournalPaneOf(t *testing.T) {
	h := newTestHost(t, Config{})
	in := openReady(t, h, "normal")
	if got := h.PaneOf(in.Process().Pid()); got != in {
		t.Errorf("PaneOf(the pane's program) = %v, want %s", got, in.ID())
	}
	if got := h.PaneOf(os.Getpid()); got != nil {
		t.Errorf("PaneOf(a process outside every pane) = %s", got.ID())
	}
	pinned, err := peer.Child(in.Process().Pid())
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	if got := h.PaneOfPeer(pinned); got != in {
		t.Errorf("PaneOfPeer(the pane's program) = %v, want %s", got, in.ID())
	}
	self, err := peer.Self()
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	if got := h.PaneOfPeer(self); got != nil {
		t.Errorf("PaneOfPeer(a process outside every pane) = %s", got.ID())
	}
}

// A card whose Tick changes its catalog while it waits is voided, and the journal says so.
// spec: H-K3
func TestJournalVoidedByACatalogChange(t *testing.T) {
	t.Parallel()
	mj := &memJournal{entries: make(chan journal.Entry, 16)}
	q := NewApprovalQueue(nil) // nobody answers
	h := newTestHost(t, Config{Approver: q, Journal: mj})
	in := openReady(t, h, "normal")
	done := make(chan error, 1)
	go func() { // owner: the test; returns when the card is voided
		_, err := callJSON(t, in, "increment", `{"amount":1}`)
		done <- err
	}()
	if w := mj.next(t); w.Decision != journal.Waiting {
		t.Fatalf("want the waiting line, got %+v", w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if _, err := in.Session().Call(ctx, wire.CallParams{Tool: "bump", Revision: "r1"}, hangGuard); err != nil { // the Tick moves to r2
		t.Fatal(err)
	}
	if _, err := in.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrVoided) {
		t.Fatalf("the call ended with %v, want voided", err)
	}
	if v := mj.next(t); v.Decision != journal.Voided || v.Outcome == nil || v.Outcome.Effect != "none" || v.Revision != "r1" {
		t.Fatalf("voided %+v", v)
	}
}

// Issue 42 item 12: r on a card makes a grant, and every card already waiting that the grant
// covers (the same tool of the same instance at the same revision) goes out with it, journaled
// as granted by the card answered; a card the grant does not cover still waits.
func TestGrantReleasesTheCardsItCovers(t *testing.T) {
	t.Parallel()
	mj := &memJournal{entries: make(chan journal.Entry, 32)}
	q := NewApprovalQueue(nil)
	h := newTestHost(t, Config{Approver: q, Journal: mj})
	in := openReady(t, h, "normal")
	type result struct {
		tool string
		err  error
	}
	done := make(chan result, 3)
	call := func(tool, args string) {
		go func() { // owner: the test; returns once the call is answered or withdrawn
			_, err := in.Call(context.Background(), CallRequest{Client: "test", Tool: tool, Args: json.RawMessage(args)})
			done <- result{tool, err}
		}()
	}
	waitPending := func(n int) []Card {
		t.Helper()
		deadline := time.Now().Add(hangGuard)
		for len(q.Pending()) != n {
			if time.Now().After(deadline) {
				t.Fatalf("%d cards wait, want %d", len(q.Pending()), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return q.Pending()
	}
	call("increment", `{"amount":1}`)
	waitPending(1)
	call("increment", `{"amount":1000}`)
	waitPending(2)
	call("late", `{"ms":0}`)
	cards := waitPending(3)
	if err := q.AnswerFrom(cards[0].ID, AllowRevision, "view 1"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case r := <-done:
			if r.err != nil || r.tool != "increment" {
				t.Fatalf("%s: %v; want both increments to run", r.tool, r.err)
			}
		case <-time.After(hangGuard):
			t.Fatalf("the grant left %d cards waiting; want only late's", len(q.Pending()))
		}
	}
	if p := waitPending(1); p[0].Req.Tool != "late" {
		t.Fatalf("the card left waiting is %s's, want late's", p[0].Req.Tool)
	}
	var granted *journal.Entry
	for granted == nil {
		e := mj.next(t)
		if e.Decision == journal.Granted {
			granted = &e
		}
	}
	if granted.Card == nil || *granted.Card != cards[1].ID || granted.GrantedBy == nil || *granted.GrantedBy != cards[0].ID || granted.View == nil || *granted.View != "view 1" {
		t.Fatalf("the released card is journaled as %+v; want card %d granted by card %d from view 1", *granted, cards[1].ID, cards[0].ID)
	}
	if err := q.Answer(cards[2].ID, Deny); err != nil {
		t.Fatal(err)
	}
	if r := <-done; !errors.Is(r.err, ErrDenied) {
		t.Fatalf("late: %v, want denied", r.err)
	}
}

// Issue 44 item 5: r on an agent's card allows that input for the agent session; the calls it
// lets through (a card already waiting for the same input, released at once, and a later one
// that needs no card) are journaled as granted by that card, as calls under a revision grant are.
func TestJournalAgentGrantNamesItsCard(t *testing.T) {
	t.Parallel()
	mj := &memJournal{entries: make(chan journal.Entry, 32)}
	q := NewApprovalQueue(nil)
	h := newTestHost(t, Config{Approver: q, Journal: mj})
	agentReq := func() ApprovalRequest {
		return ApprovalRequest{Action: ActionAgent, Client: "Claude Code", Agent: &AgentCall{Agent: "Claude Code", Session: "s1", Tool: "Bash",
			Input: json.RawMessage(`{"command": "touch /tmp/x"}`)}}
	}
	// ask does what the agent server does for a hook's permission request.
	ask := func() {
		req := agentReq()
		rec := h.NewRecord(req, Peer{})
		rec.SetTool(req.Agent.Tool, req.Agent.Input)
		if q.Granted(req) {
			rec.Granted()
			rec.FinishWith(journal.Outcome{Status: journal.StatusOK}, nil)
			return
		}
		rec.Watch(&req)
		err := q.Approve(context.Background(), req)
		rec.FinishWith(journal.Outcome{Status: journal.StatusOK}, err)
	}
	done := make(chan struct{}, 2)
	for range 2 {
		go func() { ask(); done <- struct{}{} }() // owner: the test; returns once answered
	}
	deadline := time.Now().Add(hangGuard)
	for len(q.Pending()) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d cards wait, want 2", len(q.Pending()))
		}
		time.Sleep(5 * time.Millisecond)
	}
	first := q.Pending()[0].ID
	if err := q.AnswerFrom(first, AllowRevision, "view 1"); err != nil {
		t.Fatal(err)
	}
	<-done
	<-done
	ask() // no card: the grant covers it
	var finals []journal.Entry
	for len(finals) < 3 {
		if e := mj.next(t); e.Final() {
			finals = append(finals, e)
		}
	}
	var revision, granted int
	for _, e := range finals {
		switch e.Decision {
		case journal.Revision:
			revision++
			if e.Card == nil || *e.Card != first || journal.DecisionText(e) != "allowed this input for the session (view 1, "+(time.Duration(e.WaitedMS)*time.Millisecond).String()+")" {
				t.Errorf("the answered card: %+v, %q", e, journal.DecisionText(e))
			}
		case journal.Granted:
			granted++
			if e.GrantedBy == nil || *e.GrantedBy != first {
				t.Errorf("a granted agent call does not name card %d: %+v", first, e)
			}
		}
	}
	if revision != 1 || granted != 2 {
		t.Fatalf("entries %+v; want one answered with r and two granted by it", finals)
	}
	// The session's end drops what the journal kept of its grants.
	h.ForgetAgentSessionGrants("s1")
	h.jr.mu.Lock()
	left := len(h.jr.grants)
	h.jr.mu.Unlock()
	if left != 0 {
		t.Errorf("%d grants kept after the session ended", left)
	}
}
