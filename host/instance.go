package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"tickmux/host/journal"
	"tickmux/tick/wire"
	"tickmux/vt"
)

// Status is where an instance is in its life.
type Status int

const (
	StatusStarting Status = iota // launched, initialization under way (shells skip this)
	StatusReady                  // initialized: clients may see and use it
	StatusEnded                  // the process or the session ended; see EndInfo
)

func (s Status) String() string {
	switch s {
	case StatusStarting:
		return "starting"
	case StatusReady:
		return "ready"
	case StatusEnded:
		return "ended"
	}
	return "unknown"
}

// Instance id prefixes (H-D3).
const (
	PrefixHosted   = "hosted:"
	PrefixShell    = "shell:"
	PrefixArtifact = "artifact:" // reserved
)

// EndInfo says why an instance ended.
type EndInfo struct {
	// Reason is a sentence for a person: "protocol violation (H-U1): …", "the Tick exited".
	Reason string
	// Err is the cause (a *Violation, a *DescriptorError, a *CallError …).
	Err error
	// Rule is the HOST.md id behind the end, when a rule was broken.
	Rule string
	// DuringInit is true when initialization failed (H-I1): the instance never became ready.
	DuringInit bool
	// Screen is the first 256 characters of the view's screen when the instance ended.
	Screen string
	// ExitCode and ExitStatus describe how the process ended, once it has (ExitCode -1 while
	// unknown or when a signal ended it).
	ExitCode   int
	ExitStatus string
	At         time.Time
}

// StateInfo is the latest state of a Tick (H-U2: only the latest is kept).
type StateInfo struct {
	Valid    bool            // false until the first read or update
	Seq      uint64          //
	Data     json.RawMessage // compact; "null" means no content yet
	At       string          // the Tick's at, or the receipt time when it sent none (H-RD3)
	Received time.Time
	// Updates is how many tick/update notifications arrived since launch.
	Updates uint64
	// Repeats is how many of them carried the same data as the update before (compact bytes
	// equal): a redraw, not the business change an update stands for (spec 8.3). check reports it.
	Repeats uint64
}

// CallRecord is one call by a client, for the side panel's recent calls.
type CallRecord struct {
	ID       uint64
	Client   string
	Tool     string
	Args     json.RawMessage
	Revision string
	Mutates  bool
	Started  time.Time
	Finished time.Time // zero while running
	// Approval: "" (not needed), "pending", "approved", "granted" (by an earlier allow-for-
	// revision), "denied", "voided", "withdrawn".
	Approval string
	OK       bool
	Error    string      // the failure, for a person
	Effect   wire.Effect // of a failure (H-E1)
	// Change is the state change the call made, as the journal has it (nil: not known), and
	// Merged the other updates it includes (journal.Entry).
	Change journal.Patch
	Merged int

	// AnsweredBy is the view whose key answered the card ("view 2 /dev/pts/5"), when known.
	AnsweredBy string
}

// maxRecentCalls bounds the recent-call list per instance.
const maxRecentCalls = 64

// seqHistory is how many update seqs are kept to count merged updates exactly.
const seqHistory = 4096

// Instance is one program hosted in a pane: a Tick (hosted:N) or a plain program (shell:N).
type Instance struct {
	id      string
	isTick  bool
	host    *Host
	spec    LaunchSpec
	proc    *Process
	sess    *Session // nil for shells
	started time.Time

	ready   chan struct{} // closed when the instance leaves StatusStarting
	endedCh chan struct{} // closed when it reaches StatusEnded
	exitWG  sync.WaitGroup

	mu          sync.Mutex
	status      Status
	everReady   bool
	end         *EndInfo
	catalog     *Catalog
	state       StateInfo
	seqs        []uint64 // the last seqHistory (up to twice that) update seqs, oldest first
	rate        rateCounter
	calls       []CallRecord
	nextCall    uint64
	voiders     map[uint64]voider
	nextVoider  uint64
	sticky      stickyMutates // mutates at the current revision (mutates.go)
	closeReason error
}

// voider cancels an approval wait when the catalog leaves its revision (H-K3).
type voider struct {
	revision string
	cancel   context.CancelCauseFunc
}

// ID is the instance id, such as "hosted:3" or "shell:1".
func (in *Instance) ID() string { return in.id }

// IsTick tells a Tick from a plain program.
func (in *Instance) IsTick() bool { return in.isTick }

// Argv is the command as given; Dir the working directory.
func (in *Instance) Argv() []string { return append([]string(nil), in.spec.Argv...) }

// Sandboxed reports whether the program runs in a sandbox (sandbox.go).
func (in *Instance) Sandboxed() bool { return in.spec.Sandbox != nil }

// Dir is the working directory the instance was started in ("" for tickmux's own).
func (in *Instance) Dir() string { return in.spec.Dir }

// Process is the running program: its terminal, input and size.
func (in *Instance) Process() *Process { return in.proc }

// Terminal is the emulated screen of the instance's view.
func (in *Instance) Terminal() *vt.Terminal { return in.proc.Terminal() }

// Started is when the instance was launched.
func (in *Instance) Started() time.Time { return in.started }

// Ready is closed when initialization has finished, successfully or not.
func (in *Instance) Ready() <-chan struct{} { return in.ready }

// Ended is closed when the instance has ended.
func (in *Instance) Ended() <-chan struct{} { return in.endedCh }

// Status returns the lifecycle state.
func (in *Instance) Status() Status {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.status
}

// Visible reports whether clients may see the instance: a Tick that never finished
// initialization never appears to them (H-I1).
func (in *Instance) Visible() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return !in.isTick || in.everReady
}

// EndInfo returns why the instance ended, or nil while it runs.
func (in *Instance) EndInfo() *EndInfo {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.end == nil {
		return nil
	}
	e := *in.end
	return &e
}

// Catalog returns the current catalog, nil before initialization and for shells.
func (in *Instance) Catalog() *Catalog {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.catalog
}

// Title is the catalog's title, or the command for a shell or a Tick not yet described.
func (in *Instance) Title() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.catalog != nil {
		return in.catalog.Descriptor.Title
	}
	return strings.Join(in.spec.Argv, " ")
}

// State returns the latest state.
func (in *Instance) State() StateInfo {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.state
}

// MergedSince counts the updates received with a seq above seq: how many were folded into the
// latest state for a client that last saw seq (H-U2). Exact for the last 4096 updates; beyond
// that it counts every update kept in history plus those before it.
func (in *Instance) MergedSince(seq uint64) uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	i := sort.Search(len(in.seqs), func(i int) bool { return in.seqs[i] > seq })
	if i == 0 {
		return in.state.Updates // all we know is older than seq's neighbourhood
	}
	return uint64(len(in.seqs) - i)
}

// UpdateRate returns the updates received in each of the last n seconds, oldest first.
func (in *Instance) UpdateRate(n int) []int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.rate.last(time.Now(), n)
}

// Calls returns the recent calls, oldest first.
func (in *Instance) Calls() []CallRecord {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]CallRecord(nil), in.calls...)
}

// GuardError says why no guardian watches the instance's processes (see Process.GuardError), ""
// while one does. Views show it on the pane.
func (in *Instance) GuardError() string {
	if err := in.proc.GuardError(); err != nil {
		return err.Error()
	}
	return ""
}

// Session is the protocol session (nil for shells). Clients use Call, Describe and Read;
// the session is for probes that must bend the rules on purpose (tickmux check).
func (in *Instance) Session() *Session { return in.sess }

// SessionStats returns the protocol session's counters (zero for shells).
func (in *Instance) SessionStats() SessionStats {
	if in.sess == nil {
		return SessionStats{}
	}
	return in.sess.Stats()
}

// initialize runs describe then read within InitTimeout of launch (H-I1).
func (in *Instance) initialize() {
	deadline, cancelDeadline := context.WithDeadline(context.Background(), in.started.Add(in.host.initTimeout))
	defer cancelDeadline()
	ctx, cancel := context.WithCancelCause(deadline)
	defer cancel(nil)
	go func() { // owner: initialize; exits when initialization ends or the session does
		select {
		case <-in.sess.Done():
			// With its cause, so failInit reports the session's own end reason (a violation,
			// say), not "context canceled", whichever of the request's waits saw it first.
			cancel(ErrSessionEnded)
		case <-ctx.Done():
		}
	}()

	cat, err := in.sess.Describe(ctx, in.host.initTimeout)
	if err != nil {
		in.failInit("tick/describe", err)
		return
	}
	in.mu.Lock()
	in.catalog = cat
	in.noteCatalog(cat)
	in.mu.Unlock()

	st, err := in.sess.Read(ctx, in.host.initTimeout)
	if err != nil {
		in.failInit("tick/read", err)
		return
	}
	in.mu.Lock()
	if in.status != StatusStarting {
		in.mu.Unlock()
		return
	}
	in.storeState(st, time.Now(), false)
	in.status = StatusReady
	in.everReady = true
	// Under the lock that finish also takes to leave StatusStarting: ready is closed once.
	close(in.ready)
	in.mu.Unlock()
	in.host.bus.post(EventCatalog, in.id)
	in.host.bus.post(EventState, in.id)
	in.host.bus.post(EventStatus, in.id)
	tools := "tools"
	if len(cat.Descriptor.Tools) == 1 {
		tools = "tool"
	}
	in.host.logf("%s ready: %.200q (kind %.200q, revision %.200q, %d %s)", in.id, cat.Descriptor.Title, cat.Descriptor.Kind, cat.Revision(), len(cat.Descriptor.Tools), tools)
}

// failInit ends an instance whose initialization failed (H-I1); the session's own end reason wins
// when the session ended first (a violation is more precise than "request failed").
func (in *Instance) failInit(step string, err error) {
	rule := ruleOf(err)
	var ce *CallError
	if errors.As(err, &ce) && errors.Is(err, ErrSessionEnded) {
		if se := in.sess.Err(); se != nil {
			err, rule = se, ruleOf(se)
		}
	}
	if rule == "" {
		rule = "H-I1"
	}
	msg := err.Error()
	if errors.As(err, &ce) {
		msg = ce.Message // the effect of an initialization request means nothing to a person
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		err = fmt.Errorf("%w: no answer to %s within %v of launch", ErrTimeout, step, in.host.initTimeout)
		msg = err.Error()
	}
	in.finish(&EndInfo{
		Reason:     fmt.Sprintf("initialization failed at %s: %s", step, msg),
		Err:        err,
		Rule:       rule,
		DuringInit: true,
	})
}

func ruleOf(err error) string {
	var v *Violation
	if errors.As(err, &v) {
		return v.Rule
	}
	var de *DescriptorError
	if errors.As(err, &de) {
		return de.Rule
	}
	return ""
}

// onUpdate runs on the session's reader with the latest valid tick/update and the seqs of every
// update folded into it.
func (in *Instance) onUpdate(st wire.State, seqs []uint64, received time.Time) {
	in.mu.Lock()
	in.state.Updates += uint64(len(seqs))
	if in.sess != nil {
		in.state.Repeats = in.sess.stats.repeats.Load() // counted by the reader, which calls this
	}
	in.seqs = append(in.seqs, seqs...)
	if len(in.seqs) >= 2*seqHistory { // the last seqHistory to the front, in the same array
		in.seqs = append(in.seqs[:0], in.seqs[len(in.seqs)-seqHistory:]...)
	}
	in.rate.add(received, len(seqs))
	in.storeState(st, received, true)
	in.mu.Unlock()
	in.host.bus.post(EventState, in.id)
}

// storeState keeps st as the latest state unless a newer one is held. Called with in.mu held.
func (in *Instance) storeState(st wire.State, received time.Time, fromUpdate bool) {
	if in.state.Valid && st.Seq < in.state.Seq {
		return // a read answered with an older state than an update that overtook it (H-RD2)
	}
	at := st.At
	if at == "" {
		at = received.UTC().Format(time.RFC3339Nano) // H-RD3
	}
	in.state.Valid = true
	in.state.Seq = st.Seq
	in.state.Data = st.Data
	in.state.At = at
	in.state.Received = received
}

// onSessionEnd runs once when the protocol session ends for any reason.
func (in *Instance) onSessionEnd(reason error) {
	info := &EndInfo{Reason: reason.Error(), Err: reason, Rule: ruleOf(reason)}
	in.mu.Lock()
	if in.closeReason != nil {
		info.Reason, info.Err, info.Rule = in.closeReason.Error(), in.closeReason, ""
	}
	in.mu.Unlock()
	// Run the end from its own goroutine: finish terminates the process and waits for it, and
	// this hook runs on the session's reader.
	go func() { // owner: the instance; returns once the process is reaped
		if errors.Is(reason, ErrStdoutClosed) {
			// Usually the Tick exited: say so, with its status, rather than "closed its stdout".
			select {
			case <-in.proc.Exited():
				info.Reason = fmt.Sprintf("the Tick exited (%s)", in.proc.ExitStatus())
				info.Err = errors.New(info.Reason)
			case <-time.After(100 * time.Millisecond):
			}
		}
		in.finish(info)
	}()
}

// finish ends the instance: the status becomes ended, the process group is terminated, and the
// end is reported once. Later calls only fill in what the first one could not know.
func (in *Instance) finish(info *EndInfo) {
	in.mu.Lock()
	first := in.end == nil
	if first && in.isTick && !in.everReady && !info.DuringInit && in.closeReason == nil {
		// Whatever ended a Tick before it was ready failed its initialization (H-I1).
		info.DuringInit = true
		info.Reason = "initialization failed: " + info.Reason
		if info.Rule == "" {
			info.Rule = "H-I1"
		}
	}
	if first {
		info.At = time.Now()
		info.ExitCode = -1
		in.end = info
		in.status = StatusEnded
		for id, v := range in.voiders {
			v.cancel(fmt.Errorf("%w: the instance ended", ErrSessionEnded))
			delete(in.voiders, id)
		}
		// initialize closes ready under this lock only while the status is starting, which
		// this section has just ended: exactly one of the two closes it.
		select {
		case <-in.ready:
		default:
			close(in.ready)
		}
	}
	in.mu.Unlock()
	if !first {
		return
	}
	if in.sess != nil {
		in.sess.end(errors.New(info.Reason))
	}
	in.host.bus.post(EventStatus, in.id)
	in.host.logf("%s ended: %s", in.id, info.Reason)

	in.proc.Terminate()
	// Let the last output reach the screen before taking the excerpt.
	select {
	case <-in.proc.OutputDone():
	case <-time.After(200 * time.Millisecond):
	}
	in.mu.Lock()
	in.end.ExitCode = in.proc.ExitCode()
	in.end.ExitStatus = in.proc.ExitStatus()
	in.end.Screen = screenExcerpt(in.proc.Terminal().Text(), 256)
	in.mu.Unlock()
	close(in.endedCh)
	in.host.bus.post(EventStatus, in.id)
	if f, ok := in.host.approver.(InstanceForgetter); ok {
		f.ForgetInstance(in.id)
	}
}

// watchExit ends the instance when its process exits on its own (H-X2). It runs once the process
// has exited (Process.WhenExited), and does nothing if the instance had ended before.
func (in *Instance) watchExit() {
	defer in.exitWG.Done()
	select {
	case <-in.endedCh:
		return
	default:
	}
	what := "the program"
	if in.isTick {
		what = "the Tick"
	}
	reason := fmt.Errorf("%s exited (%s)", what, in.proc.ExitStatus())
	in.mu.Lock()
	if in.closeReason != nil {
		reason = in.closeReason
	}
	in.mu.Unlock()
	info := &EndInfo{Reason: reason.Error(), Err: reason}
	if in.sess != nil {
		// Read what the Tick wrote before exiting, then end: requests in flight become unknown.
		select {
		case <-in.sess.Done():
		case <-time.After(100 * time.Millisecond):
		}
		in.sess.end(reason)
		// A violation that ended the session is why the Tick died (a SIGPIPE after the host
		// stopped reading, say): it is the reason to report.
		if se := in.sess.Err(); ruleOf(se) != "" {
			info = &EndInfo{Reason: se.Error(), Err: se, Rule: ruleOf(se)}
		}
	}
	in.finish(info)
}

// ErrClosed is the end reason of an instance closed by the person or a client.
var ErrClosed = errors.New("closed")

// Close ends the instance (SIGTERM, SIGKILL after 2 s, H-X1) and waits until it has ended.
func (in *Instance) Close() {
	in.mu.Lock()
	if in.closeReason == nil {
		in.closeReason = ErrClosed
	}
	in.mu.Unlock()
	in.finish(&EndInfo{Reason: ErrClosed.Error(), Err: ErrClosed})
	<-in.endedCh
	in.exitWG.Wait()
	in.proc.Close()
}

// screenExcerpt is the first n characters of a screen's text, trailing blank space dropped.
func screenExcerpt(text string, n int) string {
	text = strings.TrimRight(text, " \n")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	i := 0
	for pos := range text {
		if i == n {
			return text[:pos]
		}
		i++
	}
	return text
}

// rateCounter counts updates per second over the last minute.
type rateCounter struct {
	base    int64 // unix second of buckets[0]
	buckets [60]int
}

func (r *rateCounter) roll(now int64) {
	if r.base == 0 {
		r.base = now - 59
	}
	shift := now - 59 - r.base
	if shift <= 0 {
		return
	}
	if shift >= 60 {
		r.buckets = [60]int{}
	} else {
		copy(r.buckets[:], r.buckets[shift:])
		for i := 60 - int(shift); i < 60; i++ {
			r.buckets[i] = 0
		}
	}
	r.base = now - 59
}

func (r *rateCounter) add(t time.Time, n int) {
	now := t.Unix()
	r.roll(now)
	if i := now - r.base; i >= 0 && i < 60 {
		r.buckets[i] += n
	}
}

func (r *rateCounter) last(t time.Time, n int) []int {
	if n > 60 {
		n = 60
	}
	r.roll(t.Unix())
	out := make([]int, n)
	copy(out, r.buckets[60-n:])
	return out
}
