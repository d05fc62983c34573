package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"tickmux/host"
	"tickmux/host/trim"
	"tickmux/tick/wire"
)

// maxClientName bounds the name a client gives itself (it is drawn on approval cards).
const maxClientName = 100

// dispatch runs one request for connection c. Every method sees only the instances clients may
// see (H-I1), and every change goes through the person's approval first (H-K2).
func (s *Server) dispatch(ctx context.Context, c *conn, req Request) (any, error) {
	if r, ok := routes[req.Method]; ok {
		return r(s, inbound{ctx: ctx, c: c, id: req.ID}, req.Params)
	}
	return nil, failure(ReasonBadRequest, "unknown method %q", req.Method)
}

// inbound is what a method sees of its request besides the params.
type inbound struct {
	ctx context.Context
	c   *conn
	id  uint64 // the request's id, which its progress names
}

// route is one method: it decodes the params and runs.
type route func(s *Server, r inbound, params json.RawMessage) (any, error)

// method makes the route of a method whose params decode into P (unknown fields and wrong types
// are refused by decodeParams, before the method runs).
func method[P any](run func(s *Server, r inbound, p P) (any, error)) route {
	return func(s *Server, r inbound, params json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return run(s, r, p)
	}
}

// routes lists the control protocol's methods (wire.go names them).
var routes = map[string]route{
	MethodHello:      method(func(s *Server, r inbound, p HelloParams) (any, error) { return s.hello(r.c, p) }),
	MethodList:       method(func(s *Server, r inbound, p ListParams) (any, error) { return s.list(r.ctx, p), nil }),
	MethodDescribe:   method(func(s *Server, r inbound, p IDParams) (any, error) { return s.describe(r.ctx, p) }),
	MethodRead:       method(func(s *Server, r inbound, p ReadParams) (any, error) { return s.read(r.c, p) }),
	MethodCall:       method(func(s *Server, r inbound, p CallParams) (any, error) { return s.call(r.ctx, r.c, r.id, p) }),
	MethodWait:       method(func(s *Server, r inbound, p WaitParams) (any, error) { return s.wait(r.ctx, r.c, p) }),
	MethodWatch:      method(func(s *Server, r inbound, p WatchParams) (any, error) { return s.watch(r.ctx, r.c, r.id, p) }),
	MethodOpen:       method(func(s *Server, r inbound, p OpenParams) (any, error) { return s.open(r.ctx, r.c, r.id, p) }),
	MethodClose:      method(func(s *Server, r inbound, p IDParams) (any, error) { return s.closeInstance(r.ctx, r.c, r.id, p) }),
	MethodSend:       method(func(s *Server, r inbound, p SendParams) (any, error) { return s.send(r.ctx, r.c, r.id, p) }),
	MethodCancelCall: method(func(s *Server, r inbound, p CancelCallParams) (any, error) { return s.cancelCall(r.ctx, r.c, p) }),
	MethodScreen:     method(func(s *Server, _ inbound, p IDParams) (any, error) { return s.screen(p) }),
	MethodJournal:    method(func(s *Server, r inbound, p JournalParams) (any, error) { return s.journal(r.c, p) }),
	MethodPermission: method(func(s *Server, r inbound, p PermissionParams) (any, error) { return s.permission(r.ctx, r.c, p) }),
	MethodAgentEvent: method(func(s *Server, r inbound, p AgentEventParams) (any, error) { return s.agentEvent(r.c, p) }),
}

func (s *Server) hello(c *conn, p HelloParams) (HelloResult, error) {
	if p.Protocol != 0 && p.Protocol != ProtocolVersion {
		return HelloResult{}, failure(ReasonBadRequest, "this tickmux speaks control protocol %d, the client %d; use the same tickmux binary for both", ProtocolVersion, p.Protocol)
	}
	name := strings.TrimSpace(p.Client)
	if name != "" {
		if utf8.RuneCountInString(name) > maxClientName {
			name = string([]rune(name)[:maxClientName]) + "…"
		}
		c.mu.Lock()
		c.name = name
		c.mu.Unlock()
	}
	return HelloResult{Server: "tickmux", Protocol: ProtocolVersion, PID: os.Getpid()}, nil
}

// visible returns the instance with id if clients may see it (H-I1).
func (s *Server) visible(id string) (*host.Instance, error) {
	if in := s.h.Get(id); in != nil && in.Visible() {
		return in, nil
	}
	if id == "" {
		return nil, failure(ReasonBadRequest, "no instance id given; list_ticks (tickmux ls) shows them")
	}
	return nil, failure(ReasonNotFound, "there is no instance %q; list_ticks (tickmux ls) shows the ids", id)
}

// tickOf is visible for methods that need a Tick, not a shell.
func (s *Server) tickOf(id, what string) (*host.Instance, error) {
	in, err := s.visible(id)
	if err != nil {
		return nil, err
	}
	if !in.IsTick() {
		return nil, failure(ReasonNotATick, "%s is a plain terminal program, not a Tick: it has no %s; use read_screen and send_input", id, what)
	}
	return in, nil
}

func info(in *host.Instance) TickInfo {
	t := TickInfo{ID: in.ID(), Type: "shell", Status: in.Status().String(), Title: in.Title(), Command: in.Argv(), Cwd: in.Dir(), Sandboxed: in.Sandboxed()}
	if t.Command == nil {
		t.Command = []string{}
	}
	if in.IsTick() {
		t.Type = "tick"
		if cat := in.Catalog(); cat != nil {
			d := cat.Descriptor
			t.Kind, t.Description, t.Revision, t.RecoverWith = d.Kind, d.Description, d.Revision, d.RecoverWith
		}
		st := in.State()
		if st.Valid {
			t.Seq = &st.Seq
		}
		t.Updates = &st.Updates
	}
	if e := in.EndInfo(); e != nil {
		t.Ended = e.Reason
	}
	return t
}

func (s *Server) list(ctx context.Context, p ListParams) ListResult {
	out := ListResult{Ticks: []TickInfo{}}
	now := time.Now()
	for _, in := range s.h.Instances() {
		if in.Visible() {
			t := info(in)
			if in.IsTick() {
				n := s.h.JournalCount(in.ID())
				t.Decisions = &n
			}
			if a, ok := s.h.Agents().ForPane(in.ID()); ok {
				t.Agent = &AgentInfo{Name: a.Agent, Session: a.Session, State: string(a.State), Since: a.Since.UTC().Format(time.RFC3339),
					ForS: int64(now.Sub(a.Since) / time.Second), Detail: a.Detail}
			}
			out.Ticks = append(out.Ticks, t)
		}
	}
	if q, ok := s.h.Approver().(host.CardLister); ok {
		out.PendingApprovals = len(q.Pending())
	}
	if s.attached != nil {
		n := s.attached()
		out.Views = &n
		if n == 0 && out.PendingApprovals > 0 {
			out.Note = fmt.Sprintf("%d approval(s) pending and no view is attached: they wait until the person runs tickmux attach", out.PendingApprovals)
		}
	}
	if !p.Hosts {
		return out
	}
	if out.Hosts = s.hostListings(ctx); len(out.Hosts) > 0 {
		out.HostsNote = hostsNote
	}
	return out
}

// noView is added to a waiting request's progress when no view is attached to answer it.
func (s *Server) noView() string {
	if s.attached != nil && s.attached() == 0 {
		return "; no view is attached: the card waits until the person runs tickmux attach"
	}
	return ""
}

// describe asks the Tick for its catalog afresh (H-R1): a catalog can change at any time, and only
// a describe tells the host (H-K3).
func (s *Server) describe(ctx context.Context, p IDParams) (Description, error) {
	in, err := s.tickOf(p.ID, "catalog")
	if err != nil {
		return Description{}, err
	}
	cat, err := in.Describe(ctx)
	if err != nil {
		return Description{}, err
	}
	d := cat.Descriptor
	out := Description{ID: in.ID(), Kind: d.Kind, Title: d.Title, Description: d.Description, Revision: d.Revision,
		Tools: make([]ToolInfo, 0, len(d.Tools)), RecoverWith: d.RecoverWith, State: d.State}
	for _, t := range d.Tools {
		out.Tools = append(out.Tools, ToolInfo{Name: t.Name, Description: t.Description, InputSchema: clean(t.InputSchema), Mutates: t.Mutates,
			NotChecked: cat.Unchecked(t.Name)})
	}
	return out, nil
}

// read returns the latest state the host holds (H-U2), trimmed like a delivery of one unless
// full is asked, and remembers its seq as given to this client.
func (s *Server) read(c *conn, p ReadParams) (ReadResult, error) {
	in, err := s.tickOf(p.ID, "state")
	if err != nil {
		return ReadResult{}, err
	}
	e, ok := entryOf(in)
	if !ok {
		return ReadResult{}, failure(ReasonNotReady, "%s has no state yet", p.ID)
	}
	if !p.Full {
		e = trim.Fit([]trim.Entry{e})[0]
	}
	c.gave(in.ID(), e.Seq)
	return ReadResult{ID: e.ID, Seq: e.Seq, At: e.At, Data: e.Data, RecoverWith: e.RecoverWith, Trimmed: e.Trimmed}, nil
}

// clean is a Tick's JSON as people and models read it (wire.Clean): the fewest escapes and
// plain, exact numbers, whatever the Tick's encoder wrote (`"\u0070ulses": 5000E-1` is
// `"pulses": 500`). The host validated it; should Clean refuse it all the same, it goes as it is.
func clean(raw json.RawMessage) json.RawMessage {
	if c, err := wire.Clean(raw); err == nil {
		return c
	}
	return raw
}

// entryOf is the instance's latest state as a delivery entry, merged not yet counted. Its data
// is clean (see clean) before any trimming, so the delivery budget counts what is delivered.
func entryOf(in *host.Instance) (trim.Entry, bool) {
	st := in.State()
	if !st.Valid {
		return trim.Entry{}, false
	}
	e := trim.Entry{ID: in.ID(), Seq: st.Seq, At: st.At, Data: clean(st.Data)}
	if cat := in.Catalog(); cat != nil {
		e.RecoverWith = cat.Descriptor.RecoverWith // H-RC1: named, never called by the host
		if cat.Descriptor.State != nil {
			e.Series = cat.Descriptor.State.Series
		}
	}
	return e, true
}

// call runs a tool through the host, which checks the revision and the args (H-K1), asks the
// person for a mutating tool (H-K2), voids the approval when the catalog moves on (H-K3) and
// never resends (H-K5). The call carries the revision resolved here, so the answer can name it.
// A query (p.Query) refuses a mutating tool before anything happens; since the call carries the
// revision whose catalog was checked, a catalog that changes meanwhile fails it (H-K3) rather
// than letting a query run a tool that now mutates. With a bound (p.TicketAfterS) the answer may
// be a Ticket (calls.go).
func (s *Server) call(ctx context.Context, c *conn, id uint64, p CallParams) (any, error) {
	in, err := s.tickOf(p.ID, "tools")
	if err != nil {
		return nil, err
	}
	if p.Tool == "" {
		return nil, failure(ReasonBadRequest, "no tool named; describe_tick lists the tools")
	}
	cat := in.Catalog()
	if cat == nil {
		return nil, failure(ReasonNotReady, "%s has no catalog yet", p.ID)
	}
	revision := p.Revision
	if revision == "" {
		revision = cat.Revision()
	}
	args := p.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	client := c.client()
	tool := cat.Tool(p.Tool)
	if p.Query {
		if revision != cat.Revision() {
			return nil, failure(ReasonCatalogChanged, "%s has catalog revision %s now, not %s: describe_tick again before calling", in.ID(), cat.Revision(), revision)
		}
		if tool != nil && tool.Mutates {
			return nil, failure(ReasonMutates, "%s on %s changes things (mutates: true), so query_tick does not run it; use call_tick, which asks the person first", p.Tool, in.ID())
		}
	}
	var card atomic.Uint64 // the call's approval card while it waits, told by the host
	status := func() Progress {
		if id := card.Load(); id != 0 {
			return Progress{Phase: PhaseApproval, Card: id,
				Message: fmt.Sprintf("waiting for the person to approve %s on %s in tickmux (card %d)%s", p.Tool, in.ID(), id, s.noView())}
		}
		return Progress{Phase: PhaseRunning, Message: fmt.Sprintf("waiting for %s to answer %s", in.ID(), p.Tool)}
	}
	req := host.CallRequest{Client: client, Peer: c.peer(), Tool: p.Tool, Args: args, Revision: revision, Card: card.Store}
	if p.TicketAfterS != nil {
		bound := time.Duration(min(max(*p.TicketAfterS, 0), maxTicketAfter.Seconds()) * float64(time.Second))
		return s.callTicketed(ctx, c, id, in, req, bound, p.Keep, status, &card)
	}
	stop := c.heartbeat(ctx, id, status)
	res, err := in.Call(ctx, req)
	stop()
	if err != nil {
		return nil, err
	}
	return CallResult{Status: StatusOK, ID: in.ID(), Tool: p.Tool, Revision: revision, Result: res}, nil
}

// approve puts an agent's open, close or send before the person and waits for the answer, with
// progress meanwhile. what completes "the person denied …". When allowed, the caller tells the
// returned journal record the outcome (Record.FinishWith; nil records nothing).
func (s *Server) approve(ctx context.Context, c *conn, id uint64, req host.ApprovalRequest, what string) (*host.Record, error) {
	ap := s.h.Approver()
	if ap == nil {
		return nil, failure(ReasonNoApprover, "nobody can approve %s here: this tickmux has no screen to ask the person on", what)
	}
	var card atomic.Uint64
	req.Shown = card.Store
	rec := s.h.NewRecord(req, c.peer())
	rec.Watch(&req)
	stop := c.heartbeat(ctx, id, func() Progress {
		if n := card.Load(); n != 0 {
			return Progress{Phase: PhaseApproval, Card: n, Message: fmt.Sprintf("waiting for the person to approve %s in tickmux (card %d)%s", what, n, s.noView())}
		}
		return Progress{Phase: PhaseApproval, Message: "waiting for the person to approve " + what + " in tickmux" + s.noView()}
	})
	err := ap.Approve(ctx, req)
	stop()
	var fail error
	switch {
	case err == nil:
		rec.Sent()
		return rec, nil
	case errors.Is(err, host.ErrDenied):
		fail = failure(ReasonDenied, "the person denied %s", what)
	case ctx.Err() != nil:
		fail = failure(ReasonWithdrawn, "%s was withdrawn before the person answered: %v", what, context.Cause(ctx))
	default:
		fail = failure(ReasonFailed, "%s was not approved: %v", what, err)
	}
	rec.FinishWith(journalOutcome(fail), err)
	return nil, fail
}

// open starts a program once the person allows it, and waits until a Tick has initialized (or
// failed to, H-I1).
func (s *Server) open(ctx context.Context, c *conn, id uint64, p OpenParams) (_ TickInfo, err error) {
	if len(p.Command) == 0 && !p.Shell {
		return TickInfo{}, failure(ReasonBadRequest, "no command given: open_tick needs the Tick's argv, such as [\"tickmux\", \"example\", \"counter\"]")
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return TickInfo{}, failure(ReasonBadRequest, "cwd %q is not an absolute path", p.Cwd)
	}
	if p.Host != "" {
		return s.openRemote(ctx, c, id, p) // remote.go
	}
	what := fmt.Sprintf("opening %q", p.Command)
	if p.Shell {
		what = "opening a shell"
		if len(p.Command) > 0 {
			what = fmt.Sprintf("opening the program %q", p.Command)
		}
	}
	if p.Cwd != "" {
		what += " in " + p.Cwd
	}
	// What cannot start is refused now, not after the person approved it.
	if err := host.CheckCommand(p.Command, p.Cwd); err != nil {
		return TickInfo{}, failure(ReasonFailed, "%v", err)
	}
	spec := host.OpenSpec{Argv: p.Command, Dir: p.Cwd, Shell: p.Shell, Sandbox: p.Sandbox || s.agentOnly(), ByAgent: true}
	sandboxed := s.h.Sandboxed(spec)
	if sandboxed {
		if _, err := host.SandboxAvailable(); err != nil {
			return TickInfo{}, failure(ReasonFailed, "%v", err)
		}
		what += ", sandboxed"
	}
	req := host.ApprovalRequest{Action: host.ActionOpen, Client: c.client(), Argv: p.Command, Dir: p.Cwd, Shell: p.Shell, Sandboxed: sandboxed}
	rec, err := s.approve(ctx, c, id, req, what)
	if err != nil {
		return TickInfo{}, err
	}
	defer func() { rec.FinishWith(journalOutcome(err), nil) }()
	in, err := s.h.Open(spec)
	if in != nil {
		rec.SetInstance(in.ID())
	}
	if err != nil {
		return TickInfo{}, failure(ReasonFailed, "cannot open %q: %v", p.Command, err)
	}
	select {
	case <-in.Ready():
	case <-ctx.Done():
		return TickInfo{}, &Error{Message: fmt.Sprintf("%s was opened and is still starting; the client stopped waiting", in.ID()),
			Effect: wire.EffectPossible, Reason: ReasonCancelled}
	}
	if in.Status() != host.StatusReady {
		select { // the screen excerpt is taken once the process has ended (H-I1)
		case <-in.Ended():
		case <-ctx.Done():
		}
		e := in.EndInfo()
		msg := fmt.Sprintf("%s did not start: %s", in.ID(), e.Reason)
		if e.Screen != "" {
			msg += "; its screen showed: " + e.Screen
		}
		// The program ran, so it may have done something before it failed.
		return TickInfo{}, &Error{Message: msg, Effect: wire.EffectPossible, Reason: ReasonFailed, Rule: e.Rule}
	}
	return info(in), nil
}

func (s *Server) closeInstance(ctx context.Context, c *conn, id uint64, p IDParams) (CloseResult, error) {
	in, err := s.visible(p.ID)
	if err != nil {
		return CloseResult{}, err
	}
	req := host.ApprovalRequest{Action: host.ActionClose, Client: c.client(), Instance: in.ID(), Title: in.Title()}
	rec, err := s.approve(ctx, c, id, req, "closing "+in.ID())
	if err != nil {
		return CloseResult{}, err
	}
	if err := s.h.Remove(in.ID()); err != nil {
		err := failure(ReasonNotFound, "%v", err)
		rec.FinishWith(journalOutcome(err), nil)
		return CloseResult{}, err
	}
	rec.FinishWith(journalOutcome(nil), nil)
	return CloseResult{ID: in.ID(), Closed: true}, nil
}

func (s *Server) send(ctx context.Context, c *conn, id uint64, p SendParams) (SendResult, error) {
	in, err := s.visible(p.ID)
	if err != nil {
		return SendResult{}, err
	}
	if p.Text == "" {
		return SendResult{}, failure(ReasonBadRequest, "no text to send")
	}
	if st := in.Status(); st != host.StatusReady {
		return SendResult{}, failure(ReasonNotReady, "%s has %s; there is nothing to type into", in.ID(), st)
	}
	req := host.ApprovalRequest{Action: host.ActionSend, Client: c.client(), Instance: in.ID(), Title: in.Title(), Text: p.Text}
	rec, err := s.approve(ctx, c, id, req, "typing into "+in.ID())
	if err != nil {
		return SendResult{}, err
	}
	if err := in.Process().Input([]byte(p.Text)); err != nil {
		err := failure(ReasonFailed, "cannot type into %s: %v", in.ID(), err)
		rec.FinishWith(journalOutcome(err), nil)
		return SendResult{}, err
	}
	rec.FinishWith(journalOutcome(nil), nil)
	return SendResult{ID: in.ID(), Bytes: len(p.Text)}, nil
}

func (s *Server) screen(p IDParams) (ScreenResult, error) {
	in, err := s.visible(p.ID)
	if err != nil {
		return ScreenResult{}, err
	}
	t := in.Terminal()
	cols, rows := t.Size()
	return ScreenResult{ID: in.ID(), Cols: cols, Rows: rows, Text: t.Text()}, nil
}
