package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"tickmux/host"
	"tickmux/tick/wire"
)

// checker runs the probes on one ready instance.
type checker struct {
	r           *Report
	in          *host.Instance
	sess        *host.Session
	cat         *host.Catalog
	callTimeout time.Duration
	lateCall    time.Duration // C-K5: an answer later than this is past the host's timeout
	exitWait    time.Duration // C-X1: how long the Tick has to exit after EOF (promptExit)
	ids         *idWatch
	lint        *sendLint
	dir         string // the Tick's working directory, "" for check's own
}

func (c *checker) alive() bool { return c.in.Status() == host.StatusReady }

// saw records a message check received, for the instance-id probe (spec 4.1).
func (c *checker) saw(what string, raw []byte) { c.ids.look(what, raw) }

// watch lets the Tick run and counts its updates; the host checks each one (H-U1).
func (c *checker) watch(ctx context.Context, d time.Duration) {
	before := c.in.State()
	c.pause(ctx, d)
	if ctx.Err() != nil {
		return // interrupted: no step
	}
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

// timedRequest sends method (describe or read) and returns its result and how long the Tick
// took: from the request's line going out to its answer's bytes reaching the host's line reader,
// before the host or check parses or validates them (spec 4.4 times the Tick, not check).
func (c *checker) timedRequest(ctx context.Context, method string) (json.RawMessage, time.Duration, error) {
	var sent, arrived time.Time
	obs := &host.Observer{BeforeSend: func() { sent = time.Now() }, Arrived: func(at time.Time) { arrived = at }}
	raw, err := c.sess.RequestObserved(ctx, method, struct{}{}, c.callTimeout, obs)
	if arrived.IsZero() || sent.IsZero() {
		return raw, 0, err
	}
	return raw, arrived.Sub(sent), err
}

// describe and read send one request each and record what came back.
func (c *checker) describe(ctx context.Context) (*host.Catalog, error) {
	cat, err := c.in.Describe(ctx)
	if err == nil {
		c.saw("a tick/describe result", cat.Raw)
		c.lint.margin("a tick/describe result", cat.Raw, host.MaxDescribeBytes)
	} else {
		c.sawError("a tick/describe error", err)
	}
	return cat, err
}

func (c *checker) read(ctx context.Context) (host.StateInfo, error) {
	st, err := c.in.Read(ctx)
	if err == nil {
		c.saw("a tick/read result", st.Data)
		c.lint.state("a tick/read result", st.Data, host.MaxReadBytes)
	} else {
		c.sawError("a tick/read error", err)
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
		raw, took, err := c.timedRequest(ctx, wire.MethodDescribe)
		slowest = max(slowest, took)
		var cat *host.Catalog
		if err == nil {
			c.saw("a tick/describe result", raw)
			c.lint.margin("a tick/describe result", raw, host.MaxDescribeBytes)
			cat, err = host.ParseDescriptor(raw)
		} else {
			c.sawError("a tick/describe error", err)
		}
		if err != nil {
			c.requestFailed("tick/describe", err)
			ok = false
			continue
		}
		cats = append(cats, cat)
		raw, took, err = c.timedRequest(ctx, wire.MethodRead)
		slowest = max(slowest, took)
		if err != nil {
			c.sawError("a tick/read error", err)
			c.requestFailed("tick/read", err)
			ok = false
			continue
		}
		var st struct{ Data json.RawMessage }
		_ = json.Unmarshal(raw, &st)
		c.saw("a tick/read result", raw)
		c.lint.state("a tick/read result", st.Data, host.MaxReadBytes)
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
		var revs []string // each describe's revision
		for i := 0; i < 4; i++ {
			cat, err := c.describe(ctx)
			if err != nil {
				c.requestFailed("tick/describe", err)
				return "", false
			}
			revs = append(revs, cat.Revision())
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
		// A new revision voids every call prepared against the one before (spec 5.5, 10): a
		// describe that hands one out has a side effect. A revision that moves by itself (a
		// plugin loads, a clock) moves once in a burst at most, not at every describe.
		if rotates(revs) {
			return fmt.Sprintf("each describe gave a new revision (%s) with no update and no call between", host.Printable(strings.Join(quoted(revs), ", "), false)), true
		}
		return "", true
	}
	moved, outcome := c.effectRounds(ctx, burst)
	switch outcome {
	case roundsSkipped:
		c.r.step("describe and read change nothing", true, "skipped: the Tick updates on its own, so effects cannot be told apart")
	case roundsFailed:
		c.r.step("describe and read change nothing", false, "a request failed")
	case roundsClean:
		c.r.step("describe and read change nothing", true, "4 describes and 4 reads: same seq, no update, no revision handed out per describe")
	default:
		c.r.find("C-R1", SevFailure, "tick/describe and tick/read have side effects: %s, in %d rounds each after %v without updates (spec 4.4)", moved, sideEffectRounds, sideEffectQuiet)
		c.r.step("describe and read change nothing", false, "%s", moved)
	}
}

// rotates reports whether every revision differs from the one before it.
func rotates(revs []string) bool {
	for i := 1; i < len(revs); i++ {
		if revs[i] == revs[i-1] {
			return false
		}
	}
	return len(revs) > 1
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// What effectRounds saw.
const (
	roundsClean   = iota // a burst changed nothing
	roundsMoved          // every round's burst changed something
	roundsSkipped        // the Tick updates on its own
	roundsFailed         // a request failed
)

// effectRounds runs burst after quiet windows, up to sideEffectRounds times (see
// probeNoSideEffects), and returns what the last burst moved.
func (c *checker) effectRounds(ctx context.Context, burst func() (string, bool)) (string, int) {
	quiet := func() bool {
		c.pause(ctx, sideEffectSettle) // what the last burst caused arrives
		before := c.in.SessionStats().Updates
		c.pause(ctx, sideEffectQuiet)
		return c.alive() && c.in.SessionStats().Updates == before
	}
	var moved string
	for round := 0; round < sideEffectRounds; round++ {
		if !quiet() {
			return "", roundsSkipped
		}
		var ok bool
		if moved, ok = burst(); !ok {
			return "", roundsFailed
		}
		if moved == "" {
			return "", roundsClean
		}
	}
	return moved, roundsMoved
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
	switch rule := preciseRule(err); {
	case !c.alive():
		return // the end is reported as a finding of its own
	case errors.Is(err, host.ErrTimeout):
		c.r.find("C-M1", SevFailure, "%s got no answer (%v); every request must be answered exactly once (spec 3.2)", what, err)
	case rule != "":
		c.r.find(rule, SevFailure, "%s: %s", what, retag(err.Error(), host.RuleOf(err), rule))
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

// prepareQuery makes the call of the query tool name with {} against cat, while cat still has it
// as a query that takes {}.
func (c *checker) prepareQuery(name string) func(cat *host.Catalog) (wire.CallParams, bool) {
	return func(cat *host.Catalog) (wire.CallParams, bool) {
		t := cat.Tool(name)
		ok := t != nil && !t.Mutates && cat.CheckArgs(name, json.RawMessage("{}")) == nil
		return wire.CallParams{Tool: name, Args: json.RawMessage("{}"), Revision: cat.Revision()}, ok
	}
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

// call sends a probe's tick/call and reports an answer past the host's timeout (C-K5).
func (c *checker) call(ctx context.Context, what string, p wire.CallParams) (json.RawMessage, error) {
	var res json.RawMessage
	var err error
	took := timed(func() { res, err = c.sess.Call(ctx, p, c.callTimeout) })
	c.slow(what, took, err)
	if err == nil {
		c.saw("a tick/call result", res)
		c.lint.margin("a tick/call result", res, host.MaxResultBytes)
	} else {
		c.sawError("a tick/call error", err)
	}
	return res, err
}

// maxFollows bounds how many times one probe follows a moving catalog.
const maxFollows = 3

// callFollowing sends the call prepare makes against the current catalog. A Tick whose catalog
// moved on answers -32004, rightly (spec 5.5, 7.2): check then describes it again and, when
// prepare still finds a safe call in the new catalog, sends that once more. prepare returns
// false when the probe cannot be made against the catalog any more; the error is then the last
// answer. The revision the call was last sent with is returned for the probe's step.
func (c *checker) callFollowing(ctx context.Context, what string, prepare func(cat *host.Catalog) (wire.CallParams, bool)) (json.RawMessage, string, error) {
	p, ok := prepare(c.cat)
	if !ok {
		return nil, "", nil
	}
	for i := 0; ; i++ {
		res, err := c.call(ctx, what, p)
		if code, _ := codeOf(err); code != wire.CodeCatalogChanged || i == maxFollows || !c.follow(ctx) {
			return res, p.Revision, err
		}
		next, ok := prepare(c.cat)
		if !ok {
			return res, p.Revision, err
		}
		p = next
	}
}

// follow describes the Tick again and adopts its catalog when the revision moved; it reports
// whether it did.
func (c *checker) follow(ctx context.Context) bool {
	cat, err := c.describe(ctx)
	if err != nil {
		c.requestFailed("tick/describe after a -32004 answer", err)
		return false
	}
	if cat.Revision() == c.cat.Revision() {
		return false // -32004 for the current revision: the probe's own judgement says so
	}
	c.r.step("follow the catalog", true, "the Tick moved from revision %q to %q (%d tools); probes use the new one (spec 5.5)",
		host.Printable(c.cat.Revision(), false), host.Printable(cat.Revision(), false), len(cat.Descriptor.Tools))
	c.cat = cat
	return true
}

// slow reports a call answered after the host would have given up on it (C-K5, spec 7.3: the
// host reports "result unknown" at 60 s; operations that may take longer go to the background).
// Quicker answers are never findings, however slow: the draft sets no other bound.
func (c *checker) slow(what string, took time.Duration, err error) {
	_, answered := codeOf(err)
	if (err == nil || answered) && took > c.lateCall {
		c.r.find("C-K5", SevWarning, "%s was answered after %v, past the host's %v timeout: a host reports such a call's result as unknown; an operation that may run past 60 s should return at once, go on in the background and report through tick/update (spec 7.3)",
			what, took.Round(time.Millisecond), c.lateCall)
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
	_, rev, err := c.callFollowing(ctx, what, func(cat *host.Catalog) (wire.CallParams, bool) {
		return wire.CallParams{Tool: name, Args: json.RawMessage("{}"), Revision: cat.Revision()}, cat.Tool(name) == nil
	})
	ok := c.expectCode(err, wire.CodeInvalidParams, "C-K2", SevFailure, what, "spec 7.2")
	c.r.step("unknown tool gets -32602", ok, "called %q with revision %q", name, host.Printable(rev, false))
}

// probeBadArgs sends a query tool args its own schema rejects: the Tick must answer -32602 and
// not run the tool (spec 7.2: it checks for itself, not relying on the host). Args that break what
// the schema declares required or typed make a Tick that runs the tool fail C-K3; args whose only
// fault is a member the schema forbids as additional make it a warning, since the draft's own
// Appendix B, which meets every MUST, checks only the members it uses.
func (c *checker) probeBadArgs(ctx context.Context) {
	for _, kind := range []struct {
		step, sev, fault string
		typed            bool
	}{
		{"args that do not fit get -32602", SevFailure, "break what its input_schema declares required or typed", true},
		{"members the schema forbids get -32602", SevWarning, "hold a member its input_schema forbids as additional", false},
	} {
		t, _ := misfit(c.cat, kind.typed, "")
		if t == "" {
			c.r.step(kind.step, true, "skipped: no query tool's input_schema lets check build such args")
			continue
		}
		var args json.RawMessage
		what := fmt.Sprintf("a call to %q with args that %s", t, kind.fault)
		_, rev, err := c.callFollowing(ctx, what, func(cat *host.Catalog) (wire.CallParams, bool) {
			_, a := misfit(cat, kind.typed, t)
			args = a
			return wire.CallParams{Tool: t, Args: a, Revision: cat.Revision()}, a != nil
		})
		what = fmt.Sprintf("%s (%s)", what, args)
		ok := c.expectCode(err, wire.CodeInvalidParams, "C-K3", kind.sev, what, "spec 7.2: a Tick checks args itself and does not run the tool")
		c.r.step(kind.step, ok, "called %q with %s, revision %q", t, args, host.Printable(rev, false))
	}
}

// misfit finds a query tool of cat (only the tool named only, when only is not "") and args its
// input_schema rejects: with typed, args that leave out a required member or give a declared
// member a value of another type; without, args whose only fault is a member the schema forbids
// as additional. It returns "" and nil when no tool offers such args. Only queries: the call may
// run when the Tick does not check.
func misfit(cat *host.Catalog, typed bool, only string) (string, json.RawMessage) {
	for _, t := range cat.Descriptor.Tools {
		if t.Mutates || (only != "" && t.Name != only) {
			continue
		}
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(t.InputSchema, &schema)
		fits := func(a string) bool { return cat.CheckArgs(t.Name, json.RawMessage(a)) == nil }
		if !typed {
			extra := `{"tickmux_check_unexpected":[null,{"x":-0.5}]}`
			if _, declared := schema.Properties["tickmux_check_unexpected"]; !declared && fits(`{}`) && !fits(extra) {
				return t.Name, json.RawMessage(extra)
			}
			continue
		}
		if len(schema.Required) > 0 && !fits(`{}`) {
			return t.Name, json.RawMessage(`{}`)
		}
		names := make([]string, 0, len(schema.Properties))
		for name := range schema.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			var prop struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(schema.Properties[name], &prop) != nil || prop.Type == "" {
				continue
			}
			wrong := `"tickmux-check"`
			if prop.Type == "string" {
				wrong = `-0.5`
			}
			key, _ := json.Marshal(name)
			a := `{` + string(key) + `:` + wrong + `}`
			if !fits(a) && fits(`{}`) {
				return t.Name, json.RawMessage(a)
			}
		}
	}
	return "", nil
}

// probeUnknownMethod sends a request the protocol does not define: -32601.
func (c *checker) probeUnknownMethod(ctx context.Context) {
	const method = "tick/tickmux-check-unknown"
	_, err := c.sess.Request(ctx, method, struct{}{}, c.callTimeout)
	c.sawError("the error answering "+method, err)
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
		c.sawError("the error answering "+what, err)
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
		what := fmt.Sprintf("a call to %q with an unknown param", t.Name)
		for i := 0; ; i++ {
			p := map[string]any{"tool": t.Name, "args": map[string]any{}, "revision": c.cat.Revision(), unknownParam: true}
			var took time.Duration
			took = timed(func() { raw, err = c.sess.Request(ctx, wire.MethodCall, p, c.callTimeout) })
			c.slow(what, took, err)
			// A catalog that moved on (spec 5.5): follow it while the tool is still a query.
			if code, _ := codeOf(err); code != wire.CodeCatalogChanged || i == maxFollows || !c.follow(ctx) {
				break
			}
			if q := c.cat.Tool(t.Name); q == nil || q.Mutates || c.cat.CheckArgs(t.Name, json.RawMessage("{}")) != nil {
				break
			}
		}
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
		_, _, callErr = c.callFollowing(ctx, fmt.Sprintf("a call to %q", t.Name), c.prepareQuery(t.Name))
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
	if s := c.in.State(); s.Repeats > 0 {
		c.r.find("C-U3", SevWarning, "%d of %d tick/update notifications carried the same data as the update before; an update stands for a business change, and redraws send none (spec 8.3)", s.Repeats, s.Updates)
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
			} else {
				c.sawError("a tick/call error", err)
			}
			c.r.step("answers calls in flight at EOF", true, "%q answered after %v", t.Name, time.Since(start).Round(time.Microsecond))
		case errors.Is(err, host.ErrSessionEnded):
			c.r.find("C-X4", SevWarning, "the Tick ended without answering a call to %q that was in flight when its stdin closed; at EOF it should finish calls in flight, then exit (spec 4.5)", t.Name)
			c.r.step("answers calls in flight at EOF", false, "the Tick exited without answering %q", t.Name)
		default:
			c.r.find("C-X4", SevWarning, "a call to %q in flight when stdin closed got no answer: %v (spec 4.5)", t.Name, err)
			c.r.step("answers calls in flight at EOF", false, "%v", err)
		}
	}
	timer := time.NewTimer(c.exitWait)
	defer timer.Stop()
	select {
	case <-c.in.Process().Exited():
		c.r.step("exits on EOF", true, "exited %v after its stdin closed (%s)", time.Since(start).Round(time.Millisecond), c.in.Process().ExitStatus())
		// Judge only once the host has read the Tick's stdout to its end: what it wrote last
		// (a final line without its newline, spec 3.1, 3.6) must be judged every time, not
		// lost to check ending the instance first.
		select {
		case <-c.in.Ended():
		case <-timer.C:
		}
	case <-timer.C:
		c.r.find("C-X1", SevWarning, "the Tick did not exit within %v of EOF on stdin (spec 4.5)", c.exitWait)
		c.r.step("exits on EOF", false, "still running %v after its stdin closed", c.exitWait)
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
	if e == nil || (e.Rule == "" && host.RuleOf(e.Err) == "") { // else the rule that ended it is a finding of its own
		c.r.find("C-X5", SevFailure, "the Tick ended before check could probe it (%s); skipped: %s. A Tick runs until its stdin closes or it is signalled (spec 4.5)", reason, strings.Join(skipped, ", "))
	}
	c.r.step("probes skipped", false, "%s: %s", strings.Join(skipped, ", "), host.Printable(reason, false))
}
