package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"tickmux/host"
	"tickmux/tick/wire"
)

// slowCall is when a probe's call answer counts as slow: the probes ask for refusals or a query
// with no args, which need no time (C-K5, a warning with the time; never "no answer").
const slowCall = time.Second

// checker runs the probes on one ready instance.
type checker struct {
	r           *Report
	in          *host.Instance
	sess        *host.Session
	cat         *host.Catalog
	callTimeout time.Duration
	ids         *idWatch
}

func (c *checker) alive() bool { return c.in.Status() == host.StatusReady }

// saw records a message check received, for the instance-id probe (spec 4.1).
func (c *checker) saw(what string, raw []byte) { c.ids.look(what, raw) }

// watch lets the Tick run and counts its updates; the host checks each one (H-U1).
func (c *checker) watch(ctx context.Context, d time.Duration) {
	before := c.in.State()
	c.pause(ctx, d)
	after := c.in.State()
	n := after.Updates - before.Updates
	if !c.alive() {
		c.r.step("watch", false, "the session ended while watching")
		return
	}
	c.r.step("watch", true, "watched %v: %d updates, seq %d to %d", d, n, before.Seq, after.Seq)
	if rate := float64(n) / d.Seconds(); rate > 60 {
		c.r.find("C-U2", SevWarning, "%.0f updates per second while idle; updates should not come faster than the UI needs (spec 8.3)", rate)
	}
}

// pause lets the Tick run for d, or less if it ends or ctx is done.
func (c *checker) pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.in.Ended():
	case <-ctx.Done():
	}
}

// timed runs f and returns how long it took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// describe and read send one request each and record what came back.
func (c *checker) describe(ctx context.Context) (*host.Catalog, error) {
	cat, err := c.in.Describe(ctx)
	if err == nil {
		c.saw("a tick/describe result", cat.Raw)
	}
	return cat, err
}

func (c *checker) read(ctx context.Context) (host.StateInfo, error) {
	st, err := c.in.Read(ctx)
	if err == nil {
		c.saw("a tick/read result", st.Data)
	}
	return st, err
}

// probeTwice sends describe and read twice: the catalog must not change without a new revision
// (C-D3), and seq must never go back (H-RD1).
func (c *checker) probeTwice(ctx context.Context) {
	var slowest time.Duration
	cats := []*host.Catalog{c.cat}
	ok := true
	for i := 0; i < 2; i++ {
		var cat *host.Catalog
		var err error
		slowest = max(slowest, timed(func() { cat, err = c.describe(ctx) }))
		if err != nil {
			c.requestFailed("tick/describe", err)
			ok = false
			continue
		}
		cats = append(cats, cat)
		slowest = max(slowest, timed(func() { _, err = c.read(ctx) }))
		if err != nil {
			c.requestFailed("tick/read", err)
			ok = false
		}
	}
	for i := 1; i < len(cats); i++ {
		a, b := cats[i-1], cats[i]
		if a.Revision() != b.Revision() {
			continue
		}
		if diff := catalogDiff(a, b); diff != "" {
			c.r.find("C-D3", SevFailure, "the tool catalog changed but its revision %q did not: %s (spec 5.5)", host.Printable(a.Revision(), false), host.Printable(diff, false))
			ok = false
		}
	}
	c.r.step("describe and read twice", ok, "slowest answer %v", slowest.Round(time.Microsecond))
	if slowest > 200*time.Millisecond {
		c.r.find("C-R2", SevWarning, "tick/describe or tick/read took %v; they should answer within milliseconds (spec 4.4)", slowest.Round(time.Millisecond))
	}
}

// probeNoSideEffects sends describe and read several times in a row: no update may come, and
// every read must show the same seq (spec 4.4: MUST have no side effects). Updates the
// Tick sends on its own must not be taken for effects, so each burst follows a quiet window as
// long as sideEffectQuiet: a burst counts only after a window with no update, and a finding needs
// sideEffectRounds such bursts in a row, each showing a change.
func (c *checker) probeNoSideEffects(ctx context.Context) {
	burst := func() (string, bool) {
		before := c.in.SessionStats().Updates
		var first *host.StateInfo
		for i := 0; i < 4; i++ {
			if _, err := c.describe(ctx); err != nil {
				c.requestFailed("tick/describe", err)
				return "", false
			}
			st, err := c.read(ctx)
			if err != nil {
				c.requestFailed("tick/read", err)
				return "", false
			}
			if first == nil {
				first = &st
			} else if st.Seq != first.Seq {
				// Only seq is compared: data may hold what is not business news (a clock's
				// time), which changes without an update and is no effect of the read.
				return fmt.Sprintf("seq moved from %d to %d between reads", first.Seq, st.Seq), true
			}
		}
		if n := c.in.SessionStats().Updates - before; n > 0 {
			return fmt.Sprintf("%d tick/update notifications came while only describe and read were sent", n), true
		}
		return "", true
	}
	quiet := func() bool {
		c.pause(ctx, sideEffectSettle) // what the last burst caused arrives
		before := c.in.SessionStats().Updates
		c.pause(ctx, sideEffectQuiet)
		return c.alive() && c.in.SessionStats().Updates == before
	}
	var moved string
	for round := 0; round < sideEffectRounds; round++ {
		if !quiet() {
			c.r.step("describe and read change nothing", true, "skipped: the Tick updates on its own, so effects cannot be told apart")
			return
		}
		var ok bool
		if moved, ok = burst(); !ok {
			c.r.step("describe and read change nothing", false, "a request failed")
			return
		}
		if moved == "" {
			c.r.step("describe and read change nothing", true, "4 describes and 4 reads: same seq and state, no update")
			return
		}
	}
	c.r.find("C-R1", SevFailure, "tick/describe and tick/read have side effects: %s, in %d rounds each after %v without updates (spec 4.4)", moved, sideEffectRounds, sideEffectQuiet)
	c.r.step("describe and read change nothing", false, "%s", moved)
}

// The side-effect probe's quiet window and rounds (see probeNoSideEffects).
const (
	sideEffectSettle = 100 * time.Millisecond
	sideEffectQuiet  = 300 * time.Millisecond
	sideEffectRounds = 3
)

// probeEight sends four describes and four reads at once (H-C1's limit): each must be answered.
func (c *checker) probeEight(ctx context.Context) {
	var wg sync.WaitGroup
	errs := make([]error, 8)
	start := time.Now()
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { // owner: probeEight; returns when the request is answered or fails
			defer wg.Done()
			if i%2 == 0 {
				_, errs[i] = c.describe(ctx)
			} else {
				_, errs[i] = c.read(ctx)
			}
		}()
	}
	wg.Wait()
	ok := true
	for i, err := range errs {
		if err != nil {
			ok = false
			c.requestFailed([]string{"tick/describe", "tick/read"}[i%2]+" (eight at once)", err)
		}
	}
	c.r.step("eight requests at once", ok, "all answered in %v", time.Since(start).Round(time.Microsecond))
}

// requestFailed records a failed request as the rule it broke, found by the error's type.
func (c *checker) requestFailed(what string, err error) {
	switch rule := host.RuleOf(err); {
	case !c.alive():
		return // the end is reported as a finding of its own
	case errors.Is(err, host.ErrTimeout):
		c.r.find("C-M1", SevFailure, "%s got no answer (%v); every request must be answered exactly once (spec 3.2)", what, err)
	case rule != "":
		c.r.find(rule, SevFailure, "%s: %v", what, err)
	default:
		c.r.find("C-M1", SevFailure, "%s failed: %v", what, err)
	}
}

// query returns a non-mutating tool that takes {} as its args, the only call check makes with a
// valid revision and valid args; nil when the catalog has none.
func (c *checker) query() *wire.Tool {
	for i := range c.cat.Descriptor.Tools {
		t := &c.cat.Descriptor.Tools[i]
		if !t.Mutates && c.cat.CheckArgs(t.Name, json.RawMessage("{}")) == nil {
			return t
		}
	}
	return nil
}

// anyQuery returns a non-mutating tool whatever its args, for probes that never let it run.
func (c *checker) anyQuery() *wire.Tool {
	for i := range c.cat.Descriptor.Tools {
		if t := &c.cat.Descriptor.Tools[i]; !t.Mutates {
			return t
		}
	}
	return nil
}

// call sends a probe's tick/call and reports a slow answer with its time (C-K5).
func (c *checker) call(ctx context.Context, what string, p wire.CallParams) (json.RawMessage, error) {
	var res json.RawMessage
	var err error
	took := timed(func() { res, err = c.sess.Call(ctx, p, c.callTimeout) })
	c.slow(what, took, err)
	if err == nil {
		c.saw("a tick/call result", res)
	} else if _, answered := codeOf(err); answered {
		c.saw("a tick/call error", []byte(err.Error()))
	}
	return res, err
}

func (c *checker) slow(what string, took time.Duration, err error) {
	_, answered := codeOf(err)
	if (err == nil || answered) && took > slowCall {
		c.r.find("C-K5", SevWarning, "%s was answered after %v; a call that needs no work should be answered at once (spec 7.3)", what, took.Round(time.Millisecond))
	}
}

// probeRevisionFirst calls an unknown tool with a stale revision: the revision is checked first
// (spec 7.2 step 1), so the answer is -32004, not -32602. Nothing can run.
func (c *checker) probeRevisionFirst(ctx context.Context) {
	const name = "tickmux-check-no-such-tool"
	stale := c.cat.Revision() + "~stale-by-tickmux-check"
	what := fmt.Sprintf("a call to the unknown tool %q with the stale revision %q", name, stale)
	_, err := c.call(ctx, what, wire.CallParams{Tool: name, Args: json.RawMessage("{}"), Revision: stale})
	ok := c.expectCode(err, wire.CodeCatalogChanged, "C-K4", SevFailure, what, "spec 7.2: the revision is checked before the tool")
	c.r.step("revision before tool", ok, "called %q with revision %q", name, stale)
}

// probeStaleRevision calls a query tool with a revision that is not current: -32004, no effect.
func (c *checker) probeStaleRevision(ctx context.Context) {
	t := c.anyQuery()
	if t == nil {
		c.r.step("stale revision gets -32004", true, "skipped: the catalog has no non-mutating tool to probe safely")
		return
	}
	stale := c.cat.Revision() + "~stale-by-tickmux-check"
	what := fmt.Sprintf("a call to %q with the stale revision %q", t.Name, stale)
	_, err := c.call(ctx, what, wire.CallParams{Tool: t.Name, Args: json.RawMessage("{}"), Revision: stale})
	ok := c.expectCode(err, wire.CodeCatalogChanged, "C-K1", SevFailure, what, "spec 7.2")
	c.r.step("stale revision gets -32004", ok, "called %q with revision %q", t.Name, stale)
}

// probeUnknownTool calls a tool that does not exist, at the current revision: -32602.
func (c *checker) probeUnknownTool(ctx context.Context) {
	const name = "tickmux-check-no-such-tool"
	what := fmt.Sprintf("a call to the unknown tool %q", name)
	_, err := c.call(ctx, what, wire.CallParams{Tool: name, Args: json.RawMessage("{}"), Revision: c.cat.Revision()})
	ok := c.expectCode(err, wire.CodeInvalidParams, "C-K2", SevFailure, what, "spec 7.2")
	c.r.step("unknown tool gets -32602", ok, "called %q", name)
}

// probeBadArgs sends a query tool args its own schema rejects: the Tick must answer -32602 and
// not run the tool (spec 7.2: it checks for itself, not relying on the host).
func (c *checker) probeBadArgs(ctx context.Context) {
	t := c.anyQuery()
	if t == nil {
		c.r.step("args that do not fit get -32602", true, "skipped: the catalog has no non-mutating tool to probe safely")
		return
	}
	args := json.RawMessage(`{"tickmux_check_unexpected":[null,{"x":-0.5}]}`)
	if c.cat.CheckArgs(t.Name, args) == nil {
		args = json.RawMessage(`[]`) // not an object: no schema with type object accepts it
		if c.cat.CheckArgs(t.Name, args) == nil {
			c.r.step("args that do not fit get -32602", true, "skipped: %q accepts any args", t.Name)
			return
		}
	}
	what := fmt.Sprintf("a call to %q with args its input_schema rejects (%s)", t.Name, args)
	_, err := c.call(ctx, what, wire.CallParams{Tool: t.Name, Args: args, Revision: c.cat.Revision()})
	ok := c.expectCode(err, wire.CodeInvalidParams, "C-K3", SevFailure, what, "spec 7.2: a Tick checks args itself and does not run the tool")
	c.r.step("args that do not fit get -32602", ok, "called %q with %s", t.Name, args)
}

// probeUnknownMethod sends a request the protocol does not define: -32601.
func (c *checker) probeUnknownMethod(ctx context.Context) {
	const method = "tick/tickmux-check-unknown"
	_, err := c.sess.Request(ctx, method, struct{}{}, c.callTimeout)
	ok := c.expectCode(err, wire.CodeMethodNotFound, "C-M2", SevWarning,
		fmt.Sprintf("the unknown method %q", method), "JSON-RPC 2.0")
	c.r.step("unknown method gets -32601", ok, "sent %q", method)
}

// unknownParam is a params member no version of the protocol defines.
const unknownParam = "tickmux_check_unknown_param"

// probeUnknownParams sends describe, read and (with a query tool) a call carrying a params member
// the Tick does not know: it should answer as if it were absent (spec 4.3, SHOULD).
func (c *checker) probeUnknownParams(ctx context.Context) {
	extra := map[string]any{unknownParam: map[string]any{"x": 1}}
	var refused []string
	judge := func(what string, err error) {
		if err == nil {
			return
		}
		if _, answered := codeOf(err); answered {
			refused = append(refused, fmt.Sprintf("%s was refused (%s)", what, describeOutcome(err)))
			return
		}
		c.requestFailed(what, err)
	}
	raw, err := c.sess.Request(ctx, wire.MethodDescribe, extra, c.callTimeout)
	if err == nil {
		c.saw("a tick/describe result", raw)
		if _, perr := host.ParseDescriptor(raw); perr != nil {
			c.requestFailed("tick/describe with an unknown param", perr)
		}
	}
	judge("tick/describe with an unknown param", err)
	raw, err = c.sess.Request(ctx, wire.MethodRead, extra, c.callTimeout)
	if err == nil {
		c.saw("a tick/read result", raw)
	}
	judge("tick/read with an unknown param", err)
	sent := "describe and read"
	if t := c.query(); t != nil {
		sent = fmt.Sprintf("describe, read and a call to %q", t.Name)
		p := map[string]any{"tool": t.Name, "args": map[string]any{}, "revision": c.cat.Revision(), unknownParam: true}
		var took time.Duration
		took = timed(func() { raw, err = c.sess.Request(ctx, wire.MethodCall, p, c.callTimeout) })
		what := fmt.Sprintf("a call to %q with an unknown param", t.Name)
		c.slow(what, took, err)
		if err == nil {
			c.saw("a tick/call result", raw)
		} else if code, answered := codeOf(err); answered && code != wire.CodeInvalidParams && code != wire.CodeInvalidRequest {
			err = nil // the query's own failure is not about the param
		}
		judge(what, err)
	}
	for _, s := range refused {
		c.r.find("C-M3", SevWarning, "%s; unknown params should be ignored (spec 4.3)", s)
	}
	c.r.step("unknown params are ignored", len(refused) == 0, "sent %q in the params of %s", unknownParam, sent)
}

// probeWhileCalling sends describe and read while a query call is in flight: they should be
// answered without waiting for the call (spec 3.3, SHOULD). Only a call that takes a while can
// show it; a quick one passes.
func (c *checker) probeWhileCalling(ctx context.Context) {
	t := c.query()
	if t == nil {
		c.r.step("describe and read during a call", true, "skipped: the catalog has no query tool that takes {}")
		return
	}
	var callDone time.Time
	var callErr error
	done := make(chan struct{})
	start := time.Now()
	go func() { // owner: probeWhileCalling; returns when the call is answered or times out
		defer close(done)
		_, callErr = c.call(ctx, fmt.Sprintf("a call to %q", t.Name), wire.CallParams{Tool: t.Name, Args: json.RawMessage("{}"), Revision: c.cat.Revision()})
		callDone = time.Now()
	}()
	for sent := false; !sent && c.in.SessionStats().InFlight == 0; {
		select {
		case <-done:
			sent = true // answered already
		case <-time.After(time.Millisecond):
		}
	}
	var dErr, rErr error
	var dDone, rDone time.Time
	_, dErr = c.describe(ctx)
	dDone = time.Now()
	_, rErr = c.read(ctx)
	rDone = time.Now()
	<-done
	if dErr != nil {
		c.requestFailed("tick/describe during a call", dErr)
	}
	if rErr != nil {
		c.requestFailed("tick/read during a call", rErr)
	}
	if _, answered := codeOf(callErr); callErr != nil && !answered {
		c.requestFailed(fmt.Sprintf("a call to %q", t.Name), callErr)
	}
	callTook := callDone.Sub(start)
	waited := dErr == nil && rErr == nil && !rDone.Before(callDone) && callTook > 100*time.Millisecond
	if waited {
		c.r.find("C-R3", SevWarning, "tick/describe and tick/read sent while %q ran were answered only after it (describe %v, read %v after the call began; the call took %v); they should not wait for calls (spec 3.3)",
			t.Name, dDone.Sub(start).Round(time.Millisecond), rDone.Sub(start).Round(time.Millisecond), callTook.Round(time.Millisecond))
	}
	c.r.step("describe and read during a call", !waited && dErr == nil && rErr == nil, "called %q (%v); describe and read answered %v after it began",
		t.Name, callTook.Round(time.Microsecond), rDone.Sub(start).Round(time.Microsecond))
}

// expectCode judges a probe whose one right answer is the error code want. A wrong answer is a
// finding of rule at sev; a request that failed otherwise is reported as such.
func (c *checker) expectCode(err error, want int64, rule, sev, what, ref string) bool {
	code, answered := codeOf(err)
	switch {
	case answered && code == want:
		return true
	case err == nil || answered:
		verb := "must"
		if sev == SevWarning {
			verb = "should"
		}
		c.r.find(rule, sev, "%s got %s; it %s be refused with %d (%s)", what, describeOutcome(err), verb, want, ref)
	default:
		c.requestFailed(what, err)
	}
	return false
}

func describeOutcome(err error) string {
	if err == nil {
		return "a result"
	}
	if code, ok := codeOf(err); ok {
		return fmt.Sprintf("code %d", code)
	}
	return err.Error()
}

// codeOf returns the Tick's error code, and whether the Tick answered with an error at all.
func codeOf(err error) (int64, bool) {
	var ce *host.CallError
	if errors.As(err, &ce) && ce.Code != 0 {
		return ce.Code, true
	}
	return 0, false
}

// sessionCounters turns what the host counted into findings.
func (c *checker) sessionCounters() {
	st := c.in.SessionStats()
	if st.TickRequests > 0 {
		c.r.find("H-M7", SevFailure, "the Tick sent %d requests to the host (messages with a method and an id, whatever its value: null and strings too); Ticks must not send requests, and the host never takes them as updates (spec 3.2)", st.TickRequests)
	}
	if st.DroppedResponses > 0 {
		c.r.find("C-M1", SevFailure, "the Tick sent %d responses with ids no request had in flight: each request is answered exactly once (spec 3.2)", st.DroppedResponses)
	}
	if st.IgnoredNotifications > 0 {
		c.r.find("H-M3", SevWarning, "the Tick sent %d notifications other than tick/update; the host ignores them", st.IgnoredNotifications)
	}
}

// probeEOF closes the Tick's stdin, right after a query call when there is one: the Tick should
// answer the call, then exit (spec 4.5).
func (c *checker) probeEOF(ctx context.Context) {
	start := time.Now()
	t := c.query()
	if t == nil {
		if err := c.sess.CloseStdin(); err != nil {
			c.r.step("exits on EOF", false, "could not close stdin: %v", err)
			return
		}
	} else {
		ctx, cancel := context.WithTimeout(ctx, max(promptExit, min(c.callTimeout, 10*time.Second)))
		defer cancel()
		res, err := c.sess.CallThenCloseStdin(ctx, wire.CallParams{Tool: t.Name, Args: json.RawMessage("{}"), Revision: c.cat.Revision()}, c.callTimeout)
		_, answered := codeOf(err)
		switch {
		case err == nil || answered:
			if err == nil {
				c.saw("a tick/call result", res)
			}
			c.r.step("answers calls in flight at EOF", true, "%q answered after %v", t.Name, time.Since(start).Round(time.Microsecond))
		case errors.Is(err, host.ErrSessionEnded):
			c.r.step("answers calls in flight at EOF", false, "the Tick exited without answering %q", t.Name)
			c.r.find("C-X4", SevWarning, "the Tick ended without answering a call to %q that was in flight when its stdin closed; at EOF it should finish calls in flight, then exit (spec 4.5)", t.Name)
		default:
			c.r.step("answers calls in flight at EOF", false, "%v", err)
			c.r.find("C-X4", SevWarning, "a call to %q in flight when stdin closed got no answer: %v (spec 4.5)", t.Name, err)
		}
	}
	timer := time.NewTimer(promptExit)
	defer timer.Stop()
	select {
	case <-c.in.Process().Exited():
		c.r.step("exits on EOF", true, "exited %v after its stdin closed (%s)", time.Since(start).Round(time.Millisecond), c.in.Process().ExitStatus())
	case <-timer.C:
		c.r.step("exits on EOF", false, "still running %v after its stdin closed", promptExit)
		c.r.find("C-X1", SevWarning, "the Tick did not exit within %v of EOF on stdin (spec 4.5)", promptExit)
	}
}

// skippedFindings reports probes that could not run because the Tick ended first.
func (c *checker) skippedFindings(skipped []string) {
	if len(skipped) == 0 {
		return
	}
	reason := "the session ended"
	e := c.in.EndInfo()
	if e != nil {
		reason = e.Reason
	}
	c.r.step("probes skipped", false, "%s: %s", strings.Join(skipped, ", "), host.Printable(reason, false))
	if e != nil && (e.Rule != "" || host.RuleOf(e.Err) != "") {
		return // the rule that ended it is a finding already
	}
	c.r.find("C-X5", SevFailure, "the Tick ended before check could probe it (%s); skipped: %s. A Tick runs until its stdin closes or it is signalled (spec 4.5)", reason, strings.Join(skipped, ", "))
}
