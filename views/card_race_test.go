package views

import (
	"context"
	"errors"
	"testing"
	"time"

	"tickmux/host"
)

// Attacks on the moment a key answers a card: the card under the person's eyes changes (a
// withdrawal, a voiding, a new card) between what they read and the key landing. Each change is
// made on the UI goroutine just before the key, so the UI has not redrawn in between.

// waitPendingOnUI waits, on the UI goroutine, until n cards are pending (a hang guard).
func waitPendingOnUI(t *testing.T, q *host.ApprovalQueue, n int) {
	deadline := time.Now().Add(20 * time.Second)
	for len(q.Pending()) != n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

// yDuringChange makes change on the UI goroutine and presses y before the UI redraws. The y must
// not answer next: the card read ends with wantRead, and a y typed as next appears waits too.
func yDuringChange(t *testing.T, hs *harness, change func(), read chan error, wantRead error, next chan error, what string) {
	t.Helper()
	hs.app.app.QueueUpdate(func() {
		change()
		waitPendingOnUI(t, hs.queue, 1)
		hs.app.captureKey(runeKey('y'))
	})
	if err := answered(t, read); !errors.Is(err, wantRead) {
		t.Fatalf("the %s card: %v", what, err)
	}
	oneCardStillPending(t, hs, next, "y pressed for the "+what+" card")
	hs.typeText("y")
	oneCardStillPending(t, hs, next, "y pressed as the next card appeared")
	hs.waitFor("NEW CARD")
}

// The person reads card A in the panel and types prefix a y in one burst; the agent withdraws A
// just before prefix a lands, so card mode opens on B, which the person never saw. The y must not
// approve B.
// spec: H-K2
func TestEnteringCardModeOnACardNeverSeenWaits(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.start()
	first, withdraw, second, cancel := askHarmlessThenMalicious(hs)
	defer cancel()
	hs.waitFor("  harmless ")
	hs.waitFor("  MALICIOUS ")

	hs.app.app.QueueUpdate(func() {
		withdraw()
		waitPendingOnUI(t, hs.queue, 1)
		hs.app.captureKey(prefixKey)
		hs.app.captureKey(runeKey('a'))
	})
	if err := answered(t, first); !errors.Is(err, context.Canceled) {
		t.Fatalf("the withdrawn card: %v", err)
	}
	hs.typeText("y")
	oneCardStillPending(t, hs, second, "prefix a y typed for the withdrawn card")
	hs.waitFor("NEW CARD")
	denyAfterSettle(t, hs, second, "the card")
}

// The Tick re-describes with a new revision while the person reads its call's card: the card is
// voided, and a y pressed for it does not answer the next card.
// spec: H-K3
func TestVoidThenYDoesNotApproveTheNextCard(t *testing.T) {
	hs, in, voided := callCardOnPlain(t, 1)
	next, cancel := ask(hs, host.ApprovalRequest{Action: host.ActionSend, Client: "agent", Instance: in.ID(), Text: "MALICIOUS"})
	defer cancel()
	waitCards(t, hs.queue, 2)
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")

	yDuringChange(t, hs, func() {
		if err := changeCatalog(in); err != nil {
			t.Error(err)
		}
	}, voided, host.ErrVoided, next, "voided")
}

// A new card arriving while the person reads one does not take the key: y answers the card that
// was on screen.
// spec: H-K2
func TestNewCardDoesNotTakeTheKey(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.start()
	read, cancelRead := ask(hs, host.ApprovalRequest{Action: host.ActionSend, Client: "agent", Instance: "shell:1", Text: "harmless"})
	defer cancelRead()
	waitCards(t, hs.queue, 1)
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")
	hs.waitFor("  harmless ")

	var arrived chan error
	var cancel context.CancelFunc
	hs.app.app.QueueUpdate(func() {
		arrived, cancel = ask(hs, host.ApprovalRequest{Action: host.ActionSend, Client: "agent", Instance: "shell:1", Text: "MALICIOUS"})
		waitPendingOnUI(t, hs.queue, 2)
		hs.app.captureKey(runeKey('y'))
	})
	defer cancel()
	if err := answered(t, read); err != nil {
		t.Fatalf("the card read: %v", err)
	}
	oneCardStillPending(t, hs, arrived, "y pressed as a new card arrived")
	if p := hs.queue.Pending(); len(p) != 1 || p[0].Req.Text != "MALICIOUS" {
		t.Fatalf("pending: %+v", p)
	}
}
