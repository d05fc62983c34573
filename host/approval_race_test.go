package host

import (
	"context"
	"errors"
	"sync"
	"testing"
)

var errGaveUp = errors.New("the client gave up")

// A card's answer, its voiding and a drop of its instance's grants are one decision: whichever
// takes the queue's lock first settles the card, and the others find it settled. Each round puts
// two identical call cards up (the second is one the first's grant covers), then races the
// person's "allow for this revision" on the first against a voider: the catalog changing (the
// wait's context cancelled with ErrVoided, as Instance.Describe does), the client giving up, or
// a spec 5.5 drop of the instance's grants. After every round either the answer won (the call
// allowed, the person's answer told, the grant made, unless a drop came after it) or the voider
// won (both calls voided with its cause, nothing told, no grant). The second card is released
// as covered or voided, never both. Never a grant with a voided call.
// (Before, Answer made the grant and Approve could still take ctx.Done and return voided.)
// spec: H-K3
// spec: H-K2
func TestAnswerVoidAndDropAreOneDecision(t *testing.T) {
	t.Parallel()
	const rounds = 400
	for _, racer := range []struct {
		name  string
		cause error
		// drops says the voider also takes grants, so one made by an answer before it goes.
		drops bool
		void  func(q *ApprovalQueue, cancel context.CancelCauseFunc)
	}{
		{"catalog changed", ErrVoided, false, func(_ *ApprovalQueue, cancel context.CancelCauseFunc) { cancel(ErrVoided) }},
		{"client gave up", errGaveUp, false, func(_ *ApprovalQueue, cancel context.CancelCauseFunc) { cancel(errGaveUp) }},
		{"grants dropped", ErrVoided, true, func(q *ApprovalQueue, _ context.CancelCauseFunc) { q.DropGrants("hosted:1") }},
	} {
		t.Run(racer.name, func(t *testing.T) {
			answeredWon := 0
			for round := range rounds {
				if raceAnswer(t, round, racer.cause, racer.drops, racer.void) {
					answeredWon++
				}
			}
			t.Logf("%d of %d rounds answered, the rest voided", answeredWon, rounds)
		})
	}
}

// raceAnswer runs one round of TestAnswerVoidAndDropAreOneDecision and reports whether the
// answer won.
func raceAnswer(t *testing.T, round int, cause error, drops bool, void func(*ApprovalQueue, context.CancelCauseFunc)) bool {
	t.Helper()
	q := NewApprovalQueue(nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	type outcome struct {
		err  error
		told []Decision
	}
	outcomes := make([]outcome, 2)
	shown := make(chan uint64, 2)
	var wg sync.WaitGroup
	for i := range outcomes {
		req := ApprovalRequest{Action: ActionCall, Client: "agent", Instance: "hosted:1", Tool: "increment",
			Revision: "r1", Args: []byte(`{"amount":1}`)}
		req.Shown = func(id uint64) { shown <- id }
		req.Answered = func(d Decision, _ string) { outcomes[i].told = append(outcomes[i].told, d) }
		wg.Add(1)
		go func() { // owner: this round; ends when the card is settled
			defer wg.Done()
			outcomes[i].err = q.Approve(ctx, req)
		}()
		<-shown // the first card is up before the second, so the first is the one answered
	}
	first := q.Pending()[0].ID

	start := make(chan struct{})
	var answerErr error
	wg.Add(2)
	go func() { // owner: this round; ends after one answer
		defer wg.Done()
		<-start
		answerErr = q.AnswerFrom(first, AllowRevision, "view 1 /dev/pts/3")
	}()
	go func() { // owner: this round; ends after one void
		defer wg.Done()
		<-start
		void(q, cancel)
	}()
	close(start)
	wg.Wait()

	grants := q.Grants()
	won := outcomes[0].err == nil
	switch {
	case won:
		if answerErr != nil {
			t.Fatalf("round %d: the call was allowed but the answer failed: %v", round, answerErr)
		}
		if len(outcomes[0].told) != 1 || outcomes[0].told[0] != AllowRevision {
			t.Fatalf("round %d: the allowed call was told %v, want [allow for this revision]", round, outcomes[0].told)
		}
		// The covered card is its own decision: released by the grant, or voided if its wait
		// ended before the grant reached it (the voider may run between the two).
		switch c := outcomes[1]; {
		case c.err == nil && (len(c.told) != 1 || c.told[0] != Covered):
			t.Fatalf("round %d: the covered call was allowed but told %v, want [covered]", round, c.told)
		case c.err != nil && (!errors.Is(c.err, cause) || len(c.told) != 0):
			t.Fatalf("round %d: the covered call ended with %v, told %v; want %v, told nothing", round, c.err, c.told, cause)
		}
		// A drop may come after the answer and take the grant; a void of a settled card cannot.
		if len(grants) != 1 && !(drops && len(grants) == 0) {
			t.Fatalf("round %d: the call was allowed for this revision but the grants are %+v", round, grants)
		}
	default:
		if !errors.Is(outcomes[0].err, cause) || !errors.Is(outcomes[1].err, cause) {
			t.Fatalf("round %d: the calls ended with %v and %v, want %v", round, outcomes[0].err, outcomes[1].err, cause)
		}
		if !errors.Is(answerErr, ErrNoSuchCard) {
			t.Fatalf("round %d: the call was voided but the answer to its card said %v", round, answerErr)
		}
		if len(outcomes[0].told) != 0 || len(outcomes[1].told) != 0 {
			t.Fatalf("round %d: voided calls were told answers: %v, %v", round, outcomes[0].told, outcomes[1].told)
		}
		if len(grants) != 0 {
			t.Fatalf("round %d: a grant outlived its card's voiding: %+v", round, grants)
		}
	}
	if p := q.Pending(); len(p) != 0 {
		t.Fatalf("round %d: cards left waiting: %+v", round, p)
	}
	return won
}

// An answer that comes after the wait ended, even before Approve has woken, finds the card gone
// and makes no grant.
// spec: H-K3
func TestAnswerAfterVoidMakesNoGrant(t *testing.T) {
	t.Parallel()
	q := NewApprovalQueue(nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	shown := make(chan uint64, 1)
	done := make(chan error, 1)
	go func() { // owner: this test; ends when the card is voided
		done <- q.Approve(ctx, ApprovalRequest{Action: ActionCall, Instance: "hosted:1", Tool: "increment", Revision: "r1",
			Shown: func(id uint64) { shown <- id }})
	}()
	id := <-shown
	cancel(ErrVoided)
	if err := q.Answer(id, AllowRevision); !errors.Is(err, ErrNoSuchCard) {
		t.Fatalf("answer to a voided card: %v", err)
	}
	if err := <-done; !errors.Is(err, ErrVoided) {
		t.Fatalf("the voided call: %v", err)
	}
	if g := q.Grants(); len(g) != 0 {
		t.Fatalf("grants after answering a voided card: %+v", g)
	}
}

// A spec 5.5 drop of an instance's grants voids its calls still waiting for a card: their cards
// show the catalog the Tick left, and an answer must not make the dropped grant again. Another
// instance's card and an agent's card in the same pane id wait on.
// spec: H-K3
func TestDropGrantsVoidsWaitingCalls(t *testing.T) {
	t.Parallel()
	q := NewApprovalQueue(nil)
	shown := make(chan uint64, 3)
	done := make(chan error, 3)
	for _, req := range []ApprovalRequest{
		{Action: ActionCall, Instance: "hosted:1", Tool: "increment", Revision: "r1"},
		{Action: ActionCall, Instance: "hosted:2", Tool: "increment", Revision: "r1"},
		{Action: ActionAgent, Instance: "hosted:1", Agent: &AgentCall{Session: "s", Tool: "Bash"}},
	} {
		req.Shown = func(id uint64) { shown <- id }
		go func() { done <- q.Approve(context.Background(), req) }() // owner: this test; ends at its card's answer or voiding
		<-shown
	}
	p := q.Pending()
	if n := q.DropGrants("hosted:1"); n != 0 {
		t.Fatalf("dropped %d grants, want 0", n)
	}
	if err := <-done; !errors.Is(err, ErrVoided) {
		t.Fatalf("the waiting call of the instance that broke spec 5.5: %v", err)
	}
	if err := q.Answer(p[0].ID, AllowRevision); !errors.Is(err, ErrNoSuchCard) {
		t.Fatalf("answer to the voided card: %v", err)
	}
	if g := q.Grants(); len(g) != 0 {
		t.Fatalf("grants: %+v", g)
	}
	left := q.Pending()
	if len(left) != 2 || left[0].ID != p[1].ID || left[1].ID != p[2].ID {
		t.Fatalf("cards left %+v, want the other instance's and the agent's", left)
	}
	for _, c := range left {
		q.Answer(c.ID, Deny)
		if err := <-done; !errors.Is(err, ErrDenied) {
			t.Fatalf("denied: %v", err)
		}
	}
}
