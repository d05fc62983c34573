package host

import (
	"testing"
)

// spec: H-K3 — spec 5.5: a mutating call after which the Tick's catalog moved on (bump moves it to
// r2). The host describes the Tick again before the call returns, so the panel (EventCatalog) and
// the next card show the new catalog, and the next call goes out at r2 instead of failing with
// catalog_changed.
func TestCatalogFollowedAfterMutatingCall(t *testing.T) {
	t.Parallel()
	q := NewApprovalQueue(nil)
	h := newTestHost(t, Config{Approver: q})
	in := openReady(t, h, "good")
	done := make(chan error, 1)
	go func() { _, err := callJSON(t, in, "bump", ``); done <- err }()
	q.Answer(waitCard(t, q).ID, AllowOnce)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rev := in.Catalog().Revision(); rev != "r2" {
		t.Fatalf("after the mutating call returned the host holds revision %q, want r2", rev)
	}
	go func() { _, err := callJSON(t, in, "increment", `{"amount":1}`); done <- err }()
	card := waitCard(t, q)
	if card.Req.Revision != "r2" {
		t.Fatalf("the next card shows revision %q, want r2", card.Req.Revision)
	}
	q.Answer(card.ID, AllowOnce)
	if err := <-done; err != nil {
		t.Fatalf("the next call: %v", err)
	}
}

// spec: H-K5 — spec 7.2: a query refused with -32004 was never run; the host describes the Tick
// again and, the tool being unchanged and still mutates: false, sends it once more at the new
// revision. The caller sees the result.
func TestQueryRefusedWithCatalogChangedIsPreparedAgain(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "silentbump")
	bumpSilently(t, in, 1)
	res := mustCall(t, in, "echo", `{"text":"prepared again"}`)
	if string(res) != `{"text":"prepared again"}` {
		t.Fatalf("result %s", res)
	}
	if rev := in.Catalog().Revision(); rev != "r2" {
		t.Fatalf("revision %q", rev)
	}
	if rec := lastCall(in, "echo"); !rec.OK || rec.Revision != "r2" {
		t.Fatalf("call record %+v", rec)
	}
	if calls := fakeCalls(t, in); calls["echo"] != 2 {
		t.Fatalf("the Tick got %d echo calls, want 2 (refused, then sent again)", calls["echo"])
	}
}
