package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"tickmux/tick/wire"
)

// MaxInFlight is how many requests may await their answer at once (H-C1).
const MaxInFlight = 8

// Timeouts (limits table).
const (
	InitTimeout = 10 * time.Second // each initialization request, and initialization in all
	CallTimeout = 60 * time.Second // tick/call
)

// ErrStdoutClosed ends a session whose Tick closed its stdout, usually by exiting.
var ErrStdoutClosed = errors.New("the Tick closed its stdout")

// SessionHooks are how a Session reports what arrives. They run on the session's reader goroutine
// and must not block.
type SessionHooks struct {
	// Update receives the latest valid tick/update (H-U1 checked) with the time it arrived,
	// and seqs, the seqs of every update folded into it since the last call, oldest first, its
	// own last. Updates that came in one read are checked one by one and delivered once (H-U2:
	// only the latest state is kept). seqs is valid only during the call.
	Update func(st wire.State, seqs []uint64, received time.Time)
	// End is called once, with the reason, when the session ends.
	End func(reason error)
	// Logf records what is worth a line in the log (dropped responses, ignored notifications).
	Logf func(format string, args ...any)
}

// Session is one protocol conversation with a Tick over its stdin and stdout (spec 3).
//
// One reader goroutine owns stdout: it classifies every line, retires pending requests and
// checks updates; it stops at the end of output, at the first violation, or at Close. All other
// session state lives in the fields under mu and is changed only by the methods below.
type Session struct {
	w     io.WriteCloser // the Tick's stdin
	r     io.ReadCloser  // the Tick's stdout
	hooks SessionHooks

	wmu   sync.Mutex    // one whole line per write (H-T2)
	slots chan struct{} // a token per request in flight (H-C1)
	done  chan struct{} // closed when the session has ended
	read  chan struct{} // closed when the reader goroutine has returned

	mu            sync.Mutex
	nextID        uint64
	pending       map[uint64]*pending
	endErr        error
	lastUpdateSeq uint64
	haveUpdate    bool
	lastReadSeq   uint64
	haveRead      bool

	stats  sessionCounters
	ingest *ingester // reads the Tick while it is busy

	// The reader's own: the latest update not delivered yet and the seqs folded into it. Its
	// data may point into the line reader's buffer until deliver copies it.
	latest   wire.State
	latestAt []byte // latest's at as the JSON string came (nil: absent); latest.At is set by deliver
	merged   []uint64
	// lastData is the data of the last update delivered (a copy), to count repeats across reads.
	lastData json.RawMessage
	// lineAt is when the first bytes of the line being dispatched were read; partialAt, when
	// those of the unfinished line buffered were (zero when none is).
	lineAt, partialAt time.Time
}

// pending is one request in flight. Exactly one of reader, timeout or end retires it, and the one
// that removes it from the table releases its slot.
type pending struct {
	method string
	floor  uint64 // tick/read: the read floor noted when sending (H-RD1)
	hasFlr bool
	reply  chan reply // buffered 1
	obs    *Observer  // nil: nobody watches
}

// Observer is told when a call's line is about to be written and when its result is read, on
// the reader before the caller learns it: with the updates the reader stored in between, the
// journal knows the states before and after a call exactly. Both must be quick.
type Observer struct {
	BeforeSend func()
	AtReply    func()
	// Arrived, when set, is told when the answer's first bytes reached the line reader: before
	// the rest was read (at the reader's pace) and before any of it was parsed or validated
	// (check times answers with it, not with the host's reading or its own processing).
	Arrived func(at time.Time)
}

type reply struct {
	result json.RawMessage
	err    *CallError
}

// sessionCounters are read with atomics; they are statistics, not state.
type sessionCounters struct {
	lines          atomic.Uint64
	updates        atomic.Uint64
	ignoredNotifs  atomic.Uint64 // H-M3
	tickRequests   atomic.Uint64 // H-M7
	droppedReplies atomic.Uint64 // H-M4
	repeats        atomic.Uint64 // updates whose data equals the update's before (spec 8.3)
}

// SessionStats are the session's counters.
type SessionStats struct {
	Lines                uint64 // protocol lines read
	Updates              uint64 // valid tick/update notifications
	IgnoredNotifications uint64 // notifications other than tick/update (H-M3)
	TickRequests         uint64 // requests from the Tick, ignored (H-M7)
	DroppedResponses     uint64 // responses matching no request in flight (H-M4)
	InFlight             int
	LastUpdateSeq        uint64
	HaveUpdate           bool
	LastReadSeq          uint64
	HaveRead             bool
	EndReason            error
}

// NewSession starts a session on a Tick's stdin (w) and stdout (r). The session owns both: it
// closes them when it ends.
func NewSession(w io.WriteCloser, r io.ReadCloser, hooks SessionHooks) *Session {
	s := newSession(w, r, hooks)
	s.start()
	return s
}

// newSession makes a session whose reader has not started yet, so its owner can publish it
// before any hook runs.
func newSession(w io.WriteCloser, r io.ReadCloser, hooks SessionHooks) *Session {
	if f, ok := r.(*os.File); ok {
		if pr, err := newPipeReader(f); err == nil {
			r = pr // read out of the poller while the Tick floods (see pipeReader)
		}
	}
	return &Session{
		w:       w,
		r:       r,
		hooks:   hooks,
		slots:   make(chan struct{}, MaxInFlight),
		done:    make(chan struct{}),
		read:    make(chan struct{}),
		pending: map[uint64]*pending{},
		ingest:  theIngester,
	}
}

func (s *Session) start() {
	go s.readLoop() // owner: s; exits at end of output, the first violation, or Close
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is why the session ended, nil while it runs.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endErr
}

// Close ends the session with reason (if it has not ended already) and waits for the reader.
func (s *Session) Close(reason error) {
	s.end(reason)
	<-s.read
}

// Stats returns the session's counters.
func (s *Session) Stats() SessionStats {
	s.mu.Lock()
	st := SessionStats{
		InFlight:      len(s.pending),
		LastUpdateSeq: s.lastUpdateSeq,
		HaveUpdate:    s.haveUpdate,
		LastReadSeq:   s.lastReadSeq,
		HaveRead:      s.haveRead,
		EndReason:     s.endErr,
	}
	s.mu.Unlock()
	st.Lines = s.stats.lines.Load()
	st.Updates = s.stats.updates.Load()
	st.IgnoredNotifications = s.stats.ignoredNotifs.Load()
	st.TickRequests = s.stats.tickRequests.Load()
	st.DroppedResponses = s.stats.droppedReplies.Load()
	return st
}

// end retires every pending request as unknown, exactly once, and closes the pipes.
func (s *Session) end(reason error) {
	s.mu.Lock()
	if s.endErr != nil {
		s.mu.Unlock()
		return
	}
	if reason == nil {
		reason = ErrSessionEnded
	}
	s.endErr = reason
	retired := s.pending
	s.pending = map[uint64]*pending{}
	s.mu.Unlock()

	for _, p := range retired {
		<-s.slots
		p.reply <- reply{err: failUnknown(errors.Join(ErrSessionEnded, reason),
			"the Tick's session ended before it answered: %v", reason)}
	}
	close(s.done)
	s.w.Close()
	s.r.Close()
	if s.hooks.End != nil {
		s.hooks.End(reason)
	}
}

func (s *Session) logf(format string, args ...any) {
	if s.hooks.Logf != nil {
		s.hooks.Logf(format, args...)
	}
}

// readLoop is the one reader of the Tick's stdout: it waits for output on its own goroutine,
// and while the Tick is busy it hands the reading to the ingester (ingest.go).
func (s *Session) readLoop() {
	defer close(s.read)
	pr := newPacedReader(s.r, ReadPace, s.done)
	pr.slots = ingestSlots // one processor stays free for the keys (pace.go)
	lb := newLineBuf(MaxLineBytes)
	src, _ := s.r.(tryReader)
	for {
		n, err := lb.fill(pr.Read)
		reason := s.handle(lb)
		pr.release()
		if reason == nil && err != nil {
			reason = readEndReason(lb.endReason(err))
		}
		if reason == nil && n > 0 && src != nil {
			// Output came: the ingester reads the Tick from now on, until it is quiet again.
			reason = s.ingest.adopt(s, lb, src)
		}
		if reason != nil {
			s.end(reason)
			return
		}
	}
}

// handle classifies and dispatches every whole line buffered, then delivers the latest update,
// before the next read may reuse the lines' memory. It returns the violation (or the reader's
// error) that ends the session, if any.
func (s *Session) handle(lb *lineBuf) error {
	now := time.Now()
	var err error
	lines := uint64(0)
	for {
		line, ok, lerr := lb.line()
		if lerr != nil {
			err = readEndReason(lerr)
			break
		}
		if !ok {
			break
		}
		s.lineAt = now
		if !s.partialAt.IsZero() {
			s.lineAt, s.partialAt = s.partialAt, time.Time{} // the line began in an earlier read
		}
		lines++
		var m message
		if m, err = classify(line); err == nil {
			err = s.dispatch(m)
		}
		if err != nil {
			break
		}
	}
	if lb.r < lb.w && s.partialAt.IsZero() {
		s.partialAt = now // a line begun in this read
	}
	s.stats.lines.Add(lines)
	if len(s.merged) > 0 {
		s.deliver()
	}
	return err
}

// deliver passes the latest update, with the seqs folded into it, to the Update hook.
func (s *Session) deliver() {
	st := s.latest
	st.Data = append(json.RawMessage(nil), st.Data...) // out of the line reader's buffer
	if s.latestAt != nil {
		st.At = atText(s.latestAt) // one string per delivery, not per update
	}
	s.lastData = st.Data
	if s.hooks.Update != nil {
		s.hooks.Update(st, s.merged, time.Now())
	}
	s.latest, s.latestAt, s.merged = wire.State{}, nil, s.merged[:0]
}

// readEndReason turns the reader's error into why the session ended.
func readEndReason(err error) error {
	switch {
	case errors.Is(err, errLineTooLong):
		return violation("H-V2", "a line is longer than %d bytes (8 MiB)", MaxLineBytes)
	case errors.Is(err, errNoFinalNewline):
		return violation("H-V2", "the Tick's output ended without a final newline")
	case errors.Is(err, io.EOF):
		return ErrStdoutClosed
	case errors.Is(err, os.ErrClosed):
		return ErrSessionEnded
	}
	return fmt.Errorf("reading the Tick's stdout: %w", err)
}

func (s *Session) dispatch(m message) error {
	switch m.kind {
	case msgTickRequest:
		s.stats.tickRequests.Add(1)
		s.logf("ignored a request from the Tick (method %q, id %s): the protocol forbids them (H-M7)", m.method, m.idText)
	case msgNotification:
		s.stats.ignoredNotifs.Add(1)
		s.logf("ignored a notification %q from the Tick (H-M3)", m.method)
	case msgUpdate:
		return s.acceptUpdate(m.update, m.at)
	case msgResponse:
		if len(s.merged) > 0 {
			s.deliver() // the updates before a response are seen before its caller goes on
		}
		s.acceptResponse(m)
	}
	return nil
}

// acceptUpdate checks the update's seq in arrival order (H-C3, H-U1) and holds it as the latest
// for deliver.
func (s *Session) acceptUpdate(st wire.State, at []byte) error {
	s.mu.Lock()
	if s.haveUpdate && st.Seq <= s.lastUpdateSeq {
		last := s.lastUpdateSeq
		s.mu.Unlock()
		return violation("H-U1", "a tick/update has seq %d, not greater than the previous update's %d", st.Seq, last)
	}
	s.lastUpdateSeq, s.haveUpdate = st.Seq, true
	s.mu.Unlock()
	s.stats.updates.Add(1)
	// The same data as the update before (in this read, or the last delivered): a redraw sent as
	// news, which check reports (spec 8.3). Compared byte for byte as the Tick wrote it.
	prev := s.lastData
	if len(s.merged) > 0 {
		prev = s.latest.Data
	}
	if prev != nil && bytes.Equal(prev, st.Data) {
		s.stats.repeats.Add(1)
	}
	s.latest, s.latestAt = st, at
	s.merged = append(s.merged, st.Seq)
	return nil
}

// acceptResponse retires the request the response answers; an unmatched one is dropped (H-M4).
func (s *Session) acceptResponse(m message) {
	s.mu.Lock()
	p, ok := s.pending[m.id]
	if !ok || !m.idOK {
		s.mu.Unlock()
		s.stats.droppedReplies.Add(1)
		s.logf("dropped a response with id %d: no request in flight has that id (H-M4)", m.id)
		return
	}
	delete(s.pending, m.id)
	if p.obs != nil && p.obs.Arrived != nil {
		p.obs.Arrived(s.lineAt)
	}
	rep := s.judge(p, m) // under mu: a read result updates the read floor
	s.mu.Unlock()
	if p.obs != nil && p.obs.AtReply != nil {
		p.obs.AtReply()
	}
	<-s.slots
	p.reply <- rep
}

// judge turns a response into the request's outcome. Called with s.mu held.
func (s *Session) judge(p *pending, m message) reply {
	if m.malformed != "" {
		return reply{err: failUnknown(ErrMalformedResponse, "%s (H-M6)", m.malformed)}
	}
	if m.respErr != nil {
		return reply{err: fromResponseError(m.respErr)}
	}
	// Describe's 512 KiB is checked with the rest of the descriptor (H-D1).
	limit := MaxResultBytes
	if p.method == wire.MethodRead {
		limit = MaxReadBytes
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, m.result); err != nil {
		return reply{err: failUnknown(ErrMalformedResponse, "the result is not valid JSON")}
	}
	if n := wire.EncodedLen(buf.Bytes()); n > limit {
		effect := wire.EffectUnknown
		if p.method == wire.MethodCall {
			effect = wire.EffectPossible // the tool ran and answered; only its result is lost
		}
		return reply{err: &CallError{Effect: effect, Err: ErrResultTooLarge,
			Message: fmt.Sprintf("the %s result is %d bytes re-encoded, over the limit of %d", p.method, n, limit)}}
	}
	result := json.RawMessage(buf.Bytes())
	if p.method == wire.MethodRead {
		st, bad := parseState(result, MaxReadBytes)
		if bad != nil {
			return reply{err: failUnknown(errors.Join(ErrInvalidResult, bad), "the tick/read result %s (%s)", bad.Reason, bad.Rule)}
		}
		if p.hasFlr && st.Seq < p.floor {
			bad := &RuleError{Rule: "H-RD1", Reason: fmt.Sprintf("has seq %d, below the read floor %d", st.Seq, p.floor)}
			return reply{err: failUnknown(errors.Join(ErrInvalidResult, bad), "the tick/read result %s (H-RD1)", bad.Reason)}
		}
		s.lastReadSeq, s.haveRead = st.Seq, true
	}
	return reply{result: result}
}

// request sends one request and waits for its outcome. It waits for a free slot first (H-C1);
// a request still queued when ctx ends or the session ends was never sent (effect none).
func (s *Session) request(ctx context.Context, method string, params any, timeout time.Duration) (json.RawMessage, error) {
	return s.send(ctx, method, params, timeout, false, nil)
}

// send is request; with closeStdin the Tick's stdin is closed right after the request's line,
// under the same write lock, so the Tick reads the request and then EOF.
func (s *Session) send(ctx context.Context, method string, params any, timeout time.Duration, closeStdin bool, obs *Observer) (json.RawMessage, error) {
	select {
	case s.slots <- struct{}{}:
	case <-s.done:
		return nil, failNone(ErrSessionEnded, "the Tick's session has ended: %v", s.Err())
	case <-ctx.Done():
		return nil, failNone(context.Cause(ctx), "gave up before sending %s: %v", method, context.Cause(ctx))
	}

	raw, err := json.Marshal(params)
	if err != nil {
		<-s.slots
		return nil, failNone(err, "cannot encode the %s params: %v", method, err)
	}
	p := &pending{method: method, reply: make(chan reply, 1), obs: obs}

	s.mu.Lock()
	if s.endErr != nil {
		err := s.endErr
		s.mu.Unlock()
		<-s.slots
		return nil, failNone(ErrSessionEnded, "the Tick's session has ended: %v", err)
	}
	s.nextID++
	id := s.nextID
	if method == wire.MethodRead {
		// H-RD1: the floor is the larger of the last read result's seq and the last update's.
		p.floor, p.hasFlr = s.lastReadSeq, s.haveRead
		if s.haveUpdate && (!p.hasFlr || s.lastUpdateSeq > p.floor) {
			p.floor, p.hasFlr = s.lastUpdateSeq, true
		}
	}
	s.pending[id] = p
	s.mu.Unlock()

	line, _ := json.Marshal(wire.Request{JSONRPC: wire.JSONRPCVersion, ID: id, Method: method, Params: raw})
	line = append(line, '\n')
	if obs != nil && obs.BeforeSend != nil {
		obs.BeforeSend()
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := s.writeLine(line, deadline, closeStdin); err != nil {
		// Part of the line may have gone out: what the Tick did with it cannot be known.
		s.retire(id)
		s.end(fmt.Errorf("%w: %v", ErrStdinBlocked, err))
		return nil, failUnknown(ErrStdinBlocked, "could not send %s to the Tick: %v", method, err)
	}

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case rep := <-p.reply:
		if rep.err != nil {
			return nil, rep.err
		}
		return rep.result, nil
	case <-timer.C:
		if s.retire(id) {
			return nil, failUnknown(ErrTimeout, "the Tick did not answer %s within %v", method, timeout)
		}
	case <-ctx.Done():
		if s.retire(id) {
			return nil, failUnknown(context.Cause(ctx), "stopped waiting for the Tick's answer to %s: %v", method, context.Cause(ctx))
		}
	}
	// The reader or end retired it first; its outcome stands.
	rep := <-p.reply
	if rep.err != nil {
		return nil, rep.err
	}
	return rep.result, nil
}

// retire removes a request whose caller gave up; a later answer is dropped (H-M4). It reports
// whether this call retired it.
func (s *Session) retire(id uint64) bool {
	s.mu.Lock()
	_, ok := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if ok {
		<-s.slots
	}
	return ok
}

// writeLine writes one whole request line (H-T2). A Tick that stops reading its stdin cannot
// block the host past the request's deadline.
func (s *Session) writeLine(line []byte, deadline time.Time, closeAfter bool) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if d, ok := s.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		if d.SetWriteDeadline(deadline) == nil && !closeAfter {
			defer d.SetWriteDeadline(time.Time{})
		}
	}
	_, err := s.w.Write(line)
	if err == nil && closeAfter {
		err = s.w.Close()
	}
	return err
}

// Describe sends tick/describe and validates the result (H-D1). timeout bounds the wait.
func (s *Session) Describe(ctx context.Context, timeout time.Duration) (*Catalog, error) {
	raw, err := s.request(ctx, wire.MethodDescribe, struct{}{}, timeout)
	if err != nil {
		return nil, err
	}
	cat, err := ParseDescriptor(raw)
	if err != nil {
		return nil, failUnknown(errors.Join(ErrInvalidResult, err), "%v", err)
	}
	return cat, nil
}

// Read sends tick/read; the result is checked against the read floor (H-RD1).
func (s *Session) Read(ctx context.Context, timeout time.Duration) (wire.State, error) {
	raw, err := s.request(ctx, wire.MethodRead, struct{}{}, timeout)
	if err != nil {
		return wire.State{}, err
	}
	st, bad := parseState(raw, MaxReadBytes)
	if bad != nil { // judge checked this already
		return wire.State{}, failUnknown(errors.Join(ErrInvalidResult, bad), "the tick/read result %s (%s)", bad.Reason, bad.Rule)
	}
	return st, nil
}

// Call sends tick/call as given: no validation, no approval, one attempt. Instance.Call is what
// clients use; this is for the instance and for check's probes.
func (s *Session) Call(ctx context.Context, params wire.CallParams, timeout time.Duration) (json.RawMessage, error) {
	if params.Args == nil {
		params.Args = json.RawMessage("{}")
	}
	return s.request(ctx, wire.MethodCall, params, timeout)
}

// Request sends any method with params and waits for the raw result, for check's probes.
func (s *Session) Request(ctx context.Context, method string, params any, timeout time.Duration) (json.RawMessage, error) {
	return s.request(ctx, method, params, timeout)
}

// RequestObserved is Request with an Observer, for check's timing of answers.
func (s *Session) RequestObserved(ctx context.Context, method string, params any, timeout time.Duration, obs *Observer) (json.RawMessage, error) {
	return s.send(ctx, method, params, timeout, false, obs)
}

// CallThenCloseStdin sends tick/call and closes the Tick's stdin right after its line: the Tick
// reads the call, then EOF. For check's probe of spec 4.5 (calls in flight finish first).
func (s *Session) CallThenCloseStdin(ctx context.Context, params wire.CallParams, timeout time.Duration) (json.RawMessage, error) {
	if params.Args == nil {
		params.Args = json.RawMessage("{}")
	}
	return s.send(ctx, wire.MethodCall, params, timeout, true, nil)
}

// CallObserved is Call with an Observer (the journal's states before and after).
func (s *Session) CallObserved(ctx context.Context, params wire.CallParams, timeout time.Duration, obs *Observer) (json.RawMessage, error) {
	if params.Args == nil {
		params.Args = json.RawMessage("{}")
	}
	return s.send(ctx, wire.MethodCall, params, timeout, false, obs)
}

// CloseStdin closes the Tick's stdin: it reads EOF (spec 4.5). The session goes on until the
// Tick closes its stdout.
func (s *Session) CloseStdin() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.w.Close()
}
