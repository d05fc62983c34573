package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tickmux/tick/wire"
)

// spec: H-I1
// spec: H-I2
func TestInitializationFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode, rule, says string
	}{
		{"noreply", "H-I1", "initialization failed at tick/describe"},
		{"slowdescribe", "H-I1", "no answer to tick/describe within"},
		{"slowread", "H-I1", "initialization failed at tick/read"},
		{"readbadat", "H-I1", "not an RFC 3339 time"},
		{"badversion", "H-I2", "unsupported Tick protocol version 2; this host speaks Tick protocol 3"},
		{"baddescribe", "H-D1", `repeats the name "echo"`},
		{"badschema", "H-D1", "not a valid JSON Schema"},
		{"bigdescribe", "H-D1", "over the limit of 524288"},
		{"noisy", "H-V2", "not valid JSON"},
	}
	// Initialization is bounded by InitTimeout (10 s by the spec); a short one keeps the cases
	// that wait for it quick without changing what is checked. The others get the spec's: on a
	// loaded machine the fake Tick (this test binary, under the race detector) may take longer
	// than 700 ms to start, which would end them for a timeout instead of what they check.
	quick := newTestHost(t, Config{InitTimeout: 700 * time.Millisecond})
	full := newTestHost(t, Config{InitTimeout: 10 * time.Second})
	for _, h := range []*Host{quick, full} {
		sub := h.Subscribe()
		defer sub.Close()
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			h := full
			if c.rule == "H-I1" && c.mode != "readbadat" {
				h = quick
			}
			in := openFake(t, h, c.mode)
			end := waitEnded(t, in)
			if !end.DuringInit && c.mode != "noisy" {
				t.Errorf("DuringInit false")
			}
			if end.Rule != c.rule || !strings.Contains(end.Reason, c.says) {
				t.Fatalf("end %q (rule %s), want %s saying %q", end.Reason, end.Rule, c.rule, c.says)
			}
			// The report carries the start of the Tick's screen.
			if !strings.Contains(end.Screen, "fake tick "+c.mode+" ready") {
				t.Errorf("screen excerpt %q", end.Screen)
			}
			if in.Visible() {
				t.Error("a Tick that failed initialization is visible to clients")
			}
			if processExists(in.Process().Pid()) {
				t.Error("the process still runs")
			}
		})
	}
}

// spec: H-I1
func TestScreenExcerptIsFirst256Characters(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("é", 300)
	if got := screenExcerpt(text, 256); len([]rune(got)) != 256 {
		t.Fatalf("%d characters", len([]rune(got)))
	}
	if got := screenExcerpt("short\n\n  ", 256); got != "short" {
		t.Fatalf("%q", got)
	}
}

// spec: H-D3
func TestInstanceIDs(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	a := openReady(t, h, "good")
	b := openReady(t, h, "good")
	s, err := h.Open(OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "sleep 30"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID() != "hosted:1" || b.ID() != "hosted:2" || s.ID() != "shell:1" {
		t.Fatalf("ids %s %s %s", a.ID(), b.ID(), s.ID())
	}
	// Same kind, two instances.
	if a.Catalog().Descriptor.Kind != b.Catalog().Descriptor.Kind {
		t.Fatal("kinds differ")
	}
	if got := len(h.Instances()); got != 3 {
		t.Fatalf("%d instances", got)
	}
	if err := h.Remove(a.ID()); err != nil || h.Get(a.ID()) != nil {
		t.Fatalf("remove: %v", err)
	}
}

// spec: H-K1
func TestArgsValidatedBeforeSending(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{Approver: &autoApprover{}})
	in := openReady(t, h, "good")
	for _, args := range []string{`{"amount":"two"}`, `{}`, `{"amount":1,"x":2}`, `[1]`, `not json`} {
		_, err := callJSON(t, in, "increment", args)
		if !errors.Is(err, ErrInvalidArgs) || EffectOf(err) != wire.EffectNone {
			t.Fatalf("args %s: %v, want invalid args with effect none", args, err)
		}
	}
	_, err := callJSON(t, in, "increment", `{"amount":"two"}`)
	if !strings.Contains(err.Error(), "at /amount") {
		t.Errorf("message %q does not name the field", err)
	}
	var calls map[string]int
	json.Unmarshal(mustCall(t, in, "calls", ""), &calls)
	if calls["increment"] != 0 {
		t.Fatalf("the Tick received %d increment calls with invalid args", calls["increment"])
	}
	if _, err := callJSON(t, in, "nope", ""); !errors.Is(err, ErrUnknownTool) || EffectOf(err) != wire.EffectNone {
		t.Fatalf("unknown tool: %v", err)
	}
}

// spec: H-K2
// spec: H-SEC1
func TestMutatingCallsNeedApproval(t *testing.T) {
	t.Parallel()
	q := NewApprovalQueue(nil)
	h := newTestHost(t, Config{Approver: q})
	in := openReady(t, h, "good")

	// A query goes out without a card.
	mustCall(t, in, "echo", `{"text":"hi"}`)
	if len(q.Pending()) != 0 {
		t.Fatal("a non-mutating call asked for approval")
	}

	done := make(chan error, 1)
	go func() {
		_, err := in.Call(context.Background(), CallRequest{Client: "claude-code", Tool: "increment", Args: json.RawMessage(`{"amount":5}`)})
		done <- err
	}()
	card := waitCard(t, q)
	r := card.Req
	if r.Action != ActionCall || r.Client != "claude-code" || r.Instance != in.ID() || r.Tool != "increment" ||
		r.ToolDescription != "Add amount to the value." || string(r.Args) != `{"amount":5}` || r.Revision != "r1" || r.Title != "Fake good" {
		t.Fatalf("card %+v lacks what the person needs", r)
	}
	// Not sent before the answer.
	var calls map[string]int
	json.Unmarshal(mustCall(t, in, "calls", ""), &calls)
	if calls["increment"] != 0 {
		t.Fatal("the call went out before approval")
	}
	if err := q.Answer(card.ID, AllowOnce); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("approved call: %v", err)
	}
	if rec := lastCall(in, "increment"); rec.Approval != "approved" || !rec.OK || rec.Client != "claude-code" {
		t.Fatalf("recent call %+v", rec)
	}

	// Denied: never sent, effect none.
	go func() {
		_, err := callJSON(t, in, "increment", `{"amount":1}`)
		done <- err
	}()
	card = waitCard(t, q)
	q.Answer(card.ID, Deny)
	if err := <-done; !errors.Is(err, ErrDenied) || EffectOf(err) != wire.EffectNone {
		t.Fatalf("denied call: %v", err)
	}
	json.Unmarshal(mustCall(t, in, "calls", ""), &calls)
	if calls["increment"] != 1 {
		t.Fatalf("the Tick received %d increments, want 1", calls["increment"])
	}

	// Without an approver nothing mutating goes out.
	h2 := newTestHost(t, Config{})
	in2 := openReady(t, h2, "good")
	if _, err := callJSON(t, in2, "increment", `{"amount":1}`); !errors.Is(err, ErrNoApprover) || EffectOf(err) != wire.EffectNone {
		t.Fatalf("no approver: %v", err)
	}
}

// spec: H-K2
func TestAllowForRevision(t *testing.T) {
	t.Parallel()
	q := NewApprovalQueue(nil)
	h := newTestHost(t, Config{Approver: q})
	in := openReady(t, h, "good")
	done := make(chan error, 1)
	go func() { _, err := callJSON(t, in, "increment", `{"amount":1}`); done <- err }()
	q.Answer(waitCard(t, q).ID, AllowRevision)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The same tool at the same revision goes without a card; another tool still asks.
	mustCall(t, in, "increment", `{"amount":1}`)
	if rec := lastCall(in, "increment"); rec.Approval != "granted" {
		t.Fatalf("approval %q", rec.Approval)
	}
	go func() { _, err := callJSON(t, in, "bump", ``); done <- err }()
	q.Answer(waitCard(t, q).ID, AllowOnce)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The catalog moved to r2: the grant for r1 no longer applies, and it is gone, so a Tick
	// that went back to r1 would not find it in force again.
	if _, err := in.Describe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if gs := q.Grants(); len(gs) != 0 {
		t.Fatalf("grants after the revision changed: %+v", gs)
	}
	go func() { _, err := callJSON(t, in, "increment", `{"amount":1}`); done <- err }()
	card := waitCard(t, q)
	if card.Req.Revision != "r2" {
		t.Fatalf("card revision %q", card.Req.Revision)
	}
	q.Answer(card.ID, Deny)
	<-done
}

// A Tick granted "allow for this revision" that changes a tool's description and schema under the
// same revision (breaking spec 5.5) loses every grant: the next call to the tool needs a card,
// the recorded violation (the side panel's warning) says the grants were dropped, and the log
// says so too. (Before, the call went out with no card under the old grant.)
// spec: H-K2
// spec: H-SEC1
func TestSpec55ViolationDropsGrants(t *testing.T) {
	t.Parallel()
	q := NewApprovalQueue(nil)
	var logged strings.Builder
	var logMu sync.Mutex
	h := newTestHost(t, Config{Approver: q, Logf: func(format string, args ...any) {
		logMu.Lock()
		fmt.Fprintf(&logged, format+"\n", args...)
		logMu.Unlock()
	}})
	in := openReady(t, h, "flipdesc")
	done := make(chan error, 1)
	go func() { _, err := callJSON(t, in, "increment", `{"amount":1}`); done <- err }()
	q.Answer(waitCard(t, q).ID, AllowRevision)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if gs := q.Grants(); len(gs) != 1 {
		t.Fatalf("grants before the change: %+v", gs)
	}
	sub := h.Subscribe()
	defer sub.Close()
	// bump changes increment and keeps r1; the host describes again after a mutating call's
	// answer (spec 5.5, issue 25.11), which is where it sees the change.
	go func() { _, err := callJSON(t, in, "bump", ``); done <- err }()
	q.Answer(waitCard(t, q).ID, AllowRevision)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cat, err := in.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cat.Revision() != "r1" || cat.Tool("increment").Description != "Add amount, or wipe everything." {
		t.Fatalf("the fake Tick did not change increment under r1: %+v", cat.Tool("increment"))
	}
	if gs := q.Grants(); len(gs) != 0 {
		t.Fatalf("grants after a spec 5.5 violation: %+v", gs)
	}
	v := in.RevisionViolations()
	if len(v) != 1 || !strings.Contains(v[0], "spec 5.5") || !strings.Contains(v[0], "2 grants (allow for this revision) were dropped") {
		t.Fatalf("violation recorded: %q", v)
	}
	seen := false
	for deadline := time.Now().Add(hangGuard); !seen && time.Now().Before(deadline); {
		select {
		case <-sub.C():
			for _, e := range sub.Drain() {
				seen = seen || e == Event{EventCatalog, in.ID()}
			}
		case <-time.After(hangGuard):
		}
	}
	if !seen {
		t.Error("no catalog event: views would not show the violation")
	}
	logMu.Lock()
	if !strings.Contains(logged.String(), in.ID()+": the tools changed under the same revision \"r1\"") || !strings.Contains(logged.String(), "were dropped") {
		t.Errorf("the log does not record the dropped grants:\n%s", logged.String())
	}
	logMu.Unlock()

	// The next call to the changed tool needs a card, at the same revision.
	go func() { _, err := callJSON(t, in, "increment", `{"amount":1,"wipe":true}`); done <- err }()
	card := waitCard(t, q)
	if card.Req.Tool != "increment" || card.Req.Revision != "r1" || card.Req.ToolDescription != "Add amount, or wipe everything." {
		t.Fatalf("card %+v", card.Req)
	}
	q.Answer(card.ID, Deny)
	if err := <-done; !errors.Is(err, ErrDenied) {
		t.Fatalf("the call after the violation: %v", err)
	}
}

func lastCall(in *Instance, tool string) CallRecord {
	calls := in.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Tool == tool {
			return calls[i]
		}
	}
	return CallRecord{}
}

func waitCard(t *testing.T, q *ApprovalQueue) Card {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if p := q.Pending(); len(p) > 0 {
			return p[0]
		}
		if time.Now().After(deadline) {
			t.Fatal("no approval card appeared")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// spec: H-K3
func TestCatalogChangeVoidsApproval(t *testing.T) {
	q := NewApprovalQueue(nil)
	h := newTestHost(t, Config{Approver: q})
	in := openReady(t, h, "good")
	done, bumped := make(chan error, 1), make(chan error, 1)
	go func() { _, err := callJSON(t, in, "increment", `{"amount":1}`); done <- err }()
	pending := waitCard(t, q)

	// The Tick changes its catalog (another card, approved), and the host describes it again
	// before bump's call returns.
	go func() { _, err := callJSON(t, in, "bump", ``); bumped <- err }()
	var bump Card
	for deadline := time.Now().Add(hangGuard); ; {
		if p := q.Pending(); len(p) == 2 {
			bump = p[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no second card")
		}
		time.Sleep(5 * time.Millisecond)
	}
	q.Answer(bump.ID, AllowOnce)
	if err := <-bumped; err != nil {
		t.Fatalf("bump: %v", err)
	}
	// The card for r1 is voided: gone from the queue, the caller told, nothing sent.
	err := <-done
	if !errors.Is(err, ErrVoided) || EffectOf(err) != wire.EffectNone {
		t.Fatalf("pending call after the catalog changed: %v", err)
	}
	for _, c := range q.Pending() {
		if c.ID == pending.ID {
			t.Fatal("the voided card is still pending")
		}
	}
	var calls map[string]int
	json.Unmarshal(mustCall(t, in, "calls", ""), &calls)
	if calls["increment"] != 0 {
		t.Fatal("a voided call was sent")
	}
	// A call prepared against the old revision is refused at once, unsent.
	_, err = in.Call(context.Background(), CallRequest{Tool: "echo", Args: json.RawMessage(`{"text":"x"}`), Revision: "r1"})
	if !errors.Is(err, ErrCatalogChanged) || EffectOf(err) != wire.EffectNone {
		t.Fatalf("stale revision: %v", err)
	}
}

// spec: H-K3
func TestCatalogChangedAnswerTriggersDescribe(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{Approver: &autoApprover{}})
	in := openReady(t, h, "silentbump")
	bumpSilently(t, in, 1) // the Tick is at r2; the host still believes r1
	// increment mutates: refused with -32004, it is never sent again (H-K5), but the host has
	// described the Tick before the call returns.
	_, err := callJSON(t, in, "increment", `{"amount":1}`)
	if !errors.Is(err, ErrCatalogChanged) || EffectOf(err) != wire.EffectNone || EffectOf(err) == "" {
		t.Fatalf("call against the stale catalog: %v", err)
	}
	var ce *CallError
	errors.As(err, &ce)
	if ce.Code != wire.CodeCatalogChanged {
		t.Fatalf("code %d", ce.Code)
	}
	if rev := in.Catalog().Revision(); rev != "r2" {
		t.Fatalf("after -32004 the host holds revision %q, want r2 at once", rev)
	}
	mustCall(t, in, "increment", `{"amount":1}`) // prepared again, it goes
	if calls := fakeCalls(t, in); calls["increment"] != 2 {
		t.Fatalf("the Tick got %d increment calls, want 2 (one refused, one prepared again)", calls["increment"])
	}
}

// bumpSilently has a silentbump fake move its catalog n times without a call, and waits until it
// has (its update).
func bumpSilently(t *testing.T, in *Instance, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		before := in.State().Updates
		if err := in.Process().Signal(syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(hangGuard)
		for in.State().Updates == before {
			if time.Now().After(deadline) {
				t.Fatal("the fake did not announce its new revision")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// fakeCalls returns how many calls of each tool the fake received.
func fakeCalls(t *testing.T, in *Instance) map[string]int {
	t.Helper()
	var calls map[string]int
	if err := json.Unmarshal(mustCall(t, in, "calls", ""), &calls); err != nil {
		t.Fatal(err)
	}
	return calls
}

// spec: H-K4
// spec: H-M4
// spec: H-K5
func TestCallTimeoutIsUnknownAndNeverResent(t *testing.T) {
	t.Parallel()
	log := fakeLogPath(t.TempDir())
	// The spec's call timeout is 60 s; a short one keeps the test quick, the rule is the same.
	h := newTestHost(t, Config{Approver: &autoApprover{}, CallTimeout: 300 * time.Millisecond})
	in := openReady(t, h, "good", envFakeLog+"="+log)
	_, err := callJSON(t, in, "late", `{"ms":800}`)
	if !errors.Is(err, ErrTimeout) || EffectOf(err) != wire.EffectUnknown {
		t.Fatalf("timed-out call: %v, want unknown", err)
	}
	// The late answer arrives and is dropped; the reported outcome stays what it was.
	deadline := time.Now().Add(hangGuard)
	for in.SessionStats().DroppedResponses != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the late answer was not dropped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if last := lastCall(in, "late"); last.OK || last.Effect != wire.EffectUnknown {
		t.Fatalf("recent call %+v changed after the late answer", last)
	}
	// Sent exactly once.
	n := 0
	for _, l := range receivedLines(t, log) {
		if strings.Contains(l, `"tool":"late"`) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the mutating call was sent %d times", n)
	}
	// The slot was freed: the session still takes eight requests.
	mustCall(t, in, "echo", `{"text":"ok"}`)
}

// spec: H-K5
func TestSessionEndNeverResends(t *testing.T) {
	t.Parallel()
	log := fakeLogPath(t.TempDir())
	h := newTestHost(t, Config{Approver: &autoApprover{}})
	in := openReady(t, h, "good", envFakeLog+"="+log)
	done := make(chan error, 1)
	go func() { _, err := callJSON(t, in, "noanswer", ""); done <- err }()
	waitInFlight(t, in, 1)
	callJSON(t, in, "misbehave", `{"what":"notjson"}`)
	if err := <-done; EffectOf(err) != wire.EffectUnknown {
		t.Fatalf("%v", err)
	}
	waitEnded(t, in)
	n := 0
	for _, l := range receivedLines(t, log) {
		if strings.Contains(l, `"tool":"noanswer"`) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("sent %d times", n)
	}
}

// spec: H-K6
func TestCallResultDoesNotChangeSeq(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{Approver: &autoApprover{}})
	in := openReady(t, h, "good")
	before := in.State()
	res := mustCall(t, in, "echo", `{"text":"x"}`)
	if string(res) != `{"text":"x"}` {
		t.Fatalf("result %s", res)
	}
	if after := in.State(); after.Seq != before.Seq || after.Updates != before.Updates {
		t.Fatalf("a call's result changed the state: %+v -> %+v", before, after)
	}
}

// spec: H-RC1
func TestHostNeverCallsRecoverWith(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	mustCall(t, in, "flood", `{"n":100}`)
	in.Read(context.Background())
	var calls map[string]int
	json.Unmarshal(mustCall(t, in, "calls", ""), &calls)
	if calls["history"] != 0 {
		t.Fatalf("the host called recover_with (history) %d times", calls["history"])
	}
	if in.Catalog().Descriptor.RecoverWith != "history" {
		t.Fatal("recover_with lost")
	}
}

// spec: H-E1
func TestEffectOfFailedCalls(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	for code, want := range map[int]wire.Effect{
		-32700: wire.EffectNone, -32600: wire.EffectNone, -32601: wire.EffectNone, -32602: wire.EffectNone,
		-32004: wire.EffectNone, -32000: wire.EffectPossible, -32001: wire.EffectPossible, 1: wire.EffectPossible,
	} {
		_, err := callJSON(t, in, "fail", `{"code":`+strconv.Itoa(code)+`}`)
		var ce *CallError
		if !errors.As(err, &ce) || ce.Code != int64(code) || ce.Effect != want {
			t.Errorf("code %d: %v, want effect %s", code, err, want)
		}
	}
}

// spec: H-V1
func TestMisbehavingTickNeverHarmsAnother(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	good := openReady(t, h, "good")
	bad := openReady(t, h, "good")
	callJSON(t, bad, "misbehave", `{"what":"longline"}`)
	waitEnded(t, bad)
	mustCall(t, good, "flood", `{"n":10}`)
	if good.Status() != StatusReady {
		t.Fatal("the good Tick was harmed")
	}
	// A new Tick opens as usual.
	openReady(t, h, "good")
}

func TestEventsCoalesce(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	sub := h.Subscribe()
	defer sub.Close()
	in := openReady(t, h, "good")
	mustCall(t, in, "flood", `{"n":200}`)
	<-sub.C()
	evs := sub.Drain()
	count := map[Event]int{}
	for _, e := range evs {
		count[e]++
	}
	for e, n := range count {
		if n != 1 {
			t.Fatalf("event %v queued %d times", e, n)
		}
	}
	if count[Event{EventState, in.ID()}] != 1 || count[Event{EventAdded, in.ID()}] != 1 {
		t.Fatalf("events %v", evs)
	}
}

// A Tick that declares a tool mutating, then a query under the same revision, still gets every
// call to it approved: mutates is sticky until the revision changes, and the host records the
// broken spec 5.5.
// spec: H-K2
// spec: H-SEC1
func TestMutatesIsStickyWithinARevision(t *testing.T) {
	t.Parallel()
	ap := &autoApprover{}
	h := newTestHost(t, Config{Approver: ap})
	in := openReady(t, h, "flipmutates")
	if _, err := callJSON(t, in, "bump", `{}`); err != nil { // flips increment, keeps the revision
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cat, err := in.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Tool("increment").Mutates {
		t.Fatal("the fake Tick did not declare increment a query")
	}
	before := ap.n.Load()
	if _, err := callJSON(t, in, "increment", `{"amount":1}`); err != nil {
		t.Fatal(err)
	}
	if ap.n.Load() != before+1 {
		t.Fatal("a tool declared mutating earlier at this revision ran without approval")
	}
	if v := in.RevisionViolations(); len(v) != 1 || !strings.Contains(v[0], "spec 5.5") {
		t.Fatalf("violations recorded: %q", v)
	}
	// The same tools again are no new violation.
	if _, err := in.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	if v := in.RevisionViolations(); len(v) != 1 {
		t.Fatalf("violations after an unchanged describe: %q", v)
	}
}

// Keeping the latest state allocates nothing per update, however long the flood: the seq history
// is trimmed in place (it once grew a new array every few updates once full).
// spec: H-U2
func TestOnUpdateAllocatesNothing(t *testing.T) {
	h := &Host{}
	sub := h.bus.subscribe() // never drained: the state event stays queued, as between frames
	defer sub.Close()
	in := &Instance{id: "hosted:1", isTick: true, host: h}
	st := wire.State{Data: json.RawMessage(`{"i":1}`), At: "2026-12-02T05:00:00Z"}
	seqs := make([]uint64, 4)
	now := time.Now()
	next := func() {
		for i := range seqs {
			st.Seq++
			seqs[i] = st.Seq
		}
		in.onUpdate(st, seqs, now)
	}
	for range 3 * seqHistory {
		next()
	}
	// AllocsPerRun rounds down: count them all. The count is the process's (a goroutine another
	// test left ending allocates too): the fewest of a few rounds is this code's.
	n := uint64(1 << 62)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 5 * seqHistory {
			next()
		}
		runtime.ReadMemStats(&after)
		n = min(n, after.Mallocs-before.Mallocs)
	}
	if n > 2 {
		t.Fatalf("%d allocations over %d updates", n, 5*seqHistory)
	}
	if got := in.MergedSince(st.Seq - 100); got != 100 {
		t.Fatalf("merged since 100 updates ago: %d", got)
	}
}
