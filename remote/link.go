package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"tickmux/config"
	"tickmux/internal/remotewire"
)

// Link is the connection to one host's tickmux server: one ssh process at a time, started again
// with backoff when it fails.
type Link struct {
	host    config.Host
	ssh     string
	logf    func(string, ...any)
	changed func()
	observe func(HostState)
	tm      timing

	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{} // the 1-slot mailbox of Changed
	wg     sync.WaitGroup

	mu      sync.Mutex
	started bool
	state   HostState
	conn    *conn // the connection, while up
	hello   remotewire.HelloResult
	shared  []string // the features both sides speak, while up
	cards   []remotewire.Card
	fresh   bool // cards came on the current connection

	pn paneState // the host's panes and the watches of them (panes.go)
}

// NewLink makes the link to host; Start starts it.
func NewLink(host config.Host, opts Options) *Link {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Link{
		host:    host,
		ssh:     opts.SSH,
		logf:    opts.Logf,
		changed: opts.Changed,
		observe: opts.observe,
		tm:      opts.timing.withDefaults(),
		ctx:     ctx,
		cancel:  cancel,
		wake:    make(chan struct{}, 1),
	}
	if l.ssh == "" {
		l.ssh = "ssh"
	}
	if l.host.Tickmux == "" {
		l.host.Tickmux = "tickmux"
	}
	l.state = HostState{Name: host.Name, State: Connecting, Since: time.Now()}
	return l
}

// Name is the host's name in the config.
func (l *Link) Name() string { return l.host.Name }

// Start starts connecting; the link keeps connecting until Close.
func (l *Link) Start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started || l.ctx.Err() != nil {
		return
	}
	l.started = true
	l.wg.Add(2)
	go func() { // owner: Link; ends at Close
		defer l.wg.Done()
		l.run()
	}()
	go func() { // owner: Link; calls Changed, coalesced; ends at Close
		defer l.wg.Done()
		l.notifier()
	}()
}

// Close kills the ssh process (its whole process group) and waits until every goroutine of the
// link has ended. Calls under way fail.
func (l *Link) Close() {
	l.cancel()
	l.wg.Wait()
}

// State is the link's state now.
func (l *Link) State() HostState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// Hello is the remote's answer to the current connection's hello; false when not up.
func (l *Link) Hello() (remotewire.HelloResult, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hello, l.conn != nil
}

// Cards is the host's latest pending cards, and whether they are current (the link is up and
// listed them on this connection) rather than the last known.
func (l *Link) Cards() ([]remotewire.Card, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.cards), l.conn != nil && l.fresh
}

// Call sends one request and decodes its answer into result (which may be nil). It never waits
// on the network beyond ctx: when the link is not up it fails at once with an *UnreachableError
// (nothing sent); an answer that does not come before ctx ends or the connection drops is a
// *LostError (what the request did is unknown); the host's error answer is a *RemoteError. It
// never retries.
func (l *Link) Call(ctx context.Context, method string, params, result any) error {
	l.mu.Lock()
	c, st, shared := l.conn, l.state, l.shared
	l.mu.Unlock()
	if c == nil {
		return &UnreachableError{Host: l.host.Name, State: st.State, Reason: st.Reason, NextTry: st.NextTry}
	}
	if need := featureOf(method); need != "" && !slices.Contains(shared, need) {
		return &RemoteError{Host: l.host.Name, Method: method, Effect: "none",
			Message: fmt.Sprintf("the tickmux on %s does not offer %q: update it", l.host.SSH, need)}
	}
	return c.call(ctx, method, params, result)
}

// featureOf is the feature a method needs.
func featureOf(method string) string {
	switch method {
	case remotewire.MethodCards, remotewire.MethodAnswer:
		return remotewire.FeatureCards
	case remotewire.MethodLs:
		return remotewire.FeatureLs
	case remotewire.MethodPanes, remotewire.MethodWatch, remotewire.MethodUnwatch, remotewire.MethodResize, remotewire.MethodOpen:
		return remotewire.FeaturePanes
	}
	return ""
}

// features this side speaks.
var features = []string{remotewire.FeatureCards, remotewire.FeatureLs, remotewire.FeaturePanes}

// run connects, serves the connection until it ends, waits, and again, until Close.
func (l *Link) run() {
	backoff := l.tm.backoffMin
	for {
		l.setConnecting()
		c, err := l.dial()
		if err == nil {
			upAt := time.Now()
			err = l.serve(c) // c has ended: its ssh is killed
			l.panesEnded(c, err)
			if time.Since(upAt) >= l.tm.stableAfter {
				backoff = l.tm.backoffMin
			}
		}
		if l.ctx.Err() == nil {
			l.setUnreachable(err.Error(), backoff)
		} else {
			l.mu.Lock()
			l.conn, l.shared = nil, nil
			l.mu.Unlock()
		}
		if c != nil {
			c.close(err)
		}
		if l.ctx.Err() != nil {
			return
		}
		t := time.NewTimer(backoff)
		select {
		case <-l.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, l.tm.backoffMax)
	}
}

// dial starts ssh and says hello; the connection is up when it returns without error.
func (l *Link) dial() (*conn, error) {
	c, err := startConn(l)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(l.ctx, l.tm.helloTimeout)
	defer cancel()
	var hr remotewire.HelloResult
	err = c.call(ctx, remotewire.MethodHello, remotewire.HelloParams{Version: remotewire.Version, Features: features}, &hr)
	if err != nil {
		why := l.helloFailed(ctx, c, err)
		c.close(why)
		return nil, why
	}
	shared := intersect(features, hr.Features)
	switch {
	case hr.Version < 1:
		err = fmt.Errorf("what answered on %s is not a tickmux proxy (its hello has no protocol version)", l.host.SSH)
	case len(shared) == 0:
		err = fmt.Errorf("the tickmux on %s shares nothing with this one (it speaks %q, this one %q): update the older of the two",
			l.host.SSH, clean(strings.Join(hr.Features, ",")), strings.Join(features, ","))
	}
	if err != nil {
		c.close(err)
		return nil, err
	}
	hr.Hostname = clean(hr.Hostname)
	hr.Tickmux = clean(hr.Tickmux)
	l.mu.Lock()
	l.conn, l.hello, l.shared, l.fresh = c, hr, shared, false
	l.state = HostState{Name: l.host.Name, State: Up, Since: time.Now(), Hostname: hr.Hostname}
	l.observed(l.state)
	l.mu.Unlock()
	l.log("remote: %s up (%s, tickmux %s, protocol %d, %s)", l.host.Name, hr.Hostname, hr.Tickmux, hr.Version, strings.Join(shared, ","))
	l.notify()
	return c, nil
}

// helloFailed is why a hello got no good answer, in the person's words.
func (l *Link) helloFailed(ctx context.Context, c *conn, err error) error {
	if l.ctx.Err() != nil {
		return errors.New("closed")
	}
	var re *RemoteError
	if errors.As(err, &re) {
		// The proxy answered: it may say that no server runs there.
		if r := l.reasonFrom(-1, re.Message+"\n"+re.Reason); r != "" {
			return errors.New(r)
		}
		return fmt.Errorf("the tickmux on %s refused the connection: %s", l.host.SSH, clean(re.Message))
	}
	if ctx.Err() != nil && !c.failed() {
		c.fail(fmt.Errorf("no answer from %s within %v of starting ssh", l.host.SSH, l.tm.helloTimeout))
	}
	return c.wait()
}

// serve keeps an up connection: its cards, its pings; it returns why the connection ended.
func (l *Link) serve(c *conn) error {
	l.wg.Add(1)
	go func() { // owner: Link.serve; ends with the connection
		defer l.wg.Done()
		l.pinger(c)
	}()
	l.mu.Lock()
	wantCards := slices.Contains(l.shared, remotewire.FeatureCards)
	wantPanes := slices.Contains(l.shared, remotewire.FeaturePanes)
	l.mu.Unlock()
	if wantPanes {
		l.wg.Add(1)
		go func() { // owner: Link.serve; ends when the panes' answer comes or the connection ends
			defer l.wg.Done()
			l.fetchPanes(c)
		}()
	}
	if wantCards {
		l.wg.Add(1)
		go func() { // owner: Link.serve; ends when the cards' answer comes or the connection ends
			defer l.wg.Done()
			l.fetchCards(c)
		}()
	}
	select {
	case <-c.done:
	case <-l.ctx.Done():
		c.fail(errors.New("closed"))
	}
	return c.wait()
}

// fetchCards lists the cards once the connection is up; notifications keep them since. An
// answer that a notification overtook is older than it, and dropped.
func (l *Link) fetchCards(c *conn) {
	seen := c.notifications()
	ctx, cancel := context.WithTimeout(l.ctx, l.tm.helloTimeout)
	defer cancel()
	var cr remotewire.CardsResult
	if err := c.call(ctx, remotewire.MethodCards, struct{}{}, &cr); err != nil {
		if !c.failed() {
			l.log("remote: %s: listing its cards: %v", l.host.Name, err)
		}
		return
	}
	if c.notifications() == seen {
		l.setCards(c, cr.Cards)
	}
}

// pinger pings while the connection lasts; an unanswered ping ends it.
func (l *Link) pinger(c *conn) {
	t := time.NewTicker(l.tm.pingEvery)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(l.ctx, l.tm.pingTimeout)
		start := time.Now()
		err := c.call(ctx, remotewire.MethodPing, struct{}{}, nil)
		cancel()
		var re *RemoteError
		switch {
		case err == nil, errors.As(err, &re): // any answer says it lives
		case l.ctx.Err() != nil, c.failed():
			return
		default:
			c.fail(fmt.Errorf("no answer from %s in %v (the host or the network hangs)", l.host.Name, time.Since(start).Round(100*time.Millisecond)))
			return
		}
	}
}

// setCards keeps the cards c listed or notified, if c is still the link's connection.
func (l *Link) setCards(c *conn, cards []remotewire.Card) {
	l.mu.Lock()
	if l.conn != c {
		l.mu.Unlock()
		return
	}
	l.cards, l.fresh = cards, true
	l.mu.Unlock()
	l.notify()
}

func (l *Link) setConnecting() {
	l.mu.Lock()
	prev := l.state
	l.state = HostState{Name: l.host.Name, State: Connecting, Since: time.Now(), Hostname: prev.Hostname, Reason: prev.Reason, Down: prev.Down}
	l.observed(l.state)
	l.mu.Unlock()
	l.notify()
}

func (l *Link) setUnreachable(reason string, wait time.Duration) {
	now := time.Now()
	l.mu.Lock()
	prev := l.state
	down := prev.Down
	if down.IsZero() {
		down = now
	}
	l.state = HostState{Name: l.host.Name, State: Unreachable, Since: now, NextTry: now.Add(wait), Reason: reason, Hostname: prev.Hostname, Down: down}
	l.conn, l.shared = nil, nil
	l.observed(l.state)
	l.mu.Unlock()
	if prev.Reason != reason || prev.State == Up {
		l.log("remote: %s unreachable: %s (next try in %v)", l.host.Name, reason, wait)
	}
	l.notify()
}

// notify wakes the notifier; a wake already waiting covers this one.
func (l *Link) notify() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Link) notifier() {
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-l.wake:
			if l.changed != nil {
				l.changed()
			}
		}
	}
}

// observed tells a test's observer of state (l.mu held: in order).
func (l *Link) observed(state HostState) {
	if l.observe != nil {
		l.observe(state)
	}
}

func (l *Link) log(format string, args ...any) {
	if l.logf != nil {
		l.logf(format, args...)
	}
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
