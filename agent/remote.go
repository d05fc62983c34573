package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"tickmux/host"
	"tickmux/internal/remotewire"
	"tickmux/tick/wire"
)

// The other hosts of the config's [[hosts]] (issue 40), as the list method shows them: each one's
// state and, while it is up, what runs there. Read-only but for open with a host (a pane opened
// there once the person allows it here): nothing here calls a remote Tick; an agent calls a
// host's Ticks through the tickmux on that host.

// RemoteHosts is what the list method reads of the other hosts: the server's remote.Manager,
// through an adapter whose States converts remote.HostState to RemoteState (Ls is the Manager's
// own), and which is a RemoteOpener too (Open through the host's Link). Package agent does not import package remote: remote brings config, and config tcell,
// which the agent side must not pull in (TestNoUIInTheHostSide; the hook and `tickmux mcp` start
// without it).
type RemoteHosts interface {
	// States are every configured host's state, in the config's order.
	States() []RemoteState
	// Ls lists what runs on every host that is up, and must return by the time ctx ends with
	// whatever answered by then (remote.Manager.Ls does).
	Ls(ctx context.Context) map[string]remotewire.LsResult
}

// RemoteOpener is the RemoteHosts that open with a host opens through (the server's adapter is
// one; RemoteHosts that are not cannot open there: a list-only fake, an older embedder).
type RemoteOpener interface {
	RemoteHosts
	// Open opens argv in dir ("" the host's default) as a pane on host, as the person does from
	// a view there (a plain program when plain is set or argv is empty, else a Tick), sent once
	// and never again, and returns the pane's id there. It must not wait on the network beyond
	// ctx. Its failure is a *RemoteOpenError saying whether the request may have reached the
	// host.
	Open(ctx context.Context, host string, argv []string, dir string, plain bool) (paneID string, err error)
}

// RemoteOpenError is a failed RemoteHosts.Open.
type RemoteOpenError struct {
	// Sent says the request went out (or may have): what it did there is unknown, or the host
	// refused it saying it may have done something. False: nothing was opened there.
	Sent bool
	Err  error
}

func (e *RemoteOpenError) Error() string { return e.Err.Error() }
func (e *RemoteOpenError) Unwrap() error { return e.Err }

// RemoteState is one host's link (remote.HostState, field for field; State is remote.State's
// string: "connecting", "up" or "unreachable").
type RemoteState struct {
	Name     string
	State    string
	Since    time.Time
	NextTry  time.Time
	Reason   string
	Hostname string
	Down     time.Time
}

// Host states in a HostListing.
const (
	HostUp          = "up"
	HostConnecting  = "connecting"
	HostUnreachable = "unreachable"
)

// remoteLsBound bounds how long the list method waits for the hosts that are up: a host that
// hangs is listed without its Ticks, and ls answers all the same.
const remoteLsBound = 2 * time.Second

// hostsNote is the list's word to agents on the hosts' Ticks.
const hostsNote = "hosts are the other machines of the person's config, listed read-only: their ids are each host's own; " +
	"describe, read, call or wait on them through the tickmux on that host (its own socket and MCP server), never here"

// hostListings lists the configured hosts: their states, and what runs on those that are up and
// answered within remoteLsBound (or before ctx ends).
func (s *Server) hostListings(ctx context.Context) []HostListing {
	if s.remote == nil {
		return nil
	}
	states := s.remote.States()
	if len(states) == 0 {
		return nil
	}
	var ls map[string]remotewire.LsResult
	for _, st := range states {
		if st.State == HostUp {
			lctx, cancel := context.WithTimeout(ctx, remoteLsBound)
			ls = s.remote.Ls(lctx)
			cancel()
			break
		}
	}
	now := time.Now()
	out := make([]HostListing, 0, len(states))
	for _, st := range states {
		l := listingOf(st, now)
		if st.State == HostUp {
			if r, ok := ls[st.Name]; ok {
				l.Ticks, l.Agents = r.Ticks, r.Agents
			} else {
				l.Note = "it did not list what runs there within " + remoteLsBound.String()
			}
		}
		out = append(out, l)
	}
	return out
}

// listingOf is a host's state as the list shows it, without what runs there.
func listingOf(st RemoteState, now time.Time) HostListing {
	l := HostListing{Name: st.Name, State: st.State, Reason: st.Reason, Hostname: st.Hostname}
	if !st.Since.IsZero() {
		l.Since = st.Since.UTC().Format(time.RFC3339)
	}
	if !st.Down.IsZero() && st.State != HostUp {
		l.Down = st.Down.UTC().Format(time.RFC3339)
	}
	switch st.State {
	case HostUnreachable:
		if !st.NextTry.IsZero() {
			l.NextTry = st.NextTry.UTC().Format(time.RFC3339)
			in := max(int64(st.NextTry.Sub(now).Round(time.Second)/time.Second), 0)
			l.NextTryInS = &in
		}
	case HostUp:
		l.Reason = ""
	}
	return l
}

// remoteOpenBound bounds how long an allowed open on another host waits for that host's answer.
const remoteOpenBound = 30 * time.Second

// openRemote opens a pane on another host (OpenParams.Host) once the person allows it here: the
// card says the host, and only the person's answer sends the open, once. An unknown host, or one
// that is not up, is refused before any card.
func (s *Server) openRemote(ctx context.Context, c *conn, id uint64, p OpenParams) (_ TickInfo, err error) {
	if p.Sandbox {
		return TickInfo{}, failure(ReasonBadRequest, "a pane on another host cannot be sandboxed: its tickmux opens it as the person does from a view there; open it without sandbox, or here")
	}
	if s.agentOnly() {
		// What runs in a sandboxed pane opens only sandboxed panes, and one on another host
		// cannot be.
		return TickInfo{}, failure(ReasonBadRequest, "an open from inside a sandboxed pane is sandboxed, and a pane on another host cannot be: no open on %s from here", host.Printable(p.Host, false))
	}
	if err := s.remoteUp(p.Host); err != nil {
		return TickInfo{}, err
	}
	opener, ok := s.remote.(RemoteOpener)
	if !ok {
		return TickInfo{}, failure(ReasonFailed, "this tickmux cannot open panes on other hosts")
	}
	what := fmt.Sprintf("opening %q on %s", p.Command, p.Host)
	if p.Shell {
		what = "opening a shell on " + p.Host
		if len(p.Command) > 0 {
			what = fmt.Sprintf("opening the program %q on %s", p.Command, p.Host)
		}
	}
	if p.Cwd != "" {
		what += " in " + p.Cwd
	}
	req := host.ApprovalRequest{Action: host.ActionOpen, Client: c.client(), Argv: p.Command, Dir: p.Cwd, Shell: p.Shell, Host: p.Host}
	rec, err := s.approve(ctx, c, id, req, what)
	if err != nil {
		return TickInfo{}, err
	}
	defer func() { rec.FinishWith(journalOutcome(err), nil) }()
	// The person allowed it: it goes out whether or not the client still waits (as a local
	// open starts), once, bounded, and the host's listing shows it here.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), remoteOpenBound)
	pane, err := opener.Open(octx, p.Host, p.Command, p.Cwd, p.Shell)
	cancel()
	if err != nil {
		e := &Error{Message: fmt.Sprintf("cannot open %q on %s: %v", p.Command, p.Host, err), Effect: wire.EffectUnknown, Reason: ReasonFailed}
		if roe := (*RemoteOpenError)(nil); errors.As(err, &roe) && !roe.Sent {
			e.Effect = wire.EffectNone
		}
		return TickInfo{}, e
	}
	rec.SetInstance(p.Host + ":" + pane)
	t := TickInfo{ID: pane, Host: p.Host, Type: "tick", Status: StatusOpened, Command: p.Command, Cwd: p.Cwd}
	if p.Shell || len(p.Command) == 0 {
		t.Type = "shell"
	}
	return t, nil
}

// StatusOpened is TickInfo.Status of a pane opened on another host.
const StatusOpened = "opened"

// remoteUp refuses an open on a host that is not in the config or not up, saying which are.
func (s *Server) remoteUp(name string) error {
	var states []RemoteState
	if s.remote != nil {
		states = s.remote.States()
	}
	i := slices.IndexFunc(states, func(st RemoteState) bool { return st.Name == name })
	if i < 0 {
		if len(states) == 0 {
			return failure(ReasonNotFound, "no host %q: this tickmux has no other hosts (the config's [[hosts]]; tickmux hosts add)", host.Printable(name, false))
		}
		names := make([]string, len(states))
		for j, st := range states {
			names[j] = st.Name
		}
		return failure(ReasonNotFound, "no host %q in the config's [[hosts]]: the hosts are %s", host.Printable(name, false), strings.Join(names, ", "))
	}
	if st := states[i]; st.State != HostUp {
		now := time.Now()
		return failure(ReasonFailed, "host %s is %s; nothing was asked of it", host.Printable(name, false), host.Printable(HostStatus(listingOf(st, now), now), false))
	}
	return nil
}
