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
	"slices"
	"time"

	"tickmux/host"
)

// Severity of a finding.
const (
	// SevViolation: the Tick broke the protocol and the host ended its session (H-V1).
	SevViolation = "violation"
	// SevFailure: the Tick broke a MUST; the request failed or initialization did.
	SevFailure = "failure"
	// SevWarning: the Tick ignored a SHOULD.
	SevWarning = "warning"
	// SevNote: the Tick strays from the draft's informative advice (text without a MUST or a
	// SHOULD, such as 6.4's "illustrative suggestions").
	SevNote = "note"
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
	// CallTimeout bounds the wait for each probe's tick/call answer; zero means 60 s, the
	// draft's own bound (7.3). With a longer one, an answer that came after 60 s is reported with
	// its time (C-K5).
	CallTimeout time.Duration
	// lateCall replaces the 60 s of C-K5 in tests.
	lateCall time.Duration
	// exitWait replaces promptExit (C-X1, C-X2) in tests: a conforming Tick built with -race, on
	// a machine loaded by the whole suite, once took longer than 2 s to end.
	exitWait time.Duration
	// Logf receives the host's log; nil discards it.
	Logf func(format string, args ...any)
	// Progress, when not nil, is told each step as it is done (tickmux check prints them as
	// they come, not all at the end).
	Progress func(Step)
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
	// warn: the step did not pass, but the findings made while it ran are warnings or notes
	// only, which leave the verdict a pass (Mark says WARN, not FAIL).
	warn bool
}

// Mark is how the text report marks the step: "ok", "WARN" (it did not pass, but only a SHOULD
// or advice was missed: the verdict can still be PASS) or "FAIL".
func (s Step) Mark() string {
	switch {
	case s.OK:
		return "ok"
	case s.warn:
		return "WARN"
	}
	return "FAIL"
}

// Report is the verdict. Its JSON form is what `tickmux check --json` prints.
type Report struct {
	OK         bool            `json:"ok"`
	Descriptor json.RawMessage `json:"descriptor"`
	State      *StateReport    `json:"state"`
	Findings   []Finding       `json:"findings"`
	Ended      *Ended          `json:"ended"`
	Steps      []Step          `json:"steps"`

	progress  func(Step) // Options.Progress
	stepsFrom int        // the findings made since the last step begin here
}

func (r *Report) find(rule, severity, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Rule: rule, Severity: severity, Message: fmt.Sprintf(format, args...)})
}

// step records a step and tells Options.Progress. A step that did not pass is marked WARN when
// the findings made since the step before (its own: each probe records its findings, then its
// step) are all warnings or notes, and FAIL otherwise, with none among them too: what ended the
// session is a finding made later.
func (r *Report) step(name string, ok bool, format string, args ...any) {
	s := Step{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)}
	if !ok && r.stepsFrom < len(r.Findings) {
		s.warn = true
		for _, f := range r.Findings[r.stepsFrom:] {
			if f.Severity == SevViolation || f.Severity == SevFailure {
				s.warn = false
			}
		}
	}
	r.stepsFrom = len(r.Findings)
	r.Steps = append(r.Steps, s)
	if r.progress != nil {
		r.progress(s)
	}
}

// Counts returns how many findings of each severity there are.
func (r *Report) Counts() (violations, failures, warnings, notes int) {
	for _, f := range r.Findings {
		switch f.Severity {
		case SevViolation:
			violations++
		case SevFailure:
			failures++
		case SevNote:
			notes++
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

// Run checks the Tick. The error is non-nil only when the command could not be started, or when
// ctx ended first (Ctrl-C): then the report holds the steps done so far, and no verdict. Every
// way the Tick itself fails is a finding in the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Watch <= 0 {
		opts.Watch = 2 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = host.CallTimeout
	}
	r := &Report{Findings: []Finding{}, Steps: []Step{}, progress: opts.Progress}
	h := host.New(host.Config{Logf: opts.Logf}) // no approver: nothing mutating can go out
	defer h.Close()

	in, err := h.Open(host.OpenSpec{Argv: opts.Argv, Dir: opts.Dir, Env: opts.Env})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotStart, err)
	}
	lint := &sendLint{}
	ids := watchInstanceID(h, in, lint)
	defer ids.stop()
	started := time.Now()
	select {
	case <-in.Ready():
	case <-ctx.Done():
		in.Close()
		return r, ctx.Err()
	}
	if in.Status() != host.StatusReady {
		endFindings(r, in)
		r.step("initialize", false, "%s", host.Printable(in.EndInfo().Reason, false))
		finish(r, in)
		return r, nil
	}
	cat := in.Catalog()
	r.Descriptor = strictJSON(cat.Raw)
	d := cat.Descriptor
	r.step("initialize", true, "ready in %v: %q (%s), revision %q, %d tools",
		time.Since(started).Round(time.Millisecond), d.Title, d.Kind, d.Revision, len(d.Tools))
	lintDescriptor(r, cat)

	if opts.exitWait <= 0 {
		opts.exitWait = promptExit
	}
	if opts.lateCall <= 0 {
		opts.lateCall = host.CallTimeout
	}
	c := &checker{r: r, in: in, sess: in.Session(), cat: cat, callTimeout: opts.CallTimeout, lateCall: opts.lateCall, exitWait: opts.exitWait, ids: ids, lint: lint, dir: opts.Dir}
	c.saw("the tick/describe result", cat.Raw)
	lint.margin("the tick/describe result", cat.Raw, host.MaxDescribeBytes)
	lint.state("the first state", in.State().Data, host.MaxReadBytes)
	c.watch(ctx, opts.Watch)
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	probes := []struct {
		name string
		run  func(context.Context)
	}{
		{"describe and read twice", c.probeTwice},
		{"describe and read change nothing", c.probeNoSideEffects},
		{"a query changes nothing", c.probeQueryNoEffects},
		{"eight requests at once", c.probeEight},
		{"unknown params are ignored", c.probeUnknownParams},
		{"revision before tool", c.probeRevisionFirst},
		{"stale revision gets -32004", c.probeStaleRevision},
		{"unknown tool gets -32602", c.probeUnknownTool},
		{"args that do not fit get -32602", c.probeBadArgs},
		{"unknown method gets -32601", c.probeUnknownMethod},
		{"describe and read during a call", c.probeWhileCalling},
	}
	var skipped []string
	for _, p := range probes {
		if !c.alive() {
			skipped = append(skipped, p.name)
			continue
		}
		r.stepsFrom = len(r.Findings) // a step's findings are its probe's
		p.run(ctx)
		if ctx.Err() != nil {
			return r, ctx.Err() // interrupted: what the probe saw then is no finding
		}
	}
	c.sessionCounters()
	lintState(r, in.State())
	if c.alive() {
		r.stepsFrom = len(r.Findings)
		c.probeEOF(ctx)
	} else {
		skipped = append(skipped, "exits on EOF")
	}
	ids.stop()
	c.instanceIDFindings()
	c.lintFindings()
	r.stepsFrom = len(r.Findings)
	c.skippedFindings(skipped)
	endFindings(r, in)
	finish(r, in)

	// SIGTERM and stderr need a second run: the first has ended.
	if noFindingsOtherThanWarnings(r) {
		r.stepsFrom = len(r.Findings)
		probeSecondRun(ctx, r, h, opts)
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
	}
	v, f, _, _ := r.Counts()
	r.OK = v == 0 && f == 0
	return r, nil
}

func noFindingsOtherThanWarnings(r *Report) bool {
	v, f, _, _ := r.Counts()
	return v == 0 && f == 0
}

// finish ends the instance, records how it ended and the state it left.
func finish(r *Report, in *host.Instance) {
	in.Close()
	if e := in.EndInfo(); e != nil {
		r.Ended = &Ended{Reason: e.Reason, Screen: e.Screen}
	}
	if st := in.State(); st.Valid {
		r.State = &StateReport{Seq: st.Seq, Data: strictJSON(st.Data), At: st.At}
	}
	v, f, _, _ := r.Counts()
	r.OK = v == 0 && f == 0
}

// endFindings turns a protocol end (violation, failed initialization) into findings: H-I1 for a
// failed initialization, beside the most precise rule behind it (host.RuleOf: H-RD1, H-RD3,
// H-M6, H-D1, …).
func endFindings(r *Report, in *host.Instance) {
	e := in.EndInfo()
	if e == nil {
		return
	}
	sev := SevFailure
	var v *host.Violation
	if errors.As(e.Err, &v) {
		sev = SevViolation
	}
	var rules []string
	if e.DuringInit {
		rules = append(rules, "H-I1")
	}
	precise := preciseRule(e.Err)
	for _, rule := range []string{e.Rule, precise} {
		if rule != "" && !slices.Contains(rules, rule) {
			rules = append(rules, rule)
		}
	}
	reason := retag(e.Reason, host.RuleOf(e.Err), precise)
	for _, rule := range rules {
		sv := sev
		if rule == "H-I1" {
			sv = SevFailure // initialization failed; the violation, if any, is the other finding
		}
		if !r.has(rule, reason) {
			r.find(rule, sv, "%s", reason)
		}
	}
}

func (r *Report) has(rule, message string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule && f.Message == message {
			return true
		}
	}
	return false
}
