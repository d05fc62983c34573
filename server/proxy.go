package server

// The remote host's side of issue 40 ("many machines, one view, one queue"): a person's local
// tickmux reaches this server through `ssh HOST tickmux proxy`, and the proxy's connection to the
// control socket is served here (internal/remotewire is the protocol). A proxy shows this host's
// waiting cards in a view on another machine and carries the person's answers back, so it is
// taken on the terms of a view's attach (nesting.go): only from a process of this server's uid
// that is outside every one of its panes. A program in a pane can neither run `tickmux proxy`
// nor speak the protocol itself to answer a card: its hello is refused and its connection
// closed, and nothing but a hello'd connection is served.
//
// The control socket's reader hands a connection over after its first line (agent/server.go:
// methods starting with "proxy/" or "view/"); what the client sent after that line may be lost
// in the reader's buffer, so a proxy sends nothing after its hello until the hello's answer has
// come (cmd_proxy.go does so). The hello's Version and Features are the local side's, which the
// proxy passes on; its Via is the proxy's own ("ssh from IP"), which the journal names.
//
// Requests are answered one at a time, in order: a connection has one request in flight, and
// nothing more is read from it until that request's answer is written. Every line to a
// connection is written under its one lock (viewConn), the answers as well as the cards
// notifications; a write that does not finish within proxyWriteStall ends the connection (a
// line cut short would garble the stream).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"tickmux/agent"
	"tickmux/host"
	"tickmux/internal/peer"
	"tickmux/internal/remotewire"
	"tickmux/tick/wire"
)

// maxProxyLine bounds one request line from a proxy; a longer one ends the connection. The
// local side sends small requests (an answer names a card, a digest and a view).
const maxProxyLine = 1 << 20

// proxyWriteStall bounds one write to a proxy: longer than a view's (the lines go on over SSH,
// through the proxy's stdout), and a proxy that stops reading is dropped after it.
const proxyWriteStall = 10 * time.Second

// maxViewName bounds the view name an answer gives, as journaled (in runes).
const maxViewName = 200

// proxyFeatures are the remotewire features this build serves.
func proxyFeatures() []string {
	return []string{remotewire.FeatureCards, remotewire.FeatureLs, remotewire.FeaturePanes}
}

// errProxyNested is the refusal of a proxy from inside the server, in its answer and the log.
const errProxyNested = "cannot take a proxy from inside tickmux (the process runs in one of this server's panes): a proxy answers cards, so it must run outside every pane, as the person's ssh runs it"

// proxies are the proxy connections this server serves, each told when the pending cards change.
type proxies struct {
	queue *host.ApprovalQueue // set before the control socket listens

	mu    sync.Mutex
	conns map[*proxyConn]struct{}
	n     int // proxies taken so far, for their names
}

// changed wakes every proxy connection's cards notifier. It never blocks: it is called from the
// approval queue's notify (and a nil *proxies does nothing).
func (px *proxies) changed() {
	if px == nil {
		return
	}
	px.mu.Lock()
	defer px.mu.Unlock()
	for c := range px.conns {
		select {
		case c.wake <- struct{}{}:
		default: // a wake is already pending: the notifier reads the latest list then
		}
	}
}

func (px *proxies) add(c *proxyConn) {
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.conns == nil {
		px.conns = map[*proxyConn]struct{}{}
	}
	px.n++
	c.name = fmt.Sprintf("proxy-%d", px.n)
	px.conns[c] = struct{}{}
}

func (px *proxies) remove(c *proxyConn) {
	px.mu.Lock()
	defer px.mu.Unlock()
	delete(px.conns, c)
}

// proxyConn is one hello'd proxy connection.
type proxyConn struct {
	nc       *viewConn
	name     string // proxy-N, for the log
	via      string // how the person reaches this host (the hello's Via, cleaned)
	features map[string]bool
	wake     chan struct{} // one slot: the pending cards changed
}

// proxyPeer checks the process at the other end of a proxy's connection, and returns its pid;
// tests replace it to play a proxy from outside the server within one process.
var proxyPeer = checkProxyPeer

// checkProxyPeer takes a proxy only from a live process of this server's uid that is neither this
// server nor one of its descendants (every pane's program, and whatever it left behind: the host
// is a subreaper), exactly as attach takes a view.
func checkProxyPeer(nc *net.UnixConn) (int, error) {
	pinned, err := peer.Of(nc)
	if err != nil {
		if errors.Is(err, peer.ErrGone) {
			return peerPID(nc), errors.New("cannot take the proxy: the process that asked has exited")
		}
		return peerPID(nc), fmt.Errorf("cannot take the proxy: %w", err)
	}
	defer pinned.Close()
	if pinned.Uid != os.Getuid() {
		// The socket's 0600 and the control socket's own check keep others out already.
		return pinned.Pid, fmt.Errorf("cannot take the proxy: its process runs as uid %d, not as this server's uid %d", pinned.Uid, os.Getuid())
	}
	inside, err := insideServer(pinned)
	if err != nil {
		return pinned.Pid, fmt.Errorf("cannot take the proxy: %w", err)
	}
	if inside {
		return pinned.Pid, errors.New(errProxyNested)
	}
	return pinned.Pid, nil
}

// proxy serves a connection whose first request named a "proxy/" method: the hello, checked,
// then the proxy's requests until it hangs up or the control socket closes.
func (s *srv) proxy(nc *viewConn, req agent.Request) {
	if req.Method != remotewire.MethodHello {
		s.logf("proxy refused (process %d): %s before %s", peerPID(nc.UnixConn), req.Method, remotewire.MethodHello)
		proxyReply(nc, req.ID, nil, proxyErr(agent.ReasonBadRequest, "a proxy's first request must be %s", remotewire.MethodHello))
		return
	}
	var hello remotewire.HelloParams
	if err := json.Unmarshal(req.Params, &hello); err != nil || hello.Version < 1 {
		why := fmt.Sprintf("version %d (1 or more is needed)", hello.Version)
		if err != nil {
			why = err.Error()
		}
		s.logf("proxy refused (process %d): a bad hello: %s", peerPID(nc.UnixConn), why)
		proxyReply(nc, req.ID, nil, proxyErr(agent.ReasonBadRequest, "a bad %s: %s", remotewire.MethodHello, why))
		return
	}
	pid, err := proxyPeer(nc.UnixConn)
	if err != nil {
		s.logf("proxy refused (process %d): %v", pid, err)
		proxyReply(nc, req.ID, nil, proxyErr(agent.ReasonFailed, "%s", err.Error()))
		return
	}
	c := &proxyConn{nc: nc, via: cleanName(hello.Via), features: map[string]bool{}, wake: make(chan struct{}, 1)}
	if c.via == "" {
		c.via = "tickmux proxy"
	}
	var both []string
	for _, f := range proxyFeatures() {
		if slices.Contains(hello.Features, f) {
			both = append(both, f)
			c.features[f] = true
		}
	}
	hostname, _ := os.Hostname()
	px := s.proxies
	if px == nil {
		px = &proxies{}
	}
	px.add(c)
	defer px.remove(c)
	defer s.endPanes(c) // proxy_panes.go: its watches end, the panes' sizes go back
	s.logf("%s: process %d, %s, protocol %d, features %v", c.name, pid, c.via, hello.Version, both)
	if !proxyReply(nc, req.ID, remotewire.HelloResult{Version: remotewire.Version, Features: nonNil(both), Hostname: hostname, Tickmux: buildVersion()}, nil) {
		return
	}
	done := make(chan struct{})
	notified := make(chan struct{})
	go func() { // owner: s.proxy; returns when the connection's reader ends (done)
		defer close(notified)
		c.notifyCards(px, done)
	}()
	defer func() {
		close(done)
		<-notified
	}()
	s.serveProxy(px, c)
	s.logf("%s left", c.name)
}

// serveProxy answers c's requests, one at a time, until the connection ends.
func (s *srv) serveProxy(px *proxies, c *proxyConn) {
	defer c.nc.Close() // the notifier's writes fail at once from here
	sc := bufio.NewScanner(c.nc)
	sc.Buffer(make([]byte, 0, 4<<10), maxProxyLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var req agent.Request
		if err := json.Unmarshal(line, &req); err != nil {
			if !proxySend(c.nc, agent.Message{Error: proxyErr(agent.ReasonBadRequest, "a request line that is not a JSON object: %v", err)}) {
				return
			}
			continue
		}
		if req.ID == 0 {
			s.proxyPaneNote(c, req) // input and acks (proxy_panes.go); any other is dropped
			continue
		}
		result, e := s.proxyRequest(px, c, req)
		if !proxyReply(c.nc, req.ID, result, e) {
			return
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, net.ErrClosed) {
		s.logf("%s: %v", c.name, err)
		if errors.Is(err, bufio.ErrTooLong) {
			proxySend(c.nc, agent.Message{Error: proxyErr(agent.ReasonBadRequest, "a request line longer than %d bytes: tickmux closed this connection", maxProxyLine)})
		}
	}
}

// proxyRequest answers one request of a hello'd proxy.
func (s *srv) proxyRequest(px *proxies, c *proxyConn, req agent.Request) (any, *agent.Error) {
	need := func(feature string) *agent.Error {
		if c.features[feature] {
			return nil
		}
		return proxyErr(agent.ReasonBadRequest, "%s needs the feature %q, which this proxy's hello did not list", req.Method, feature)
	}
	switch req.Method {
	case remotewire.MethodPing:
		return struct{}{}, nil
	case remotewire.MethodCards:
		if e := need(remotewire.FeatureCards); e != nil {
			return nil, e
		}
		return remotewire.CardsResult{Cards: wireCards(px.pending())}, nil
	case remotewire.MethodAnswer:
		if e := need(remotewire.FeatureCards); e != nil {
			return nil, e
		}
		var p remotewire.AnswerParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, proxyErr(agent.ReasonBadRequest, "bad %s params: %v", req.Method, err)
		}
		return s.proxyAnswer(px, c, p)
	case remotewire.MethodLs:
		if e := need(remotewire.FeatureLs); e != nil {
			return nil, e
		}
		return s.proxyLs(), nil
	case remotewire.MethodPanes, remotewire.MethodWatch, remotewire.MethodUnwatch, remotewire.MethodResize, remotewire.MethodOpen:
		if e := need(remotewire.FeaturePanes); e != nil {
			return nil, e
		}
		return s.proxyPanes(c, req) // proxy_panes.go
	case remotewire.MethodHello:
		return nil, proxyErr(agent.ReasonBadRequest, "this proxy said %s already", remotewire.MethodHello)
	}
	return nil, proxyErr(agent.ReasonBadRequest, "unknown method %s", req.Method)
}

// proxyAnswer answers card p.Card as the person did in the local view p.View, if the card still
// waits and is still the one the person read (its digest).
func (s *srv) proxyAnswer(px *proxies, c *proxyConn, p remotewire.AnswerParams) (any, *agent.Error) {
	var d host.Decision
	switch p.Decision {
	case remotewire.Once:
		d = host.AllowOnce
	case remotewire.Revision:
		d = host.AllowRevision
	case remotewire.Deny:
		d = host.Deny
	default:
		return nil, proxyErr(agent.ReasonBadRequest, "decision %q: give %s, %s or %s", p.Decision, remotewire.Once, remotewire.Revision, remotewire.Deny)
	}
	gone := proxyErr(agent.ReasonNotFound, "card %d is no longer waiting", p.Card)
	pending := px.pending()
	i := slices.IndexFunc(pending, func(k host.Card) bool { return k.ID == p.Card })
	if i < 0 {
		return nil, gone
	}
	// A card's content never changes while it waits (its id is never reused in a run), so the
	// digest checked here is that of the card the answer settles.
	if WireCard(pending[i]).Digest != p.Digest {
		return nil, proxyErr(agent.ReasonFailed, "card %d changed since it was shown: read it again", p.Card)
	}
	view := cleanName(p.View)
	if view == "" {
		view = "a view"
	}
	view += " via " + c.via
	if err := px.queue.AnswerFrom(p.Card, d, view); err != nil {
		if errors.Is(err, host.ErrNoSuchCard) {
			return nil, gone
		}
		return nil, proxyErr(agent.ReasonFailed, "card %d: %v", p.Card, err)
	}
	s.logf("%s: card %d answered %s by %s", c.name, p.Card, p.Decision, view)
	return struct{}{}, nil
}

// pending is the waiting cards (none without a queue).
func (px *proxies) pending() []host.Card {
	if px.queue == nil {
		return nil
	}
	return px.queue.Pending()
}

// proxyLs is what runs on this host: the instances clients may see, and the agent sessions.
func (s *srv) proxyLs() remotewire.LsResult {
	out := remotewire.LsResult{Ticks: []remotewire.Tick{}}
	if s.host == nil {
		return out
	}
	for _, in := range s.host.Instances() {
		if !in.Visible() {
			continue
		}
		t := remotewire.Tick{ID: in.ID(), Title: in.Title(), Status: in.Status().String(), Plain: !in.IsTick()}
		if cat := in.Catalog(); cat != nil {
			t.Kind = cat.Descriptor.Kind
		}
		out.Ticks = append(out.Ticks, t)
	}
	for _, a := range s.host.Agents().All() {
		out.Agents = append(out.Agents, remotewire.Agent{Agent: a.Agent, Session: a.Session, Pane: a.Pane, State: string(a.State)})
	}
	return out
}

// notifyCards sends the cards notification each time the pending cards change, until done: the
// latest list, once per wake-up (changes that come while one is being written fold into the
// next), and never the same list twice in a row.
func (c *proxyConn) notifyCards(px *proxies, done <-chan struct{}) {
	if !c.features[remotewire.FeatureCards] {
		return
	}
	var last []string // the digests last sent
	for {
		select {
		case <-done:
			return
		case <-c.wake:
		}
		cards := wireCards(px.pending())
		digests := make([]string, len(cards))
		for i, k := range cards {
			digests[i] = k.Digest
		}
		if last != nil && slices.Equal(digests, last) {
			continue
		}
		last = digests
		raw, _ := json.Marshal(remotewire.CardsResult{Cards: cards})
		if !proxySend(c.nc, agent.Message{Method: remotewire.NotifyCards, Params: raw}) {
			return
		}
	}
}

// WireCard is card c as a proxy sends it, with its digest.
func WireCard(c host.Card) remotewire.Card {
	r := c.Req
	w := remotewire.Card{ID: c.ID, Since: c.Created.UTC(), Action: string(r.Action), Client: r.Client,
		Instance: r.Instance, Title: r.Title, Tool: r.Tool, ToolDescription: r.ToolDescription, Args: r.Args,
		Revision: r.Revision, Unchecked: r.Unchecked, Argv: r.Argv, Dir: r.Dir, Shell: r.Shell, Sandboxed: r.Sandboxed,
		Text: r.Text}
	if a := r.Agent; a != nil {
		w.Agent = &remotewire.AgentCall{Agent: a.Agent, Session: a.Session, Cwd: a.Cwd, Tool: a.Tool, Input: a.Input,
			Command: a.Command, Description: a.Description, File: a.File, Diff: a.Diff, DiffNote: a.DiffNote,
			MCPServer: a.MCPServer, MCPTool: a.MCPTool}
	}
	w.Digest = remotewire.CardDigest(w)
	return w
}

func wireCards(cards []host.Card) []remotewire.Card {
	out := make([]remotewire.Card, len(cards))
	for i, c := range cards {
		out[i] = WireCard(c)
	}
	return out
}

// proxyReply writes the answer to request id; false when the connection failed (it is closed).
func proxyReply(nc *viewConn, id uint64, result any, e *agent.Error) bool {
	m := agent.Message{ID: id, Error: e}
	if e == nil {
		raw, err := json.Marshal(result)
		if err != nil {
			m.Error = proxyErr(agent.ReasonFailed, "cannot encode the answer: %v", err)
		} else {
			m.Result = raw
		}
	}
	return proxySend(nc, m)
}

// proxySend writes one line under the connection's lock. A write that fails or stalls past
// proxyWriteStall closes the connection: part of a line may have gone out, and the lines after
// it would not read.
func proxySend(nc *viewConn, m agent.Message) bool {
	b, err := json.Marshal(m)
	if err != nil {
		return false
	}
	b = append(b, '\n')
	nc.sendMu.Lock()
	defer nc.sendMu.Unlock()
	_ = nc.SetWriteDeadline(time.Now().Add(proxyWriteStall))
	if _, err := nc.Write(b); err != nil {
		nc.Close()
		return false
	}
	return true
}

func proxyErr(reason, format string, args ...any) *agent.Error {
	return &agent.Error{Message: fmt.Sprintf(format, args...), Effect: wire.EffectNone, Reason: reason}
}

// cleanName is a name another host sent (a view's, the hello's Via), fit for the journal and the
// log: control characters dropped, at most maxViewName runes.
func cleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxViewName {
		s = string(r[:maxViewName]) + "…"
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// buildVersion is this build's version, for a proxy's messages: the module's version and the
// commit it was built from, as the go command stamped them ("" when it stamped nothing).
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	v := "tickmux " + info.Main.Version
	if rev != "" {
		v += " commit " + rev
	}
	if modified == "true" {
		v += " with local changes"
	}
	return v
}
