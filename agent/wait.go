package agent

import (
	"context"
	"time"

	"tickmux/host"
	"tickmux/host/trim"
)

// Subscriptions and delivery (HOST.md H-SUB1, H-SUB2, H-U2, H-RC1).
//
// A wait falls due when any instance in its scope has news: a state whose seq is above what the
// caller has seen. What the caller has seen is its after_seq for that id when it gives one, else
// the seq this connection was last given (by a wait or a read); an instance the connection was
// never given counts as news. The wait sleeps on a host event mailbox (no polling) and delivers,
// per instance with news, the latest state, how many updates were merged into it, and the recovery
// tool, trimmed to the delivery budget.

// maxTimeoutS: a longer timeout waits until news (and keeps the Duration from overflowing).
const maxTimeoutS = 365 * 24 * 3600

// minCursorSweep is the smallest cursor table gave sweeps.
const minCursorSweep = 64

// gave records that this connection was given seq of instance id. Whenever the table has doubled
// since the last sweep, the cursors of instances the host no longer has are dropped: a client that
// lives long while many Ticks come and go keeps a table about the size of what is open.
func (c *conn) gave(id string, seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.cursors[id]; !ok || seq > cur {
		c.cursors[id] = seq
	}
	if len(c.cursors) >= 2*max(c.cursorsKept, minCursorSweep) {
		dropCursors(c.cursors, func(id string) bool { return c.s.h.Get(id) != nil })
		c.cursorsKept = len(c.cursors)
	}
}

// dropCursors deletes the cursors of the instances that are not live.
func dropCursors(cursors map[string]uint64, live func(id string) bool) {
	for id := range cursors {
		if !live(id) {
			delete(cursors, id)
		}
	}
}

func (c *conn) cursor(id string) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seq, ok := c.cursors[id]
	return seq, ok
}

func (s *Server) wait(ctx context.Context, c *conn, p WaitParams) (WaitResult, error) {
	for _, id := range p.IDs {
		if id == "" {
			return WaitResult{}, failure(ReasonBadRequest, "an empty id in ids")
		}
	}
	for _, name := range p.Calls {
		if name == "" {
			return WaitResult{}, failure(ReasonBadRequest, "an empty call in calls")
		}
	}
	// Subscribe before the first look, so news that lands in between still wakes the wait.
	sub := s.h.Subscribe()
	defer sub.Close()
	if p.FromNow {
		p.AfterSeq = s.baseline(c, p.AfterSeq)
	}
	var timeout <-chan time.Time
	if p.TimeoutS != nil && *p.TimeoutS < maxTimeoutS {
		t := time.NewTimer(max(time.Duration(*p.TimeoutS*float64(time.Second)), 0))
		defer t.Stop()
		timeout = t.C
	}
	for {
		outcomes, kept := c.calls.watch(), s.kept.watch()
		res := s.collect(c, p)
		if res.due() {
			return res, nil
		}
		if p.TimeoutS != nil && *p.TimeoutS <= 0 {
			res.TimedOut = true
			return res, nil
		}
		select {
		case <-sub.C():
			sub.Drain() // events carry no data: look again at what changed
		case <-outcomes:
		case <-kept:
		case <-timeout:
			res = s.collect(c, p)
			res.TimedOut = !res.due()
			return res, nil
		case <-ctx.Done():
			return WaitResult{}, failure(ReasonCancelled, "the wait was cancelled: %v", context.Cause(ctx))
		}
	}
}

// baseline adds to after, for every visible Tick this connection has no seq for, its seq now.
func (s *Server) baseline(c *conn, after map[string]uint64) map[string]uint64 {
	out := make(map[string]uint64, len(after))
	for id, seq := range after {
		out[id] = seq
	}
	for _, in := range s.h.Instances() {
		if !in.IsTick() || !in.Visible() {
			continue
		}
		if _, ok := out[in.ID()]; ok {
			continue
		}
		if _, ok := c.cursor(in.ID()); ok {
			continue
		}
		if st := in.State(); st.Valid {
			out[in.ID()] = st.Seq
		}
	}
	return out
}

// due says whether a delivery has anything to give.
func (r WaitResult) due() bool { return len(r.Entries) > 0 || len(r.Gone) > 0 || len(r.Calls) > 0 }

// collect builds the delivery due now for c, and records what it gives: the outcomes of the
// named calls that have one, and state news (none when only calls are named).
func (s *Server) collect(c *conn, p WaitParams) WaitResult {
	res := WaitResult{Entries: []trim.Entry{}, Calls: c.collectCalls(p.Calls)}
	var scope []*host.Instance
	named := len(p.IDs) > 0
	if len(p.Calls) > 0 && !named {
		return res
	}
	if named {
		seen := map[string]bool{}
		for _, id := range p.IDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			in := s.h.Get(id)
			switch {
			case in == nil || !in.Visible():
				res.Gone = append(res.Gone, Gone{ID: id, Reason: "there is no instance " + id})
			case !in.IsTick():
				res.Gone = append(res.Gone, Gone{ID: id, Reason: id + " is a plain terminal program: it has no state to wait for"})
			default:
				scope = append(scope, in)
			}
		}
	} else {
		for _, in := range s.h.Instances() {
			if in.IsTick() && in.Visible() {
				scope = append(scope, in)
			}
		}
	}
	for _, in := range scope {
		e, ok := entryOf(in)
		id := in.ID()
		after, known := p.AfterSeq[id]
		if !known {
			after, known = c.cursor(id)
		}
		if !ok || (known && e.Seq <= after) {
			if named && in.Status() == host.StatusEnded {
				reason := "ended"
				if end := in.EndInfo(); end != nil {
					reason = "ended: " + end.Reason
				}
				res.Gone = append(res.Gone, Gone{ID: id, Reason: reason})
			}
			continue
		}
		if known {
			e.Merged = in.MergedSince(after)
			if e.Merged > 0 {
				e.Missed = e.Merged - 1
			}
		} else {
			// First delivery to this connection: every update since launch was folded in, but
			// none was missed by it: it had not seen the Tick (a clock that ticked 237 times is
			// no reason to call recover_with on first contact).
			e.Merged = in.State().Updates
		}
		res.Entries = append(res.Entries, e)
	}
	if len(res.Entries) == 0 {
		return res
	}
	for _, e := range res.Entries {
		c.gave(e.ID, e.Seq)
	}
	res.Entries = trim.Fit(res.Entries) // H-SUB2: 16 KiB in all, 4 KiB each when several
	return res
}

// watch reports every new state of the instances in p (all when empty) as a Changed
// notification, and every change of their status or catalog and their removal as a Changed with
// Event, until the client cancels it. `tickmux mcp` uses it to send
// notifications/resources/updated.
func (s *Server) watch(ctx context.Context, c *conn, id uint64, p WatchParams) (struct{}, error) {
	want := map[string]bool{}
	for _, x := range p.IDs {
		want[x] = true
	}
	sub := s.h.Subscribe()
	defer sub.Close()
	for {
		select {
		case <-sub.C():
		case <-ctx.Done():
			return struct{}{}, failure(ReasonCancelled, "the watch ended: %v", context.Cause(ctx))
		}
		for _, ev := range sub.Drain() {
			if len(want) > 0 && !want[ev.ID] {
				continue
			}
			switch ev.Kind {
			case host.EventState:
				in := s.h.Get(ev.ID)
				if in == nil || !in.Visible() {
					continue
				}
				c.notify(NotifyChanged, Changed{Request: id, ID: ev.ID, Seq: in.State().Seq})
			case host.EventStatus, host.EventCatalog, host.EventRemoved:
				c.notify(NotifyChanged, Changed{Request: id, ID: ev.ID, Event: ev.Kind.String()})
			}
		}
	}
}
