package views

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"tickmux/host"
	"tickmux/internal/remotewire"
	"tickmux/remote"
)

// One queue over several hosts (issue 40): the cards of tickmux servers on other hosts (package
// remote, one ssh link per host) sit in the side panel with the local ones, in the order they
// started waiting, and the same keys answer them. A remote card gets a local id of its own for
// each (host, card, digest): when its host says the card changed, it is another card here, and
// the focus rules of card mode (a key answers only the card on screen) hold across hosts as they
// hold for local cards. An answer goes out once, in the background, and is never retried; the
// card stays until its host says it left, hidden meanwhile so that a second key cannot answer it
// again.

// RemoteQueue is the cards of the other hosts (remote.Manager).
type RemoteQueue interface {
	Cards() []remote.HostCard
	Answer(ctx context.Context, host string, card remotewire.Card, decision, view string) error
	States() []remote.HostState
}

// remoteBase is the first local id of a remote card: far above any local card's.
const remoteBase = 1 << 62

// remoteAnswerWait bounds one answer's round trip (a hung host: the card says so, nothing is
// retried).
const remoteAnswerWait = 30 * time.Second

// remoteCards maps the other hosts' cards to local ids (UI goroutine).
type remoteCards struct {
	q    RemoteQueue
	ids  map[remoteKey]uint64
	byID map[uint64]remote.HostCard
	next uint64
	sent map[uint64]bool // answered from here, until the host drops the card
	rung uint64          // the last remote card that rang the views
}

type remoteKey struct {
	host   string
	id     uint64
	digest string
}

// isRemote reports whether a card id is a remote card's.
func isRemote(id uint64) bool { return id >= remoteBase }

// cards is every remote card as a view draws it, with its local id; those answered from here
// are left out until their host drops them.
func (r *remoteCards) cards() []host.Card {
	if r.q == nil {
		return nil
	}
	hcs := r.q.Cards()
	if r.ids == nil {
		r.ids, r.byID, r.sent, r.next = map[remoteKey]uint64{}, map[uint64]remote.HostCard{}, map[uint64]bool{}, remoteBase
	}
	seen := make(map[uint64]bool, len(hcs))
	out := make([]host.Card, 0, len(hcs))
	for _, hc := range hcs {
		k := remoteKey{hc.Host, hc.Card.ID, hc.Card.Digest}
		id, ok := r.ids[k]
		if !ok {
			r.next++
			id = r.next
			r.ids[k] = id
		}
		r.byID[id] = hc
		seen[id] = true
		if r.sent[id] {
			continue
		}
		c := hc.Local()
		c.ID = id
		out = append(out, c)
	}
	for k, id := range r.ids { // what the hosts dropped is forgotten
		if !seen[id] {
			delete(r.ids, k)
			delete(r.byID, id)
			delete(r.sent, id)
		}
	}
	return out
}

// pending is every card waiting for the person: this host's and the other hosts', in the order
// they started waiting. UI goroutine.
func (a *App) pending() []host.Card {
	var cards []host.Card
	if a.queue != nil {
		cards = a.queue.Pending()
	}
	rc := a.remote.cards()
	if len(rc) == 0 {
		return cards
	}
	all := append(cards, rc...)
	slices.SortStableFunc(all, func(x, y host.Card) int { return x.Created.Compare(y.Created) })
	return all
}

// cardReachable reports whether a card can be answered now: a local one always, a remote one
// while its host is reachable.
func (a *App) cardReachable(id uint64) bool {
	if !isRemote(id) {
		return true
	}
	hc, ok := a.remote.byID[id]
	return ok && hc.Reachable
}

// answer answers card c from view: a local card in the queue, a remote one on its host (in the
// background). It reports whether the answer was taken.
func (a *App) answer(c host.Card, d host.Decision, view string) error {
	if !isRemote(c.ID) {
		return a.queue.AnswerFrom(c.ID, d, view)
	}
	hc, ok := a.remote.byID[c.ID]
	if !ok {
		return fmt.Errorf("that card went away")
	}
	if !hc.Reachable {
		return fmt.Errorf("host %s unreachable: cannot answer now", hc.Host)
	}
	decision := remotewire.Once
	switch d {
	case host.AllowRevision:
		decision = remotewire.Revision
	case host.Deny:
		decision = remotewire.Deny
	}
	if view == "" {
		view = "a view"
	}
	view += " on " + localHostname()
	a.remote.sent[c.ID] = true
	q, id := a.remote.q, c.ID
	go func() { // owner: the answer; ends with its round trip (remoteAnswerWait at most)
		ctx, cancel := context.WithTimeout(context.Background(), remoteAnswerWait)
		defer cancel()
		err := q.Answer(ctx, hc.Host, hc.Card, decision, view)
		if err == nil {
			return // the host's next list drops the card
		}
		a.post(func() {
			delete(a.remote.sent, id) // still waiting there, maybe: it shows again
			a.say(fmt.Sprintf("%s: %v", hc.Host, err))
			a.rebuild()
		})
	}()
	return nil
}

// localHostname names this machine for the other hosts' journals.
func localHostname() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "this host"
}

// RemoteChanged wakes the UI: a host's cards or state changed. Any goroutine.
func (a *App) RemoteChanged() { a.ApprovalsChanged() }

// hostStates is the other hosts that are not up, for the status bar: "gpu unreachable since
// 23:05, next try in 12s", "gpu unreachable since 23:05, trying again".
func (a *App) hostStates() []string {
	if a.remote.q == nil {
		return nil
	}
	var out []string
	now := a.now()
	states := a.remote.q.States()
	slices.SortFunc(states, func(x, y remote.HostState) int { return cmp.Compare(x.Name, y.Name) })
	for _, s := range states {
		// Unreachable, or trying again after it was: one spell, from when the host was lost (a
		// try can wait 10 s for a host that hangs, and the host is no nearer meanwhile).
		since := s.Down
		if since.IsZero() && s.State == remote.Unreachable {
			since = s.Since
		}
		if s.State == remote.Up || since.IsZero() {
			continue
		}
		msg := fmt.Sprintf("%s unreachable since %s", s.Name, since.Local().Format("15:04"))
		switch {
		case s.State == remote.Connecting:
			msg += ", trying again"
		case !s.NextTry.IsZero():
			msg += fmt.Sprintf(", next try in %s", max(0, s.NextTry.Sub(now)).Round(time.Second))
		}
		out = append(out, host.Printable(msg, false))
	}
	return out
}
