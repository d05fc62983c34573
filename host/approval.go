package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// Action is what an agent asks the person to allow.
type Action string

const (
	ActionCall  Action = "call"  // a call to a mutating tool (H-K2)
	ActionOpen  Action = "open"  // open a Tick or a shell
	ActionClose Action = "close" // close an instance
	ActionSend  Action = "send"  // type text into an instance's terminal
	// ActionAgent is an agent program's own tool call (Claude Code, Codex) that its permission
	// hook put before the person (agent/hook.go); its journal kind is "agent".
	ActionAgent Action = "agent"
)

// ApprovalRequest is everything the person needs to judge a request (H-K2, H-SEC1). Every string
// in it may come from a Tick or an agent: views escape it before drawing.
type ApprovalRequest struct {
	Action Action
	// Client is the name the client gave itself (MCP initialize); not authenticated.
	Client string
	// Instance is the target's id ("" for ActionOpen) and Title its title.
	Instance string
	Title    string
	// Tool, ToolDescription, Args and Revision describe an ActionCall.
	Tool            string
	ToolDescription string
	Args            json.RawMessage
	Revision        string
	// Unchecked lists what of the tool's input_schema the host did not check in Args, one
	// sentence each (Catalog.Unchecked, and patterns that ran past their time budget): the Tick
	// checks it (spec 7.2).
	Unchecked []string
	// Argv and Dir describe an ActionOpen; Shell tells a plain program from a Tick, and
	// Sandboxed says the program will run in a sandbox (Host.Sandboxed, sandbox.go).
	Argv      []string
	Dir       string
	Shell     bool
	Sandboxed bool
	// Text is what ActionSend would type.
	Text string
	// Agent describes an ActionAgent; Instance and Title then name the pane the agent runs in
	// ("" when it runs outside tickmux).
	Agent *AgentCall
	// Host is the machine the request runs on, as the config names it: a card of a tickmux
	// server on another host (package remote); "" for this one.
	Host string

	// Shown, when not nil, is told the id of the card that puts this request before the person,
	// once it is there and before Approve blocks, so the caller can name exactly its own card
	// (two identical requests get two ids). An approver that shows no card never calls it. It
	// must not block. It is not part of what the card shows: Pending never returns it.
	Shown func(card uint64)
	// Answered, when not nil, is told the person's answer and the view whose key gave it (its
	// number and terminal, "view 2 /dev/pts/5"; "" when not known) before Approve returns;
	// never for a card withdrawn or voided. It must not block. Pending never returns it.
	Answered func(d Decision, view string)
}

// Approver stands between an agent and every change (H-K2). Approve blocks until the person
// answers or ctx ends, and returns nil when the request may go out once. A denial returns
// ErrDenied. When the catalog changes, ctx is cancelled with cause ErrVoided (H-K3); when the
// client gives up, with the client's cause.
//
// An approver may also remember answers (Granter) and forget them for an instance or an agent
// session that ended (InstanceForgetter, AgentSessionForgetter) or whose revision moved on
// (RevisionWatcher), and list its waiting cards (CardLister); the host and the agent side ask
// for those with the optional interfaces below.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) error
}

// Granter is an Approver that remembers AllowRevision answers. The host asks it before Approve,
// so a call a grant covers is recorded as "granted" rather than "approved".
type Granter interface {
	Granted(req ApprovalRequest) bool
}

// InstanceForgetter is an Approver that keeps something per instance (grants); the host tells it
// when an instance ends, so a later instance with the same id inherits nothing.
type InstanceForgetter interface {
	ForgetInstance(id string)
}

// AgentSessionForgetter is an Approver that keeps something per agent session (an agent's
// "again this session" grants); the host and the hooks tell it when a session ends.
type AgentSessionForgetter interface {
	ForgetAgentSession(session string)
}

// CardLister is an Approver that puts cards before a person and can list those still waiting,
// oldest first (the agent's status counts them).
type CardLister interface {
	Pending() []Card
}

// RevisionWatcher is an Approver that is told when an instance's catalog revision changed: a
// grant is for one revision, so a Tick that goes from r1 to r2 and back to r1 must not find the
// person's earlier r1 grant in force again.
type RevisionWatcher interface {
	RevisionChanged(instance, revision string)
}

// GrantDropper is an Approver whose grants the host can withdraw: a Tick that changes its tools
// under the same revision (a spec 5.5 violation) no longer has the catalog the person allowed,
// so every grant of the instance goes, and its calls waiting for a card are voided in the same
// step (an answer to one must not make a grant again). It returns how many grants it dropped;
// it must not block.
type GrantDropper interface {
	DropGrants(instance string) int
}

// The TUI's queue offers every optional part.
var (
	_ Approver              = (*ApprovalQueue)(nil)
	_ Granter               = (*ApprovalQueue)(nil)
	_ InstanceForgetter     = (*ApprovalQueue)(nil)
	_ AgentSessionForgetter = (*ApprovalQueue)(nil)
	_ CardLister            = (*ApprovalQueue)(nil)
	_ RevisionWatcher       = (*ApprovalQueue)(nil)
	_ GrantDropper          = (*ApprovalQueue)(nil)
)

// Decision is the person's answer to a card.
type Decision int

const (
	// AllowOnce lets this one request go out.
	AllowOnce Decision = iota + 1
	// AllowRevision lets this request go out and allows later calls to the same tool of the same
	// instance without asking, for as long as the catalog revision stays the same.
	AllowRevision
	// Deny refuses the request.
	Deny
	// Covered is no answer the person gives: the card was released by an AllowRevision answer
	// to another card whose grant covers it (the same tool of the same instance at the same
	// revision; for an agent, the same tool and input in the same session), as a call made a
	// moment later would run under that grant without a card.
	Covered
)

// Card is a request waiting for the person.
type Card struct {
	ID      uint64
	Req     ApprovalRequest
	Created time.Time
}

// ApprovalQueue is the Approver the TUI answers. Only Answer approves, and only the TUI's key
// handling calls it: no socket, CLI or MCP path reaches it.
type ApprovalQueue struct {
	notify func() // called after every change to the pending cards

	mu     sync.Mutex
	nextID uint64
	cards  []*card
	grants map[grant]bool
}

type card struct {
	Card
	// ctx is the waiting Approve's: once it is done the card is void, whoever looks first.
	ctx context.Context
	// settled is closed when the card leaves the queue, answered or voided; state, d, view,
	// cause and coveredBy are written once, under ApprovalQueue.mu, before it closes.
	settled   chan struct{}
	state     cardState
	d         Decision
	view      string // who answered
	cause     error  // why it was voided
	coveredBy *card  // the card whose grant released this one (d == Covered)
	// told is closed once Approve has told its Answered of the answer (or returned without
	// one): a covered card's Answered waits for its coverer's, which comes first.
	told chan struct{}
}

// cardState is where a card is: waiting, or settled one way for good. Answer, void and grant
// drop each settle cards under ApprovalQueue.mu, so a card is answered or voided, never both,
// and a grant exists only for a card that was answered.
type cardState int

const (
	cardWaiting cardState = iota
	cardAnswered
	cardVoided
)

// grant is an AllowRevision answer: one tool of one instance at one catalog revision; for an
// agent's call (session set), one tool with exactly one input in one agent session.
type grant struct{ instance, revision, tool, session, input string }

// NewApprovalQueue makes an empty queue; notify (may be nil) runs after each change, from the
// goroutine that made it, and must not block.
func NewApprovalQueue(notify func()) *ApprovalQueue {
	return &ApprovalQueue{notify: notify, grants: map[grant]bool{}}
}

func (q *ApprovalQueue) changed() {
	if q.notify != nil {
		q.notify()
	}
}

// ErrNoSuchCard: the card was answered, withdrawn or voided already.
var ErrNoSuchCard = errors.New("no pending approval with that id")

// Granted reports whether an AllowRevision answer already covers req.
func (q *ApprovalQueue) Granted(req ApprovalRequest) bool {
	k, ok := grantOf(req)
	if !ok {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.grants[k]
}

// grantOf is the grant an AllowRevision answer to req makes, if it can make one.
func grantOf(req ApprovalRequest) (grant, bool) {
	switch req.Action {
	case ActionCall:
		return grant{instance: req.Instance, revision: req.Revision, tool: req.Tool}, true
	case ActionAgent:
		if a := req.Agent; a != nil && a.Session != "" {
			return grant{instance: req.Instance, tool: a.Tool, session: a.Session, input: a.InputKey()}, true
		}
	}
	return grant{}, false
}

// Approve puts a card in front of the person and waits for the answer. The card is settled
// once, under the queue's lock: an answer taken before ctx ended stands (the call may go out,
// and an AllowRevision grant is made); once ctx has ended the card is void and an answer finds
// it gone (ErrNoSuchCard), so no grant outlives a voided card.
func (q *ApprovalQueue) Approve(ctx context.Context, req ApprovalRequest) error {
	if q.Granted(req) {
		return nil
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	shown, answered := req.Shown, req.Answered
	req.Shown, req.Answered = nil, nil
	q.mu.Lock()
	q.nextID++
	c := &card{Card: Card{ID: q.nextID, Req: req, Created: time.Now()}, ctx: ctx,
		settled: make(chan struct{}), told: make(chan struct{})}
	defer close(c.told)
	q.cards = append(q.cards, c)
	q.mu.Unlock()
	if shown != nil {
		shown(c.ID)
	}
	q.changed()

	// Withdrawn (the client gave up) or voided (the catalog changed): the card goes unless an
	// answer took it first.
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		gone := q.voidLocked(c, context.Cause(ctx))
		q.mu.Unlock()
		if gone {
			q.changed()
		}
	})
	defer stop()
	<-c.settled
	if c.state == cardVoided {
		return c.cause
	}
	if c.d == Covered {
		<-c.coveredBy.told // the grant's own card is journaled first (granted_by names it)
	}
	if answered != nil {
		answered(c.d, c.view)
	}
	if c.d == Deny {
		return ErrDenied
	}
	return nil
}

// voidLocked settles a waiting card as voided with cause and takes it out of the queue; it
// reports whether the card was still waiting (q.mu held).
func (q *ApprovalQueue) voidLocked(c *card, cause error) bool {
	if c.state != cardWaiting {
		return false
	}
	q.unqueueLocked(c)
	c.state, c.cause = cardVoided, cause
	close(c.settled)
	return true
}

// answerLocked settles a waiting card as answered (q.mu held).
func (q *ApprovalQueue) answerLocked(c *card, d Decision, view string) {
	q.unqueueLocked(c)
	c.state, c.d, c.view = cardAnswered, d, view
	close(c.settled)
}

func (q *ApprovalQueue) unqueueLocked(c *card) {
	if i := slices.Index(q.cards, c); i >= 0 {
		q.cards = slices.Delete(q.cards, i, i+1)
	}
}

// Pending returns the waiting cards, oldest first.
func (q *ApprovalQueue) Pending() []Card {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]Card, len(q.cards))
	for i, c := range q.cards {
		out[i] = c.Card
	}
	return out
}

// Answer records the person's decision on card id. Call it only from a keypress in the TUI.
func (q *ApprovalQueue) Answer(id uint64, d Decision) error { return q.AnswerFrom(id, d, "") }

// AnswerFrom is Answer naming the view whose key gave the answer, as the journal, the log and
// the recent calls say it ("view 2 /dev/pts/5"). A card whose wait has ended (withdrawn, or
// voided by a catalog change) is voided here rather than answered: ErrNoSuchCard, and no grant.
func (q *ApprovalQueue) AnswerFrom(id uint64, d Decision, view string) error {
	if d != AllowOnce && d != AllowRevision && d != Deny {
		return fmt.Errorf("invalid decision %d", d)
	}
	q.mu.Lock()
	var c *card
	for _, x := range q.cards {
		if x.ID == id {
			c = x
			break
		}
	}
	if c == nil {
		q.mu.Unlock()
		return ErrNoSuchCard
	}
	if c.ctx.Err() != nil {
		q.voidLocked(c, context.Cause(c.ctx))
		q.mu.Unlock()
		q.changed()
		return ErrNoSuchCard
	}
	q.answerLocked(c, d, view)
	if d == AllowRevision {
		if k, ok := grantOf(c.Req); ok {
			q.grants[k] = true
			// The cards the new grant covers go out with it: a person who said "this tool, for
			// this revision" is not asked again for an identical call already waiting. One
			// whose wait has ended is voided instead, as an answer to it would be.
			for _, x := range append([]*card(nil), q.cards...) {
				if xk, ok := grantOf(x.Req); !ok || xk != k {
					continue
				}
				if x.ctx.Err() != nil {
					q.voidLocked(x, context.Cause(x.ctx))
					continue
				}
				x.coveredBy = c
				q.answerLocked(x, Covered, view)
			}
		}
	}
	q.mu.Unlock()
	q.changed()
	return nil
}

// Grant is an AllowRevision answer in force: calls to Tool of Instance go out without a card
// while the catalog stays at Revision. An agent's grant (Session set) lets the agent session run
// Tool with exactly Input again (Instance is its pane, Revision empty).
type Grant struct {
	Instance, Revision, Tool string
	Session, Input           string
}

// Grants lists the grants in force, by instance, tool and revision.
func (q *ApprovalQueue) Grants() []Grant {
	q.mu.Lock()
	out := make([]Grant, 0, len(q.grants))
	for g := range q.grants {
		out = append(out, Grant{Instance: g.instance, Revision: g.revision, Tool: g.tool, Session: g.session, Input: g.input})
	}
	q.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Instance != b.Instance {
			return a.Instance < b.Instance
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		return a.Revision < b.Revision
	})
	return out
}

// Revoke withdraws a grant: the next call it covered needs a card again. It reports whether the
// grant was in force. Call it only from a keypress in the TUI.
func (q *ApprovalQueue) Revoke(g Grant) bool {
	q.mu.Lock()
	k := grant{g.Instance, g.Revision, g.Tool, g.Session, g.Input}
	ok := q.grants[k]
	delete(q.grants, k)
	q.mu.Unlock()
	if ok {
		q.changed()
	}
	return ok
}

// RevisionChanged drops the instance's grants for every revision but the current one.
func (q *ApprovalQueue) RevisionChanged(instance, revision string) {
	q.mu.Lock()
	dropped := false
	for g := range q.grants {
		if g.instance == instance && g.session == "" && g.revision != revision {
			delete(q.grants, g)
			dropped = true
		}
	}
	q.mu.Unlock()
	if dropped {
		q.changed()
	}
}

// DropGrants drops every grant of an instance, whatever its revision, and returns how many
// there were: the instance broke spec 5.5, so a grant no longer names what the person saw. Its
// calls waiting for a card are voided (ErrVoided) in the same step: their cards show the
// catalog the Tick left, and an answer to one must not bring a grant back.
func (q *ApprovalQueue) DropGrants(instance string) int {
	q.mu.Lock()
	n := 0
	for g := range q.grants {
		if g.instance == instance {
			delete(q.grants, g)
			n++
		}
	}
	voided := false
	for _, c := range append([]*card(nil), q.cards...) {
		if c.Req.Action == ActionCall && c.Req.Instance == instance {
			voided = q.voidLocked(c, ErrVoided) || voided
		}
	}
	q.mu.Unlock()
	if n > 0 || voided {
		q.changed()
	}
	return n
}

// ForgetInstance drops the grants of an instance that ended.
func (q *ApprovalQueue) ForgetInstance(id string) {
	q.mu.Lock()
	for g := range q.grants {
		if g.instance == id {
			delete(q.grants, g)
		}
	}
	q.mu.Unlock()
}

// ForgetAgentSession drops the grants of an agent session that ended.
func (q *ApprovalQueue) ForgetAgentSession(session string) {
	if session == "" {
		return
	}
	q.mu.Lock()
	dropped := false
	for g := range q.grants {
		if g.session == session {
			delete(q.grants, g)
			dropped = true
		}
	}
	q.mu.Unlock()
	if dropped {
		q.changed()
	}
}
