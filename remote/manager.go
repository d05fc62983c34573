package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"tickmux/config"
	"tickmux/internal/remotewire"
)

// Manager keeps a Link to every configured host: their states, one queue of their cards, answers
// and listings. A host that hangs or is slow touches no other: each link has its own goroutines,
// and no method waits on the network beyond its context.
type Manager struct {
	links   []*Link
	byName  map[string]*Link
	changed func()

	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{} // the 1-slot mailbox of Options.Changed
	wg     sync.WaitGroup
	once   sync.Once
}

// NewManager makes the links to hosts (config.Host names are unique: config checks it); Start
// starts them. opts.Changed is called, coalesced, from the Manager's own goroutine.
func NewManager(hosts []config.Host, opts Options) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{byName: map[string]*Link{}, changed: opts.Changed, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
	lo := opts
	lo.Changed = m.notify
	for _, h := range hosts {
		l := NewLink(h, lo)
		m.links = append(m.links, l)
		m.byName[h.Name] = l
	}
	return m
}

// Start starts every link.
func (m *Manager) Start() {
	m.once.Do(func() {
		if m.ctx.Err() != nil {
			return
		}
		m.wg.Add(1)
		go func() { // owner: Manager; calls Options.Changed, coalesced; ends at Close
			defer m.wg.Done()
			for {
				select {
				case <-m.ctx.Done():
					return
				case <-m.wake:
					if m.changed != nil {
						m.changed()
					}
				}
			}
		}()
		for _, l := range m.links {
			l.Start()
		}
	})
}

// Close kills every link's ssh and waits until their processes and goroutines are gone.
func (m *Manager) Close() {
	m.cancel()
	var wg sync.WaitGroup
	for _, l := range m.links {
		wg.Add(1)
		go func() { // owner: Manager.Close; ends when the link has closed
			defer wg.Done()
			l.Close()
		}()
	}
	wg.Wait()
	m.wg.Wait()
}

func (m *Manager) notify() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Link is the link to the host named name (nil when there is none).
func (m *Manager) Link(name string) *Link { return m.byName[name] }

// States are every host's state, in the config's order.
func (m *Manager) States() []HostState {
	out := make([]HostState, len(m.links))
	for i, l := range m.links {
		out[i] = l.State()
	}
	return out
}

// Cards are every host's latest cards in one queue, in the order they started waiting (across
// hosts; the config's order, then the host's, among equals). A host that is not up keeps its
// last known cards, not Reachable: nobody can answer them now.
func (m *Manager) Cards() []HostCard {
	var out []HostCard
	for _, l := range m.links {
		cards, reachable := l.Cards()
		for _, c := range cards {
			out = append(out, HostCard{Host: l.Name(), Card: c, Reachable: reachable})
		}
	}
	slices.SortStableFunc(out, func(a, b HostCard) int { return a.Card.Since.Compare(b.Card.Since) })
	return out
}

// Answer answers card on host as the person did in the view named view (decision is
// remotewire.Once, Revision or Deny), naming the digest of the card as the person read it, so
// that the host refuses it if the card changed since. It is sent once and never again: when the
// connection drops, or ctx ends, before the host's word comes back, the error is an
// *AnswerUnknownError, and the host's card list tells once it is back. A host that is not up
// gets nothing (*UnreachableError); the host's refusal is a *RemoteError.
func (m *Manager) Answer(ctx context.Context, host string, card remotewire.Card, decision, view string) error {
	l := m.byName[host]
	if l == nil {
		return fmt.Errorf("no host %q in the config's [[hosts]]", host)
	}
	switch decision {
	case remotewire.Once, remotewire.Revision, remotewire.Deny:
	default:
		return fmt.Errorf("answer %q: the decision is %q, %q or %q", decision, remotewire.Once, remotewire.Revision, remotewire.Deny)
	}
	digest := card.Digest
	if digest == "" {
		digest = remotewire.CardDigest(card)
	}
	err := l.Call(ctx, remotewire.MethodAnswer, remotewire.AnswerParams{Card: card.ID, Digest: digest, Decision: decision, View: view}, nil)
	var lost *LostError
	if errors.As(err, &lost) {
		return &AnswerUnknownError{Host: host, Card: card.ID, Lost: lost}
	}
	return err
}

// AnswerUnknownError is an answer that went out and got no word back: whether the host took it
// is unknown, and the host's card list tells once it is reachable. Answer never sends it again.
type AnswerUnknownError struct {
	Host string
	Card uint64
	Lost *LostError
}

func (e *AnswerUnknownError) Error() string {
	return fmt.Sprintf("card %d on %s: the answer went out but no word came back (%s): whether %s took it is unknown; its card list will tell once it is reachable",
		e.Card, e.Host, e.Lost.Cause, e.Host)
}

func (e *AnswerUnknownError) Unwrap() error { return e.Lost }

// Ls lists what runs on every host that is up, each asked at once; a host that does not answer
// before ctx ends is left out (States says why when it is unreachable).
func (m *Manager) Ls(ctx context.Context) map[string]remotewire.LsResult {
	out := map[string]remotewire.LsResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, l := range m.links {
		if l.State().State != Up {
			continue
		}
		wg.Add(1)
		go func() { // owner: Manager.Ls; ends when the host answers or ctx ends
			defer wg.Done()
			var r remotewire.LsResult
			if l.Call(ctx, remotewire.MethodLs, struct{}{}, &r) == nil {
				mu.Lock()
				out[l.Name()] = r
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}
