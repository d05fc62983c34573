package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"tickmux/host/journal"
	"tickmux/tick/wire"
)

// Journaling: the host writes one journal line (package journal) when a card first waits and
// one when a request's outcome is known, for every card and every call that ran under a grant.
// A journal that cannot be written never holds up a card or a call: the host logs why, keeps
// the reason for the panel (JournalWarning), and goes on.

// JournalWriter is where entries go (a *journal.Journal).
type JournalWriter interface {
	Append(e journal.Entry) error
}

// Peer is who sent a request, as the control socket saw it (SO_PEERCRED); zero when not known.
type Peer struct {
	PID int
	UID int // -1: not known
}

// journalState is the host's part of journaling, under its own lock.
type journalState struct {
	w      JournalWriter
	mu     sync.Mutex
	counts map[string]int   // final entries written, per instance
	grants map[grant]uint64 // the card whose answer made each grant (a revision's, an agent session's input)
	warn   string           // why the last write failed; "" once one succeeds
}

// JournalReader is a JournalWriter that can read its entries back (a *journal.Journal).
type JournalReader interface {
	Entries() ([]journal.Entry, error)
	Run() string
}

// JournalEntries returns the journal's entries (waiting lines with an outcome dropped), oldest
// first, and this server's run.
func (h *Host) JournalEntries() ([]journal.Entry, string, error) {
	r, ok := h.jr.w.(JournalReader)
	if !ok {
		return nil, "", fmt.Errorf("this tickmux keeps no journal")
	}
	es, err := r.Entries()
	return es, r.Run(), err
}

// JournalWarning is why the journal could not be written, or "" when the last write worked.
func (h *Host) JournalWarning() string {
	h.jr.mu.Lock()
	defer h.jr.mu.Unlock()
	return h.jr.warn
}

// JournalCount is how many decisions the journal holds for an instance since it opened (those
// this server wrote).
func (h *Host) JournalCount(id string) int {
	h.jr.mu.Lock()
	defer h.jr.mu.Unlock()
	return h.jr.counts[id]
}

func (h *Host) appendJournal(e journal.Entry) {
	err := h.jr.w.Append(e)
	h.jr.mu.Lock()
	old := h.jr.warn
	if err != nil {
		h.jr.warn = err.Error()
	} else {
		h.jr.warn = ""
		if e.Final() && e.Instance != "" {
			if h.jr.counts == nil {
				h.jr.counts = map[string]int{}
			}
			h.jr.counts[e.Instance]++
		}
	}
	warn := h.jr.warn
	h.jr.mu.Unlock()
	if err != nil {
		h.logf("journal: %v; the request goes on unrecorded (free space or fix the permissions of the state directory)", err)
	}
	if warn != old || (err == nil && e.Final() && e.Instance != "") {
		h.bus.post(EventCalls, e.Instance) // the panel shows the warning and the counts
	}
}

// Record is one request's journal entry in the making. A nil *Record (no journal) does nothing.
type Record struct {
	h *Host

	mu    sync.Mutex
	e     journal.Entry
	grant grant // the grant an r answer to the request makes, or that covers it (grantOf)
	grOK  bool  // whether the request has one
	shown time.Time
	sent  bool // the request went out: its decision stands whatever the outcome
	done  bool
}

// NewRecord starts the journal entry of req, a request from peer; nil when there is no journal.
func (h *Host) NewRecord(req ApprovalRequest, peer Peer) *Record {
	if h.jr.w == nil {
		return nil
	}
	e := journal.Entry{Kind: string(req.Action), Client: journal.Client{Name: req.Client, PID: peer.PID},
		Instance: req.Instance, Revision: req.Revision, Tool: req.Tool, Args: req.Args,
		Argv: req.Argv, Dir: req.Dir, Text: req.Text}
	if peer.PID > 0 || peer.UID > 0 {
		uid := peer.UID
		e.Client.UID = &uid
		if in := h.PaneOf(peer.PID); in != nil {
			e.Client.Pane = in.ID()
		}
	}
	if in := h.Get(req.Instance); in != nil {
		if cat := in.Catalog(); cat != nil {
			e.Tick = &journal.Tick{Kind: cat.Descriptor.Kind, Title: cat.Descriptor.Title}
		}
	}
	if e.Tick == nil && req.Title != "" {
		e.Tick = &journal.Tick{Title: req.Title}
	}
	r := &Record{h: h, e: e}
	r.grant, r.grOK = grantOf(req)
	return r
}

// Watch hooks the record to req's card: the card's number, the waiting line, the answer and
// the view that gave it.
func (r *Record) Watch(req *ApprovalRequest) {
	if r == nil {
		return
	}
	shown, answered := req.Shown, req.Answered
	req.Shown = func(id uint64) {
		if shown != nil {
			shown(id)
		}
		if id == 0 {
			return
		}
		r.mu.Lock()
		if r.e.Card != nil || r.done {
			r.mu.Unlock()
			return
		}
		r.e.Card, r.shown = &id, time.Now()
		e := r.e
		e.Time, e.Decision = r.shown, journal.Waiting
		r.mu.Unlock()
		r.h.appendJournal(e)
	}
	req.Answered = func(d Decision, view string) {
		if answered != nil {
			answered(d, view)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		switch d {
		case AllowOnce:
			r.e.Decision = journal.Once
		case AllowRevision:
			r.e.Decision = journal.Revision
			if r.e.Card != nil && r.grOK {
				r.h.jr.mu.Lock()
				if r.h.jr.grants == nil {
					r.h.jr.grants = map[grant]uint64{}
				}
				r.h.jr.grants[r.grant] = *r.e.Card
				r.h.jr.mu.Unlock()
			}
		case Deny:
			r.e.Decision = journal.Denied
		case Covered:
			r.e.Decision = journal.Granted
			r.grantedBy()
		}
		if view != "" {
			r.e.View = &view
		}
		r.stopClock()
	}
}

// stopClock sets waited_ms once. Called with r.mu.
func (r *Record) stopClock() {
	if !r.shown.IsZero() && r.e.WaitedMS == 0 {
		r.e.WaitedMS = max(time.Since(r.shown).Milliseconds(), 0)
	}
}

// Granted records that the call ran under a grant, naming the card that made it when known.
func (r *Record) Granted() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.e.Decision = journal.Granted
	r.grantedBy()
}

// grantedBy names the card whose answer made the grant that covers the request, when known.
// Called with r.mu.
func (r *Record) grantedBy() {
	if !r.grOK {
		return
	}
	r.h.jr.mu.Lock()
	if c, ok := r.h.jr.grants[r.grant]; ok {
		r.e.GrantedBy = &c
	}
	r.h.jr.mu.Unlock()
}

// ForgetAgentSessionGrants drops what the journal keeps of an agent session's grants (which
// card made each) once the session ended: its grants end with it.
func (h *Host) ForgetAgentSessionGrants(session string) {
	h.jr.mu.Lock()
	defer h.jr.mu.Unlock()
	for g := range h.jr.grants {
		if g.session == session && session != "" {
			delete(h.jr.grants, g)
		}
	}
}

// Sent marks that the request went out: the decision stands whatever the outcome.
func (r *Record) Sent() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.sent = true
	r.mu.Unlock()
}

// SetTool names what an agent's own call (ActionAgent) asked for: its tool and input, which the
// card shows from ApprovalRequest.Agent.
func (r *Record) SetTool(tool string, input json.RawMessage) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.e.Tool, r.e.Args = tool, input
	r.mu.Unlock()
}

// SetInstance names the instance an open started.
func (r *Record) SetInstance(id string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.e.Instance = id
	r.mu.Unlock()
}

// setChange records the state change between before (the latest state when the call went out)
// and after (the state when its result arrived).
func (r *Record) setChange(before, after StateInfo) {
	if r == nil || !after.Valid {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sa := after.Seq
	r.e.SeqAfter = &sa
	if !before.Valid {
		return
	}
	sb := before.Seq
	r.e.SeqBefore = &sb
	if n := after.Updates - before.Updates; n > 1 {
		r.e.Merged = int(n - 1)
	}
	if sa == sb {
		r.e.Change = journal.Patch{}
		return
	}
	p, err := journal.Diff(before.Data, after.Data)
	if err != nil {
		r.h.logf("journal: cannot compute the change of %s: %v", r.e.Tool, err)
		return
	}
	r.e.Change = p
}

// change is the call's change once setChange knew it.
func (r *Record) change() (journal.Patch, int, bool) {
	if r == nil {
		return nil, 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.e.Change, r.e.Merged, r.e.Change != nil
}

// LastChange is the newest recent call of tool on instance whose change is known, for a card
// that asks for that tool again.
func (h *Host) LastChange(instance, tool string) (CallRecord, bool) {
	in := h.Get(instance)
	if in == nil {
		return CallRecord{}, false
	}
	calls := in.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Tool == tool && calls[i].Change != nil {
			return calls[i], true
		}
	}
	return CallRecord{}, false
}

// Finish writes the outcome line: err is the request's result (nil: it worked). When no answer
// was recorded, the error says what happened to the card.
func (r *Record) Finish(err error) {
	if r == nil {
		return
	}
	o := journal.Outcome{Status: journal.StatusOK}
	if err != nil {
		eff := EffectOf(err)
		o = journal.Outcome{Status: journal.StatusError, Message: err.Error(), Effect: string(eff)}
		if eff == wire.EffectUnknown {
			o.Status = journal.StatusUnknown
		}
		var ce *CallError
		if errors.As(err, &ce) {
			o.Code, o.Message = ce.Code, ce.Message
		}
	}
	r.FinishWith(o, err)
}

// FinishWith writes the outcome line with an outcome the caller worked out; err decides the
// decision when no answer was recorded.
func (r *Record) FinishWith(o journal.Outcome, err error) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return
	}
	r.done = true
	r.stopClock()
	switch {
	case r.sent || err == nil:
		switch {
		case r.e.Decision != "":
		case r.e.Card == nil && r.e.Kind == string(ActionCall):
			r.e.Decision = journal.Granted // a grant made while the host asked: no card, no answer
		default:
			r.e.Decision = journal.Once // an approver that does not say how it answered
		}
	case errors.Is(err, ErrDenied), r.e.Decision == journal.Denied:
		r.e.Decision = journal.Denied
	case errors.Is(err, ErrVoided), errors.Is(err, ErrSessionEnded):
		r.e.Decision = journal.Voided
	default:
		r.e.Decision = journal.Withdrawn
	}
	if len(o.Message) > maxJournalText {
		o.Message = o.Message[:maxJournalText] + "…"
	}
	e := r.e
	e.Time, e.Outcome = time.Now(), &o
	r.mu.Unlock()
	r.h.appendJournal(e)
}

// maxJournalText caps an error message kept in the journal.
const maxJournalText = 4096
