// Package check judges a Tick against Tick protocol 3 for its author: it launches the Tick
// through the same host tickmux uses, initializes it, watches its updates, probes what is safe to
// probe, and ends it. It never calls a mutating tool with a valid revision.
//
// Findings name the rule broken: a HOST.md id (H-…) for what the host enforces, or a C-… id
// (rules.go) for what the spec asks of Ticks that HOST.md does not list.
package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"tickmux/host"
	"tickmux/tick"
)

// Severity of a finding.
const (
	// SevViolation: the Tick broke the protocol and the host ended its session (H-V1).
	SevViolation = "violation"
	// SevFailure: the Tick broke a MUST; the request failed or initialization did.
	SevFailure = "failure"
	// SevWarning: the Tick ignored a SHOULD.
	SevWarning = "warning"
)

// Options say what to check.
type Options struct {
	// Argv is the Tick's command; Dir its working directory ("" for the current one).
	Argv []string
	Dir  string
	// Env holds extra KEY=VALUE entries for the Tick.
	Env []string
	// Watch is how long to watch updates after initialization; zero means 2 s.
	Watch time.Duration
	// Logf receives the host's log; nil discards it.
	Logf func(format string, args ...any)
}

// Finding is one rule the Tick broke.
type Finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Ended says how the checked Tick ended.
type Ended struct {
	Reason string `json:"reason"`
	Screen string `json:"screen"`
}

// StateReport is the last state seen.
type StateReport struct {
	Seq  uint64          `json:"seq"`
	Data json.RawMessage `json:"data"`
	At   string          `json:"at"`
}

// Step is one thing check did and what it saw; the text report lists them.
type Step struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Report is the verdict. Its JSON form is what `tickmux check --json` prints.
type Report struct {
	OK         bool            `json:"ok"`
	Descriptor json.RawMessage `json:"descriptor"`
	State      *StateReport    `json:"state"`
	Findings   []Finding       `json:"findings"`
	Ended      *Ended          `json:"ended"`
	Steps      []Step          `json:"steps"`
}

func (r *Report) find(rule, severity, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Rule: rule, Severity: severity, Message: fmt.Sprintf(format, args...)})
}

func (r *Report) step(name string, ok bool, format string, args ...any) {
	r.Steps = append(r.Steps, Step{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
}

// Counts returns how many findings of each severity there are.
func (r *Report) Counts() (violations, failures, warnings int) {
	for _, f := range r.Findings {
		switch f.Severity {
		case SevViolation:
			violations++
		case SevFailure:
			failures++
		default:
			warnings++
		}
	}
	return
}

// promptExit is how long a Tick has to exit after EOF on stdin or SIGTERM.
const promptExit = host.TerminateGrace

// ErrCannotStart wraps a launch failure: the command could not be started at all.
var ErrCannotStart = errors.New("cannot start the Tick")

// Run checks the Tick. The error is non-nil only when the command could not be started; every
// way the Tick itself fails is a finding in the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Watch <= 0 {
		opts.Watch = 2 * time.Second
	}
	r := &Report{Findings: []Finding{}, Steps: []Step{}}
	h := host.New(host.Config{Logf: opts.Logf}) // no approver: nothing mutating can go out
	defer h.Close()

	in, err := h.Open(host.OpenSpec{Argv: opts.Argv, Dir: opts.Dir, Env: opts.Env})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotStart, err)
	}
	started := time.Now()
	select {
	case <-in.Ready():
	case <-ctx.Done():
		in.Close()
		return nil, ctx.Err()
	}
	if in.Status() != host.StatusReady {
		endFindings(r, in)
		r.step("initialize", false, "%s", host.Printable(in.EndInfo().Reason, false))
		finish(r, in)
		return r, nil
	}
	cat := in.Catalog()
	r.Descriptor = cat.Raw
	d := cat.Descriptor
	r.step("initialize", true, "ready in %v: %q (%s), revision %q, %d tools",
		time.Since(started).Round(time.Millisecond), d.Title, d.Kind, d.Revision, len(d.Tools))
	lintDescriptor(r, cat)

	c := &checker{r: r, in: in, sess: in.Session(), cat: cat}
	c.watch(ctx, opts.Watch)
	if c.alive() {
		c.probeTwice(ctx)
	}
	if c.alive() {
		c.probeEight(ctx)
	}
	if c.alive() {
		c.probeStaleRevision(ctx)
	}
	if c.alive() {
		c.probeUnknownTool(ctx)
	}
	if c.alive() {
		c.probeBadArgs(ctx)
	}
	if c.alive() {
		c.probeUnknownMethod(ctx)
	}
	c.sessionCounters()
	lintState(r, in.State())
	if c.alive() {
		c.probeEOF()
	}
	endFindings(r, in)
	finish(r, in)

	// SIGTERM needs a second run: the first has ended.
	if r.OK || noFindingsOtherThanWarnings(r) {
		probeSIGTERM(ctx, r, h, opts)
	}
	v, f, _ := r.Counts()
	r.OK = v == 0 && f == 0
	return r, nil
}

func noFindingsOtherThanWarnings(r *Report) bool {
	v, f, _ := r.Counts()
	return v == 0 && f == 0
}

// finish ends the instance, records how it ended and the state it left.
func finish(r *Report, in *host.Instance) {
	in.Close()
	if e := in.EndInfo(); e != nil {
		r.Ended = &Ended{Reason: e.Reason, Screen: e.Screen}
	}
	if st := in.State(); st.Valid {
		r.State = &StateReport{Seq: st.Seq, Data: st.Data, At: st.At}
	}
	v, f, _ := r.Counts()
	r.OK = v == 0 && f == 0
}

// endFindings turns a protocol end (violation, failed initialization) into a finding.
func endFindings(r *Report, in *host.Instance) {
	e := in.EndInfo()
	if e == nil || e.Rule == "" {
		return
	}
	sev := SevFailure
	var v *host.Violation
	if errors.As(e.Err, &v) {
		sev = SevViolation
	}
	for _, f := range r.Findings {
		if f.Rule == e.Rule && f.Message == e.Reason {
			return
		}
	}
	r.find(e.Rule, sev, "%s", e.Reason)
}

type checker struct {
	r    *Report
	in   *host.Instance
	sess *host.Session
	cat  *host.Catalog
}

func (c *checker) alive() bool { return c.in.Status() == host.StatusReady }

// watch lets the Tick run and counts its updates; the host checks each one (H-U1).
func (c *checker) watch(ctx context.Context, d time.Duration) {
	before := c.in.State()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.in.Ended():
	case <-ctx.Done():
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

// timed runs f and returns how long it took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// probeTwice sends describe and read twice: the catalog must not change without a new revision,
// and seq must never go back (H-RD1).
func (c *checker) probeTwice(ctx context.Context) {
	var slowest time.Duration
	var cats []*host.Catalog
	ok := true
	for i := 0; i < 2; i++ {
		var cat *host.Catalog
		var err error
		took := timed(func() { cat, err = c.in.Describe(ctx) })
		slowest = max(slowest, took)
		if err != nil {
			c.requestFailed("tick/describe", err)
			ok = false
			continue
		}
		cats = append(cats, cat)
		var st host.StateInfo
		took = timed(func() { st, err = c.in.Read(ctx) })
		slowest = max(slowest, took)
		if err != nil {
			c.requestFailed("tick/read", err)
			ok = false
			continue
		}
		_ = st
	}
	cats = append([]*host.Catalog{c.cat}, cats...)
	for i := 1; i < len(cats); i++ {
		a, b := cats[i-1], cats[i]
		if a.Revision() == b.Revision() && !sameTools(a, b) {
			c.r.find("C-D3", SevFailure, "the tool catalog changed but its revision %q did not (spec 5.5)", a.Revision())
			ok = false
		}
	}
	c.r.step("describe and read twice", ok, "slowest answer %v", slowest.Round(time.Microsecond))
	if slowest > 200*time.Millisecond {
		c.r.find("C-R2", SevWarning, "tick/describe or tick/read took %v; they should answer within milliseconds (spec 4.4)", slowest.Round(time.Millisecond))
	}
}

func sameTools(a, b *host.Catalog) bool {
	ja, _ := json.Marshal(a.Descriptor.Tools)
	jb, _ := json.Marshal(b.Descriptor.Tools)
	return string(ja) == string(jb)
}

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
				_, errs[i] = c.in.Describe(ctx)
			} else {
				_, errs[i] = c.in.Read(ctx)
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

// requestFailed records a failed describe or read as the rule it broke.
func (c *checker) requestFailed(what string, err error) {
	switch {
	case !c.alive():
		return // the end is reported as a violation
	case errors.Is(err, host.ErrTimeout):
		c.r.find("C-M1", SevFailure, "%s got no answer within %v; every request must be answered exactly once (spec 3.2)", what, host.InitTimeout)
	case errors.Is(err, host.ErrMalformedResponse):
		c.r.find("H-M6", SevFailure, "%s: %v", what, err)
	case errors.Is(err, host.ErrInvalidResult) && strings.Contains(err.Error(), "read floor"):
		c.r.find("H-RD1", SevFailure, "%s: %v", what, err)
	case errors.Is(err, host.ErrInvalidResult) && strings.Contains(err.Error(), "RFC 3339"):
		c.r.find("H-RD3", SevFailure, "%s: %v", what, err)
	case errors.Is(err, host.ErrResultTooLarge):
		c.r.find("H-V3", SevFailure, "%s: %v", what, err)
	case host.IsDescriptorError(err):
		c.r.find("H-D1", SevFailure, "%s: %v", what, err)
	default:
		c.r.find("C-M1", SevFailure, "%s failed: %v", what, err)
	}
}

// query returns a non-mutating tool, the only kind check may ever call.
func (c *checker) query() *tick.Tool {
	for i := range c.cat.Descriptor.Tools {
		if t := &c.cat.Descriptor.Tools[i]; !t.Mutates {
			return t
		}
	}
	return nil
}

// probeStaleRevision calls a query tool with a revision that is not current: -32004, no effect.
func (c *checker) probeStaleRevision(ctx context.Context) {
	t := c.query()
	if t == nil {
		c.r.step("stale revision gets -32004", true, "skipped: the catalog has no non-mutating tool to probe safely")
		return
	}
	stale := c.cat.Revision() + "~stale-by-tickmux-check"
	_, err := c.sess.Call(ctx, tick.CallParams{Tool: t.Name, Args: json.RawMessage("{}"), Revision: stale}, host.InitTimeout)
	ok := c.expectCode(err, tick.CodeCatalogChanged, "C-K1", SevFailure,
		fmt.Sprintf("a call to %q with the stale revision %q", t.Name, stale), "spec 7.2")
	c.r.step("stale revision gets -32004", ok, "called %q with revision %q", t.Name, stale)
}

// probeUnknownTool calls a tool that does not exist, at the current revision: -32602.
func (c *checker) probeUnknownTool(ctx context.Context) {
	const name = "tickmux-check-no-such-tool"
	_, err := c.sess.Call(ctx, tick.CallParams{Tool: name, Args: json.RawMessage("{}"), Revision: c.cat.Revision()}, host.InitTimeout)
	ok := c.expectCode(err, tick.CodeInvalidParams, "C-K2", SevFailure,
		fmt.Sprintf("a call to the unknown tool %q", name), "spec 7.2")
	c.r.step("unknown tool gets -32602", ok, "called %q", name)
}

// probeBadArgs sends a query tool args its own schema rejects: the Tick should answer -32602
// rather than run (spec 7.2 asks Ticks to check for themselves).
func (c *checker) probeBadArgs(ctx context.Context) {
	t := c.query()
	if t == nil {
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
	_, err := c.sess.Call(ctx, tick.CallParams{Tool: t.Name, Args: args, Revision: c.cat.Revision()}, host.InitTimeout)
	ok := c.expectCode(err, tick.CodeInvalidParams, "C-K3", SevWarning,
		fmt.Sprintf("a call to %q with args its input_schema rejects (%s)", t.Name, args), "spec 7.2: a Tick checks args itself")
	c.r.step("args that do not fit get -32602", ok, "called %q with %s", t.Name, args)
}

// probeUnknownMethod sends a request the protocol does not define: -32601.
func (c *checker) probeUnknownMethod(ctx context.Context) {
	const method = "tick/tickmux-check-unknown"
	_, err := c.sess.Request(ctx, method, struct{}{}, host.InitTimeout)
	ok := c.expectCode(err, tick.CodeMethodNotFound, "C-M2", SevWarning,
		fmt.Sprintf("the unknown method %q", method), "JSON-RPC 2.0")
	c.r.step("unknown method gets -32601", ok, "sent %q", method)
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
		c.r.find("H-M7", SevFailure, "the Tick sent %d requests to the host; Ticks must not send requests (spec 3.2)", st.TickRequests)
	}
	if st.DroppedResponses > 0 {
		c.r.find("C-M1", SevFailure, "the Tick sent %d responses with ids no request had in flight: each request is answered exactly once (spec 3.2)", st.DroppedResponses)
	}
	if st.IgnoredNotifications > 0 {
		c.r.find("H-M3", SevWarning, "the Tick sent %d notifications other than tick/update; the host ignores them", st.IgnoredNotifications)
	}
}

// probeEOF closes the Tick's stdin: it should finish what is in flight and exit (spec 4.5).
func (c *checker) probeEOF() {
	start := time.Now()
	if err := c.sess.CloseStdin(); err != nil {
		c.r.step("exits on EOF", false, "could not close stdin: %v", err)
		return
	}
	t := time.NewTimer(promptExit)
	defer t.Stop()
	select {
	case <-c.in.Process().Exited():
		c.r.step("exits on EOF", true, "exited %v after its stdin closed (%s)", time.Since(start).Round(time.Millisecond), c.in.Process().ExitStatus())
	case <-t.C:
		c.r.step("exits on EOF", false, "still running %v after its stdin closed", promptExit)
		c.r.find("C-X1", SevWarning, "the Tick did not exit within %v of EOF on stdin (spec 4.5)", promptExit)
	}
}

// probeSIGTERM starts the Tick again and sends SIGTERM once it is ready (spec 4.5).
func probeSIGTERM(ctx context.Context, r *Report, h *host.Host, opts Options) {
	in, err := h.Open(host.OpenSpec{Argv: opts.Argv, Dir: opts.Dir, Env: opts.Env})
	if err != nil {
		r.step("exits on SIGTERM", false, "could not start it again: %v", err)
		return
	}
	defer in.Close()
	select {
	case <-in.Ready():
	case <-ctx.Done():
		return
	}
	if in.Status() != host.StatusReady {
		r.step("exits on SIGTERM", false, "the second start failed: %s", host.Printable(in.EndInfo().Reason, false))
		r.find("C-X3", SevWarning, "the Tick initialized once but not a second time: %s", in.EndInfo().Reason)
		return
	}
	start := time.Now()
	_ = in.Process().Signal(syscall.SIGTERM)
	t := time.NewTimer(promptExit)
	defer t.Stop()
	select {
	case <-in.Process().Exited():
		r.step("exits on SIGTERM", true, "exited %v after SIGTERM (%s)", time.Since(start).Round(time.Millisecond), in.Process().ExitStatus())
	case <-t.C:
		r.step("exits on SIGTERM", false, "still running %v after SIGTERM", promptExit)
		r.find("C-X2", SevWarning, "the Tick did not exit within %v of SIGTERM (spec 4.5)", promptExit)
	}
}
