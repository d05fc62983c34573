package agent

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tickmux/host"
)

// Tickets: a call that outlives its request.
//
// MCP clients time requests out (60 s in the TypeScript SDK and the Inspector, whatever the
// progress), and a person may be away for longer. A call with a bound (CallParams.TicketAfterS)
// therefore answers by the bound either way: with its result when it is done, or with a Ticket
// naming the call ("call:N"). The call goes on under the connection, not the request: its card
// stays until the person answers, cancel_call withdraws it, or the connection ends (which cancels
// everything it still runs). The outcome is kept until this connection collects it, by wait with
// calls or by cancel_call, in a book of at most maxTickets calls. A call with Keep (the CLI's
// call --no-wait, whose process exits) runs under the server instead, in a server-wide book that
// every connection may collect from, bounded per client (the peer's pid), per uid and in all.

// maxTickets bounds the calls one connection may have running or uncollected, and the kept calls
// (Keep) of one client: when the book holds that many, the oldest uncollected outcome is dropped;
// when every entry is still running, a new call is refused.
const maxTickets = 64

// maxKept bounds the server's kept book, all clients together, the same way. Kept calls are
// bounded per client (maxTickets) first, so that one client that made many and hung up (their
// cards still up) does not leave the others without any; this bound holds the server's memory
// against many clients at once.
const maxKept = 1024

// maxKeptPerUID bounds the kept calls of one uid, all its processes together. A process is a
// poor unit for a shell: `tickmux call --no-wait` in a loop is a new process each time, and so
// filled all of maxKept in 36 s (issue 38). Well under maxKept, so such a loop leaves the book
// room. Requests name no agent session (neither the CLI nor the MCP bridge sends one), so
// there is no bound per session.
const maxKeptPerUID = 256

// maxTicketAfter bounds TicketAfterS (a longer bound is clamped: it only delays the ticket).
const maxTicketAfter = 24 * time.Hour

// ticket is one call in a connection's book.
type ticket struct {
	name      string // call:N
	client    peer   // who made the call (kept calls are bounded per client)
	instance  string
	tool      string
	revision  string
	card      *atomic.Uint64 // its approval card's id while the card waits, else 0
	cancel    context.CancelCauseFunc
	done      chan struct{} // closed when outcome is set
	outcome   CallOutcome
	err       error // the call's error, as the host gave it
	result    CallResult
	handedOut bool // the client was given the ticket (else the request answers itself)
}

// callBook is a connection's calls that run under the connection rather than a request.
type callBook struct {
	mu      sync.Mutex
	next    uint64
	calls   map[string]*ticket
	order   []string      // names, oldest first
	changed chan struct{} // closed and replaced whenever an outcome arrives
	perUID  int           // the kept calls of one uid (the server's book); 0 means maxKeptPerUID
}

// watch returns a channel closed at the next outcome; take it before looking, so an outcome that
// arrives in between still wakes the caller.
func (b *callBook) watch() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// add enters a new call in the book, dropping the oldest uncollected outcome when it is full.
// prefix starts the names: "call:" on connections, keptPrefix on the server. The server's kept
// book is bounded per client (maxTickets) and in all (maxKept); a connection's, in all
// (maxTickets).
func (b *callBook) add(t *ticket, prefix string, logf func(string, ...any)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.calls == nil {
		b.calls = map[string]*ticket{}
	}
	kept := prefix == keptPrefix
	if kept {
		for _, bound := range []struct {
			n       int
			same    func(o *ticket) bool
			whose   string
			refusal string
		}{
			{maxTickets, func(o *ticket) bool { return o.client.uid == t.client.uid && o.client.pid == t.client.pid },
				fmt.Sprintf("of %s", t.client), fmt.Sprintf("of this client (%s)", t.client)},
			{cmp.Or(b.perUID, maxKeptPerUID), func(o *ticket) bool { return o.client.uid == t.client.uid },
				fmt.Sprintf("of uid %d", t.client.uid), fmt.Sprintf("of uid %d, all its processes together,", t.client.uid)},
		} {
			mine := 0
			for _, o := range b.calls {
				if bound.same(o) {
					mine++
				}
			}
			if mine >= bound.n && !b.dropOldestDone(bound.same, logf, fmt.Sprintf("more than %d kept calls %s", bound.n, bound.whose)) {
				return failure(ReasonTooMany, "%d kept calls (call --no-wait) %s still wait for the person or their Tick; "+
					"answer their cards, or collect their outcomes (tickmux wait --call) or withdraw some (cancel_call) first", bound.n, bound.refusal)
			}
		}
	}
	limit := maxTickets
	if kept {
		limit = maxKept
	}
	if len(b.calls) >= limit {
		why, refusal := fmt.Sprintf("more than %d calls on one connection", maxTickets),
			fmt.Sprintf("%d calls on this connection still wait for the person or their Tick; wait for their outcomes (wait with calls) or withdraw some (cancel_call) first", maxTickets)
		if kept {
			why, refusal = fmt.Sprintf("more than %d kept calls in all", maxKept),
				fmt.Sprintf("%d kept calls (call --no-wait), of all clients together, still wait for the person or their Tick; answer their cards, or collect outcomes (tickmux wait --call) or withdraw some (cancel_call) first", maxKept)
		}
		if !b.dropOldestDone(func(*ticket) bool { return true }, logf, why) {
			return failure(ReasonTooMany, "%s", refusal)
		}
	}
	b.next++
	t.name = prefix + strconv.FormatUint(b.next, 10)
	b.calls[t.name] = t
	b.order = append(b.order, t.name)
	return nil
}

// dropOldestDone drops the oldest finished, uncollected call that which picks, logging why, and
// reports whether there was one. Called with b.mu held.
func (b *callBook) dropOldestDone(which func(*ticket) bool, logf func(string, ...any), why string) bool {
	for i, name := range b.order {
		old := b.calls[name]
		select {
		case <-old.done:
		default:
			continue
		}
		if !which(old) {
			continue
		}
		logf("control socket: dropped the uncollected outcome of %s (%s on %s): %s", name, old.tool, old.instance, why)
		delete(b.calls, name)
		b.order = append(b.order[:i], b.order[i+1:]...)
		return true
	}
	return false
}

// finish records a call's outcome and wakes whoever waits for one.
func (b *callBook) finish(t *ticket, res CallResult, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t.result, t.err = res, err
	t.outcome = outcomeOf(t, res, err)
	close(t.done)
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// get returns the call named name, if the book holds it.
func (b *callBook) get(name string) *ticket {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls[name]
}

// take removes a finished call from the book (its outcome has been given).
func (b *callBook) take(t *ticket) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.calls[t.name] != t {
		return
	}
	delete(b.calls, t.name)
	for i, name := range b.order {
		if name == t.name {
			b.order = append(b.order[:i], b.order[i+1:]...)
			break
		}
	}
}

// collect returns the outcome of each named call that has one (removing it from the book), and
// an unknown outcome for each name the book does not hold.
func (b *callBook) collect(names []string) []CallOutcome {
	var out []CallOutcome
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		t := b.get(name)
		if t == nil {
			out = append(out, unknownCall(name))
			continue
		}
		select {
		case <-t.done:
			b.take(t)
			out = append(out, t.outcome)
		default:
		}
	}
	return out
}

func unknownCall(name string) CallOutcome {
	return CallOutcome{Call: name, Status: StatusUnknown, Error: failure(ReasonNotFound,
		"there is no call %q here: its outcome was already given, or it was made on another connection (each MCP session has its own)", name)}
}

// book returns the book that holds the call named name: the connection's own, else the
// server's kept calls.
func (c *conn) book(name string) *callBook {
	if strings.HasPrefix(name, keptPrefix) {
		return &c.s.kept
	}
	return &c.calls
}

const keptPrefix = "call:kept-"

// collectCalls collects the named calls from the books that hold them (see callBook.collect).
func (c *conn) collectCalls(names []string) []CallOutcome {
	var own, kept []string
	for _, name := range names {
		if c.book(name) == &c.calls {
			own = append(own, name)
		} else {
			kept = append(kept, name)
		}
	}
	return append(c.calls.collect(own), c.s.kept.collect(kept)...)
}

// outcomeOf says how a call ended, for a wait or cancel_call that collects it.
func outcomeOf(t *ticket, res CallResult, err error) CallOutcome {
	o := CallOutcome{Call: t.name, ID: t.instance, Tool: t.tool, Revision: t.revision}
	if err == nil {
		o.Status, o.Result = StatusOK, res.Result
		return o
	}
	o.Error = errorOf(err)
	switch o.Error.Reason {
	case ReasonDenied:
		o.Status = StatusDenied
	case ReasonVoided, ReasonCatalogChanged:
		o.Status = StatusVoided
	case ReasonWithdrawn:
		o.Status = StatusWithdrawn
	default:
		o.Status = StatusFailed
	}
	return o
}

// callTicketed runs a call under the connection and answers by the bound: with the call's result
// or error when it is done, else with a Ticket. A request cancelled before its bound (MCP's
// notifications/cancelled, the CLI's Ctrl-C) withdraws the call as an unbounded one would be.
func (s *Server) callTicketed(ctx context.Context, c *conn, id uint64, in *host.Instance, req host.CallRequest,
	bound time.Duration, keep bool, status func() Progress, card *atomic.Uint64) (any, error) {
	t := &ticket{instance: in.ID(), tool: req.Tool, revision: req.Revision, card: card, done: make(chan struct{}),
		client: peer{name: c.client(), uid: c.cred.uid, pid: c.pid}}
	book, prefix, parent, wg := &c.calls, "call:", c.ctx, &c.reqs
	if keep {
		book, prefix, parent, wg = &s.kept, keptPrefix, s.ctx, &s.wg
	}
	if err := book.add(t, prefix, s.logf); err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithCancelCause(parent)
	t.cancel = cancel
	// This request is counted in c.reqs and its connection's reader in s.wg, so neither group
	// can be waited to zero meanwhile.
	wg.Add(1)
	go func() { // owner: the connection, or the server when kept; ends with the call (cancel_call, the request's cancel before its bound, and the end of the connection, or of the server when kept, cancel it)
		defer wg.Done()
		res, err := in.Call(callCtx, req)
		cancel(nil)
		out := CallResult{Status: StatusOK, ID: in.ID(), Tool: req.Tool, Revision: req.Revision, Result: res}
		book.finish(t, out, err)
	}()

	stop := c.heartbeat(ctx, id, status)
	defer stop()
	timer := time.NewTimer(min(max(bound, 0), maxTicketAfter))
	defer timer.Stop()
	select {
	case <-t.done:
	case <-ctx.Done():
		cancel(context.Cause(ctx))
		<-t.done
	case <-timer.C:
		select {
		case <-t.done: // done at the bound: no need for a ticket
		default: // from now on wait and cancel_call collect its outcome
			return s.ticketOf(t), nil
		}
	}
	book.take(t)
	if t.err != nil {
		return nil, t.err
	}
	return t.result, nil
}

// ticketOf is the answer for a call still under way: awaiting_approval while its card waits.
func (s *Server) ticketOf(t *ticket) Ticket {
	tk := Ticket{Status: StatusRunning, Call: t.name, ID: t.instance, Tool: t.tool}
	if card := t.card.Load(); card != 0 {
		tk.Status, tk.Card = StatusAwaitingApproval, card
		if strings.HasPrefix(t.name, keptPrefix) { // call --no-wait: the server keeps it
			tk.Message = fmt.Sprintf("The person has not answered the approval card for %s on %s yet; the call stays pending until they do, "+
				"after this connection ends too. Collect its outcome with: tickmux wait --call %s", t.tool, t.instance, t.name)
			return tk
		}
		// The call belongs to this connection (one MCP session): say so, so that a client that
		// exits after the ticket is not told the card stays.
		tk.Message = fmt.Sprintf("The person has not answered the approval card for %s on %s yet; the call stays pending while this session lasts "+
			"(if this client disconnects, the card is withdrawn and nothing is done). "+
			"Call wait with {\"calls\": [%q]} to get its outcome (call it again while it times out), or cancel_call to withdraw it.", t.tool, t.instance, t.name)
		return tk
	}
	tk.Message = fmt.Sprintf("%s has not answered %s yet; the call goes on. Call wait with {\"calls\": [%q]} to get its outcome.", t.instance, t.tool, t.name)
	return tk
}

// cancelCall withdraws a ticketed call and gives its outcome: withdrawn (effect none) while its
// card was pending, else however the call ended (a call the Tick was running is cancelled
// there, and the outcome's effect says what it may have done).
func (s *Server) cancelCall(ctx context.Context, c *conn, p CancelCallParams) (CallOutcome, error) {
	book := c.book(p.Call)
	t := book.get(p.Call)
	if t == nil {
		return unknownCall(p.Call), nil
	}
	t.cancel(errWithdrawnByClient)
	select {
	case <-t.done:
	case <-ctx.Done():
		return CallOutcome{}, failure(ReasonCancelled, "cancel_call was itself cancelled; %s was told to stop, and wait with calls gives its outcome", p.Call)
	}
	book.take(t)
	return t.outcome, nil
}

// errWithdrawnByClient is the cause of a call withdrawn with cancel_call.
var errWithdrawnByClient = fmt.Errorf("the client withdrew the call: %w", context.Canceled)

// peer is a client as the server knows it: the name it gave itself (hello; not authenticated)
// and its uid and process (SO_PEERCRED), which bound its kept calls.
type peer struct {
	name string
	uid  int
	pid  int
}

func (p peer) String() string { return fmt.Sprintf("%s, pid %d", p.name, p.pid) }
