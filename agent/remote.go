package agent

import (
	"context"
	"time"

	"tickmux/internal/remotewire"
)

// The other hosts of the config's [[hosts]] (issue 40), as the list method shows them: each one's
// state and, while it is up, what runs there. Read-only: nothing here calls a remote Tick; an
// agent calls a host's Ticks through the tickmux on that host.

// RemoteHosts is what the list method reads of the other hosts: the server's remote.Manager,
// through an adapter whose States converts remote.HostState to RemoteState (Ls is the Manager's
// own). Package agent does not import package remote: remote brings config, and config tcell,
// which the agent side must not pull in (TestNoUIInTheHostSide; the hook and `tickmux mcp` start
// without it).
type RemoteHosts interface {
	// States are every configured host's state, in the config's order.
	States() []RemoteState
	// Ls lists what runs on every host that is up, and must return by the time ctx ends with
	// whatever answered by then (remote.Manager.Ls does).
	Ls(ctx context.Context) map[string]remotewire.LsResult
}

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
