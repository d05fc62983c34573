package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"tickmux/tick/wire"
)

// CallRequest is a client's call of a Tick tool.
type CallRequest struct {
	// Client names the caller for the approval card and the recent calls (not authenticated).
	Client string
	Tool   string
	// Args are the tool's arguments; nil means {}.
	Args json.RawMessage
	// Revision is the catalog revision the call was prepared against; "" means the current one.
	Revision string
	// Card, when not nil, is told the id of this call's approval card when the card is shown, and
	// 0 once it is gone (answered, withdrawn or voided). It is never called for a call that needs
	// no card. It must not block.
	Card func(id uint64)
	// Peer is the caller's process as the socket saw it, for the journal.
	Peer Peer
}

// Call runs a tool of a ready Tick. In order: the revision must be current, the tool must exist,
// the args must fit its input_schema (H-K1), a mutating tool needs the person's approval (H-K2),
// the approval is void if the catalog moved on meanwhile (H-K3), and then the call goes out once,
// carrying the approved revision, never to be resent (H-K5). A -32004 answer, and any answer to a
// mutating call, makes the host describe the Tick again before Call returns; a query refused with
// -32004 goes out once more against the new catalog when it holds the tool unchanged. Every
// failure is a *CallError with its effect (H-E1).
func (in *Instance) Call(ctx context.Context, req CallRequest) (json.RawMessage, error) {
	if !in.isTick {
		return nil, failNone(ErrNotReady, "%s is a plain terminal program; it has no tools", in.id)
	}
	in.mu.Lock()
	status, cat := in.status, in.catalog
	in.mu.Unlock()
	if status != StatusReady {
		return nil, failNone(ErrNotReady, "%s is %s; it cannot take calls", in.id, status)
	}
	revision := req.Revision
	if revision == "" {
		revision = cat.Revision()
	}
	if revision != cat.Revision() {
		return nil, failNone(ErrCatalogChanged, "the call was prepared against revision %q but %s's catalog is now at %q; describe it and prepare the call again", revision, in.id, cat.Revision())
	}
	tool := cat.Tool(req.Tool)
	if tool == nil {
		return nil, failNone(ErrUnknownTool, "%s has no tool %q", in.id, req.Tool)
	}
	args := req.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	unchecked, err := cat.checkArgs(tool.Name, args)
	if err != nil {
		return nil, failNone(ErrInvalidArgs, "the args do not fit the input_schema of %s: %v", tool.Name, err)
	}

	mutates := in.needsApproval(revision, tool) // sticky within a revision (mutates.go)
	rec := in.recordCall(CallRecord{Client: req.Client, Tool: tool.Name, Args: args, Revision: revision, Mutates: mutates})
	var jrec *Record // the journal's entry: every mutating call has a card or a grant
	if mutates {
		areq := ApprovalRequest{
			Action: ActionCall, Client: req.Client, Instance: in.id, Title: cat.Descriptor.Title,
			Tool: tool.Name, ToolDescription: tool.Description, Args: args, Revision: revision,
			Unchecked: unchecked, Shown: req.Card,
		}
		jrec = in.host.NewRecord(areq, req.Peer)
		jrec.Watch(&areq)
		how, err := in.approve(ctx, areq, revision, rec)
		if err != nil {
			in.finishCall(rec, nil, err)
			jrec.Finish(err)
			return nil, err
		}
		if how == "granted" {
			jrec.Granted()
		}
		in.setApproval(rec, how)
	}
	if err := context.Cause(ctx); err != nil {
		err := failNone(err, "the client gave up before the call was sent: %v", err)
		in.finishCall(rec, nil, err)
		jrec.Finish(err)
		return nil, err
	}

	jrec.Sent()
	// The journal's change runs from the latest state when the call's line goes out to the state
	// when the reader reads its result (every update read before the result, none after). With
	// no result (a timeout, the session ended) there is no after, and no change is claimed.
	var before, after StateInfo
	var obs *Observer
	if jrec != nil {
		obs = &Observer{BeforeSend: func() { before = in.State() }, AtReply: func() { after = in.State() }}
	}
	res, err := in.sess.CallObserved(ctx, wire.CallParams{Tool: tool.Name, Args: args, Revision: revision}, in.host.callTimeout, obs)
	jrec.setChange(before, after)
	if p, merged, ok := jrec.change(); ok {
		in.updateCall(rec, func(r *CallRecord) { r.Change, r.Merged = p, merged })
	}
	if errors.Is(err, ErrCatalogChanged) || (mutates && answered(err)) {
		// The catalog may have moved (-32004 says so; a mutating call may have moved it, spec
		// 5.5): describe again before the caller prepares its next call and before the next card
		// is shown, so neither is built on the old catalog.
		fresh := in.refreshCatalog()
		if errors.Is(err, ErrCatalogChanged) && !mutates && sameQuery(tool, fresh, args) &&
			!in.needsApproval(fresh.Revision(), fresh.Tool(tool.Name)) {
			// -32004: never executed (spec 7.2). A query may be prepared again against the new
			// catalog and sent once more; a mutating call never is (H-K5).
			revision = fresh.Revision()
			in.updateCall(rec, func(r *CallRecord) { r.Revision = revision })
			res, err = in.sess.Call(ctx, wire.CallParams{Tool: tool.Name, Args: args, Revision: revision}, in.host.callTimeout)
			if errors.Is(err, ErrCatalogChanged) {
				in.refreshCatalog()
			}
		}
	}
	in.finishCall(rec, res, err)
	jrec.Finish(err)
	return res, err
}

// answered reports whether the Tick answered the call, with a result or an error of its own.
func answered(err error) bool {
	var ce *CallError
	return err == nil || (errors.As(err, &ce) && ce.Code != 0)
}

// sameQuery reports whether cat still holds tool unchanged (description, input_schema and
// mutates: false) and args still fit it: a query refused with -32004 may then go out again.
func sameQuery(tool *wire.Tool, cat *Catalog, args json.RawMessage) bool {
	if cat == nil || tool.Mutates {
		return false
	}
	t := cat.Tool(tool.Name)
	return t != nil && !t.Mutates && t.Description == tool.Description &&
		bytes.Equal(t.InputSchema, tool.InputSchema) && cat.CheckArgs(t.Name, args) == nil
}

// approve waits for the person. It returns how the call was allowed ("approved" or "granted").
func (in *Instance) approve(ctx context.Context, req ApprovalRequest, revision string, rec uint64) (string, error) {
	ap := in.host.approver
	if ap == nil {
		return "", failNone(ErrNoApprover, "%s is a mutating tool and nobody here can approve it", req.Tool)
	}
	if g, ok := ap.(Granter); ok && g.Granted(req) {
		return "granted", nil
	}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	in.mu.Lock()
	if in.catalog == nil || in.catalog.Revision() != revision {
		in.mu.Unlock()
		return "", failNone(ErrVoided, "%v", ErrVoided)
	}
	in.nextVoider++
	vid := in.nextVoider
	if in.voiders == nil {
		in.voiders = map[uint64]voider{}
	}
	in.voiders[vid] = voider{revision: revision, cancel: cancel}
	in.mu.Unlock()
	in.setApproval(rec, "pending")

	if shown := req.Shown; shown != nil {
		var once sync.Once
		req.Shown = func(id uint64) { once.Do(func() { shown(id) }) }
		defer func() {
			once.Do(func() {}) // a card shown after Approve returned is not this call's any more
			shown(0)
		}()
	}
	answered := req.Answered // the journal's (Record.Watch)
	req.Answered = func(d Decision, view string) {
		in.updateCall(rec, func(r *CallRecord) { r.AnsweredBy = view })
		if answered != nil {
			answered(d, view)
		}
	}
	err := ap.Approve(actx, req)

	in.mu.Lock()
	delete(in.voiders, vid)
	current := in.catalog != nil && in.catalog.Revision() == revision && in.status == StatusReady
	in.mu.Unlock()
	switch {
	case err == nil && current:
		return "approved", nil
	case err == nil:
		// Approved against a catalog that has since changed (H-K3): the approval is void.
		return "", failNone(ErrVoided, "the person approved revision %q but the catalog has changed since; prepare the call again", revision)
	case errors.Is(err, ErrDenied):
		return "", failNone(ErrDenied, "the person denied the call to %s", req.Tool)
	case errors.Is(err, ErrVoided):
		return "", failNone(ErrVoided, "%v", ErrVoided)
	case errors.Is(err, ErrSessionEnded):
		return "", failNone(ErrSessionEnded, "%s ended before the call was approved", in.id)
	}
	return "", failNone(err, "the call was withdrawn before the person answered: %v", err)
}

// refreshCatalog describes the Tick again and adopts the result (H-R1, H-K3). It returns the
// catalog held afterwards (the old one when the describe failed), nil when the instance has none.
func (in *Instance) refreshCatalog() *Catalog {
	ctx, cancel := context.WithTimeout(context.Background(), in.host.initTimeout)
	defer cancel()
	_, _ = in.Describe(ctx)
	return in.Catalog()
}

// Describe sends tick/describe and adopts the catalog if it is valid. A new revision voids every
// approval waiting on the old one (H-K3). An invalid result fails the request and keeps the old
// catalog.
func (in *Instance) Describe(ctx context.Context) (*Catalog, error) {
	if in.sess == nil {
		return nil, failNone(ErrNotReady, "%s is a plain terminal program", in.id)
	}
	if st := in.Status(); st != StatusReady {
		return nil, failNone(ErrNotReady, "%s is %s", in.id, st)
	}
	cat, err := in.sess.Describe(ctx, in.host.initTimeout)
	if err != nil {
		in.host.logf("%s: describe failed: %v", in.id, err)
		return nil, err
	}
	in.mu.Lock()
	old := in.catalog
	in.catalog = cat
	violated := in.noteCatalog(cat)
	changed := old == nil || old.Revision() != cat.Revision()
	if changed {
		for id, v := range in.voiders {
			if v.revision != cat.Revision() {
				v.cancel(ErrVoided)
				delete(in.voiders, id)
			}
		}
	}
	in.mu.Unlock()
	if w, ok := in.host.approver.(RevisionWatcher); ok && changed && old != nil {
		w.RevisionChanged(in.id, cat.Revision())
	}
	if changed || violated || string(old.Raw) != string(cat.Raw) {
		in.host.bus.post(EventCatalog, in.id)
	}
	return cat, nil
}

// Read sends tick/read and returns the state; a state newer than the one held replaces it.
func (in *Instance) Read(ctx context.Context) (StateInfo, error) {
	if in.sess == nil {
		return StateInfo{}, failNone(ErrNotReady, "%s is a plain terminal program", in.id)
	}
	if st := in.Status(); st != StatusReady {
		return StateInfo{}, failNone(ErrNotReady, "%s is %s", in.id, st)
	}
	st, err := in.sess.Read(ctx, in.host.initTimeout)
	if err != nil {
		return StateInfo{}, err
	}
	in.mu.Lock()
	in.storeState(st, time.Now(), false)
	s := in.state
	in.mu.Unlock()
	in.host.bus.post(EventState, in.id)
	return s, nil
}

func (in *Instance) recordCall(r CallRecord) uint64 {
	in.mu.Lock()
	in.nextCall++
	r.ID = in.nextCall
	r.Started = time.Now()
	in.calls = append(in.calls, r)
	if len(in.calls) > maxRecentCalls {
		in.calls = in.calls[len(in.calls)-maxRecentCalls:]
	}
	in.mu.Unlock()
	in.host.bus.post(EventCalls, in.id)
	return r.ID
}

func (in *Instance) updateCall(id uint64, f func(*CallRecord)) {
	in.mu.Lock()
	for i := range in.calls {
		if in.calls[i].ID == id {
			f(&in.calls[i])
			break
		}
	}
	in.mu.Unlock()
	in.host.bus.post(EventCalls, in.id)
}

func (in *Instance) setApproval(id uint64, how string) {
	in.updateCall(id, func(r *CallRecord) { r.Approval = how })
}

func (in *Instance) finishCall(id uint64, res json.RawMessage, err error) {
	in.updateCall(id, func(r *CallRecord) {
		r.Finished = time.Now()
		if err == nil {
			r.OK = true
			return
		}
		r.Error = err.Error()
		r.Effect = EffectOf(err)
		switch {
		case errors.Is(err, ErrDenied):
			r.Approval = "denied"
		case errors.Is(err, ErrVoided):
			r.Approval = "voided"
		case r.Approval == "pending":
			r.Approval = "withdrawn"
		}
	})
	if err != nil {
		in.host.logf("%s: call #%d failed: %v", in.id, id, err)
	}
}
