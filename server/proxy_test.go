package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/host"
	"tickmux/internal/remotewire"
	"tickmux/remote"
)

// proxyRig is a server's proxy side on one end of a socket pair, and the proxy's end.
type proxyRig struct {
	t     *testing.T
	s     *srv
	q     *host.ApprovalQueue
	nc    *net.UnixConn // the proxy's end
	rd    *bufio.Reader
	ended chan struct{} // closed when the server's side returned
	logMu sync.Mutex
	logs  []string
}

// newProxyRig hands the server's end of a socket pair to srv.handle with first as the first
// request, as the control socket does. outside plays the peer check: true makes the test
// process pass as a process outside the server (within one process it is the server itself).
func newProxyRig(t *testing.T, first agent.Request, outside bool) *proxyRig {
	t.Helper()
	if outside {
		old := proxyPeer
		proxyPeer = func(nc *net.UnixConn) (int, error) { return peerPID(nc), nil }
		t.Cleanup(func() { proxyPeer = old })
	}
	r := &proxyRig{t: t, ended: make(chan struct{})}
	px := &proxies{}
	r.q = host.NewApprovalQueue(px.changed)
	px.queue = r.q
	r.s = &srv{logf: r.logf, proxies: px}
	srvEnd, view := socketPair(t)
	r.nc, r.rd = view, bufio.NewReader(view)
	go func() { // owner: the test; returns when the proxy's end closes (the cleanup)
		defer close(r.ended)
		r.s.handle(srvEnd, first)
		srvEnd.Close() // as the control socket closes it after the hand-over
	}()
	t.Cleanup(func() {
		view.Close()
		<-r.ended
	})
	return r
}

func (r *proxyRig) logf(format string, args ...any) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *proxyRig) log() string {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	return strings.Join(r.logs, "\n")
}

func helloReq(t *testing.T, p remotewire.HelloParams) agent.Request {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return agent.Request{ID: 1, Method: remotewire.MethodHello, Params: raw}
}

var fullHello = remotewire.HelloParams{Version: 1, Features: []string{remotewire.FeatureCards, remotewire.FeatureLs}, Via: "ssh from 127.0.0.1"}

// next reads the server's next line; ok false when the connection ended.
func (r *proxyRig) next() (agent.Message, bool) {
	r.t.Helper()
	_ = r.nc.SetReadDeadline(time.Now().Add(20 * time.Second)) // guards against hanging only
	line, err := r.rd.ReadBytes('\n')
	if err != nil {
		return agent.Message{}, false
	}
	var m agent.Message
	if err := json.Unmarshal(line, &m); err != nil {
		r.t.Fatalf("the server wrote a line that is not a message: %q", line)
	}
	return m, true
}

// answer reads lines until the answer to id (notifications in between are returned too).
func (r *proxyRig) answer(id uint64) (agent.Message, []agent.Message) {
	r.t.Helper()
	var notes []agent.Message
	for {
		m, ok := r.next()
		if !ok {
			r.t.Fatalf("the connection ended before the answer to request %d", id)
		}
		if m.ID == id {
			return m, notes
		}
		notes = append(notes, m)
	}
}

// do sends a request and returns its answer.
func (r *proxyRig) do(id uint64, method string, params any) agent.Message {
	r.t.Helper()
	r.send(id, method, params)
	m, _ := r.answer(id)
	return m
}

func (r *proxyRig) send(id uint64, method string, params any) {
	r.t.Helper()
	raw, _ := json.Marshal(params)
	b, _ := json.Marshal(agent.Request{ID: id, Method: method, Params: raw})
	if _, err := r.nc.Write(append(b, '\n')); err != nil {
		r.t.Fatal(err)
	}
}

// waitingCall puts a call to a mutating tool before the person, as the host does (H-K2), and
// returns what its Approve returned and the view its answer named, once it returns.
func waitingCall(t *testing.T, q *host.ApprovalQueue, args string) (card uint64, result <-chan [2]string, cancel func()) {
	t.Helper()
	ctx, cancelCtx := context.WithCancel(context.Background())
	shown := make(chan uint64, 1)
	out := make(chan [2]string, 1)
	var view string
	go func() { // owner: the test; returns at the answer or cancel
		err := q.Approve(ctx, host.ApprovalRequest{Action: host.ActionCall, Client: "agent", Instance: "hosted:1",
			Title: "Counter", Tool: "increment", ToolDescription: "adds", Args: json.RawMessage(args), Revision: "r1",
			Shown: func(id uint64) { shown <- id }, Answered: func(_ host.Decision, v string) { view = v }})
		out <- [2]string{fmt.Sprint(err), view}
	}()
	select {
	case card = <-shown:
	case <-time.After(20 * time.Second):
		t.Fatal("the card never showed")
	}
	t.Cleanup(cancelCtx)
	return card, out, cancelCtx
}

// spec: H-K2. A proxy from outside the server: the hello negotiates, remote/cards lists a waiting
// card with its digest, the cards notification comes when a card starts waiting, a stale digest
// and an unknown card are refused (the card keeps waiting), an unknown method is an error and the
// connection stays, and an answer names the local view via the proxy's Via.
func TestProxyAnswersACard(t *testing.T) {
	r := newProxyRig(t, helloReq(t, remotewire.HelloParams{Version: 2, Features: []string{remotewire.FeatureCards, remotewire.FeatureLs, "future"}, Via: "ssh from 127.0.0.1"}), true)
	m, _ := r.answer(1)
	if m.Error != nil {
		t.Fatalf("the hello was refused: %+v", m.Error)
	}
	var hello remotewire.HelloResult
	if err := json.Unmarshal(m.Result, &hello); err != nil {
		t.Fatal(err)
	}
	if hello.Version != remotewire.Version || !reflect.DeepEqual(hello.Features, []string{remotewire.FeatureCards, remotewire.FeatureLs}) || hello.Hostname == "" {
		t.Fatalf("the hello's answer: %+v", hello)
	}

	// The notification comes when a card starts waiting.
	id, result, _ := waitingCall(t, r.q, `{"amount":2}`)
	var note remotewire.CardsResult
	for {
		n, ok := r.next()
		if !ok {
			t.Fatal("the connection ended before the cards notification")
		}
		if n.Method == remotewire.NotifyCards && n.ID == 0 {
			if err := json.Unmarshal(n.Params, &note); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if len(note.Cards) != 1 || note.Cards[0].ID != id || note.Cards[0].Tool != "increment" || string(note.Cards[0].Args) != `{"amount":2}` {
		t.Fatalf("the notification: %+v", note)
	}
	card := note.Cards[0]
	if card.Digest != remotewire.CardDigest(card) || card.Digest == "" {
		t.Fatalf("the card's digest %q is not its CardDigest %q", card.Digest, remotewire.CardDigest(card))
	}

	m = r.do(2, remotewire.MethodCards, struct{}{})
	var cards remotewire.CardsResult
	if m.Error != nil || json.Unmarshal(m.Result, &cards) != nil || len(cards.Cards) != 1 || !reflect.DeepEqual(cards.Cards[0], card) {
		t.Fatalf("remote/cards: %s %+v", m.Result, m.Error)
	}

	// Refused: a stale digest, an unknown card, an unknown decision.
	for i, c := range []struct {
		p    remotewire.AnswerParams
		want string
	}{
		{remotewire.AnswerParams{Card: id, Digest: "0123", Decision: remotewire.Once, View: "view 1"}, fmt.Sprintf("card %d changed since it was shown: read it again", id)},
		{remotewire.AnswerParams{Card: id + 40, Digest: card.Digest, Decision: remotewire.Once, View: "view 1"}, fmt.Sprintf("card %d is no longer waiting", id+40)},
		{remotewire.AnswerParams{Card: id, Digest: card.Digest, Decision: "always", View: "view 1"}, `decision "always"`},
	} {
		m := r.do(uint64(10+i), remotewire.MethodAnswer, c.p)
		if m.Error == nil || !strings.Contains(m.Error.Message, c.want) {
			t.Errorf("answer %+v: %s %+v, want the error %q", c.p, m.Result, m.Error, c.want)
		}
	}
	if m := r.do(20, "remote/nonesuch", struct{}{}); m.Error == nil || !strings.Contains(m.Error.Message, "unknown method") {
		t.Errorf("an unknown method: %+v", m)
	}
	if m := r.do(21, remotewire.MethodHello, fullHello); m.Error == nil {
		t.Errorf("a second hello was taken: %+v", m)
	}
	if m := r.do(22, remotewire.MethodPing, struct{}{}); m.Error != nil || string(m.Result) != "{}" {
		t.Errorf("ping after the errors: %s %+v", m.Result, m.Error)
	}
	select {
	case got := <-result:
		t.Fatalf("the call returned (%v) without a good answer", got)
	default:
	}
	if p := r.q.Pending(); len(p) != 1 || p[0].ID != id {
		t.Fatalf("the card does not wait any more: %+v", p)
	}

	r.send(30, remotewire.MethodAnswer, remotewire.AnswerParams{Card: id, Digest: card.Digest, Decision: remotewire.Once, View: "view 1 /dev/pts/3 on laptop\x1b[2J"})
	m, notes := r.answer(30) // the notification may come before the answer, or after it
	if m.Error != nil {
		t.Fatalf("the answer was refused: %+v", m.Error)
	}
	select {
	case got := <-result:
		if got[0] != "<nil>" || got[1] != "view 1 /dev/pts/3 on laptop[2J via ssh from 127.0.0.1" {
			t.Fatalf("Approve returned %q, answered by %q", got[0], got[1])
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not return after the answer")
	}
	// The card is gone: the notification says so, and a second answer is refused.
	for {
		var n agent.Message
		ok := true
		if len(notes) > 0 {
			n, notes = notes[0], notes[1:]
		} else if n, ok = r.next(); !ok {
			t.Fatal("the connection ended")
		}
		if n.Method == remotewire.NotifyCards {
			var c remotewire.CardsResult
			if json.Unmarshal(n.Params, &c) != nil || c.Cards == nil || len(c.Cards) != 0 {
				t.Fatalf("the notification after the answer: %s", n.Params)
			}
			break
		}
	}
	if m := r.do(31, remotewire.MethodAnswer, remotewire.AnswerParams{Card: id, Digest: card.Digest, Decision: remotewire.Deny}); m.Error == nil || !strings.Contains(m.Error.Message, "no longer waiting") {
		t.Errorf("a second answer: %+v", m)
	}
	var ls remotewire.LsResult
	if m := r.do(32, remotewire.MethodLs, struct{}{}); m.Error != nil || json.Unmarshal(m.Result, &ls) != nil || ls.Ticks == nil {
		t.Errorf("remote/ls with no host: %s %+v", m.Result, m.Error)
	}
	if log := r.log(); !strings.Contains(log, fmt.Sprintf("card %d answered once by view 1", id)) {
		t.Errorf("the log does not say who answered:\n%s", log)
	}
}

// A proxy in one of the server's own panes (here: the server's own process, which is inside
// itself) is refused at its hello, and the connection is closed: the answer it sends after its
// hello never reaches the queue.
func TestProxyFromInsideIsRefused(t *testing.T) {
	r := newProxyRig(t, helloReq(t, fullHello), false)
	id, result, _ := waitingCall(t, r.q, `{"amount":1}`)
	card := WireCard(r.q.Pending()[0])
	// Sent at once, behind the hello (a write error: the server has closed the connection).
	raw, _ := json.Marshal(remotewire.AnswerParams{Card: id, Digest: card.Digest, Decision: remotewire.Once, View: "pane"})
	b, _ := json.Marshal(agent.Request{ID: 2, Method: remotewire.MethodAnswer, Params: raw})
	_, _ = r.nc.Write(append(b, '\n'))
	m, _ := r.answer(1)
	if m.Error == nil || !strings.Contains(m.Error.Message, "cannot take a proxy from inside tickmux") {
		t.Fatalf("a proxy from inside was not refused: %s %+v", m.Result, m.Error)
	}
	if n, ok := r.next(); ok {
		t.Fatalf("the refused connection goes on: %+v", n)
	}
	<-r.ended
	select {
	case got := <-result:
		t.Fatalf("the card was answered from inside: %v", got)
	default:
	}
	if len(r.q.Pending()) != 1 {
		t.Fatal("the card does not wait any more")
	}
	if log := r.log(); !strings.Contains(log, "proxy refused") {
		t.Errorf("the refusal is not in the log:\n%s", log)
	}
}

// Before a good hello nothing is served: another proxy/ method first, a hello with a version
// below 1 or params that do not read, are refused and the connection ends.
func TestProxyNeedsAGoodHelloFirst(t *testing.T) {
	for _, first := range []agent.Request{
		{ID: 1, Method: "proxy/answer", Params: json.RawMessage(`{"card":1}`)},
		helloReq(t, remotewire.HelloParams{Version: 0, Features: []string{remotewire.FeatureCards}}),
		{ID: 1, Method: remotewire.MethodHello, Params: json.RawMessage(`{"version":"one"}`)},
	} {
		r := newProxyRig(t, first, true)
		m, _ := r.answer(1)
		if m.Error == nil || m.Error.Reason != agent.ReasonBadRequest {
			t.Errorf("%s %s was taken: %s %+v", first.Method, first.Params, m.Result, m.Error)
		}
		if _, ok := r.next(); ok {
			t.Errorf("%s %s: the connection goes on", first.Method, first.Params)
		}
	}
}

// Each side uses only what both list: a hello without "cards" gets no cards, by request or
// notification; one without "ls" no list.
func TestProxyServesOnlyTheFeaturesBothList(t *testing.T) {
	r := newProxyRig(t, helloReq(t, remotewire.HelloParams{Version: 1, Features: []string{remotewire.FeatureLs}}), true)
	m, _ := r.answer(1)
	var hello remotewire.HelloResult
	if m.Error != nil || json.Unmarshal(m.Result, &hello) != nil || !reflect.DeepEqual(hello.Features, []string{remotewire.FeatureLs}) {
		t.Fatalf("the hello: %s %+v", m.Result, m.Error)
	}
	waitingCall(t, r.q, `{"amount":3}`)
	for _, method := range []string{remotewire.MethodCards, remotewire.MethodAnswer} {
		if m, notes := func() (agent.Message, []agent.Message) {
			r.send(2, method, remotewire.AnswerParams{Card: 1})
			return r.answer(2)
		}(); m.Error == nil || !strings.Contains(m.Error.Message, `"cards"`) || len(notes) > 0 {
			t.Errorf("%s without the feature: %+v, notifications %+v", method, m, notes)
		}
	}
	if m := r.do(3, remotewire.MethodLs, nil); m.Error != nil {
		t.Errorf("ls: %+v", m.Error)
	}

	r = newProxyRig(t, helloReq(t, remotewire.HelloParams{Version: 1}), true)
	if m, _ := r.answer(1); m.Error != nil || !strings.Contains(string(m.Result), `"features":[]`) {
		t.Fatalf("the hello with no features: %s %+v", m.Result, m.Error)
	}
	if m := r.do(2, remotewire.MethodLs, nil); m.Error == nil {
		t.Errorf("ls without the feature: %s", m.Result)
	}
}

// A request line longer than maxProxyLine ends the connection, with a line that says why.
func TestProxyLineBound(t *testing.T) {
	r := newProxyRig(t, helloReq(t, fullHello), true)
	r.answer(1)
	go func() { // owner: the test; returns once written, or when the connection ends
		long := `{"id":2,"method":"remote/ping","params":{"x":"` + strings.Repeat("x", maxProxyLine) + `"}}` + "\n"
		_, _ = r.nc.Write([]byte(long))
	}()
	m, ok := r.next()
	if !ok || m.Error == nil || !strings.Contains(m.Error.Message, "longer than") {
		t.Fatalf("an overlong line: %+v (%v)", m, ok)
	}
	if _, ok := r.next(); ok {
		t.Fatal("the connection goes on after an overlong line")
	}
}

// Many changes while a proxy does not read fold into the latest list: the queue's notify never
// waits for a proxy, and what the proxy reads last is the cards as they are.
func TestProxyNotificationsCoalesce(t *testing.T) {
	r := newProxyRig(t, helloReq(t, fullHello), true)
	r.answer(1)
	var cancels []func()
	for i := range 50 {
		_, _, cancel := waitingCall(t, r.q, fmt.Sprintf(`{"amount":%d}`, i))
		cancels = append(cancels, cancel)
	}
	for _, c := range cancels[:49] {
		c() // withdrawn: 49 more changes
	}
	for len(r.q.Pending()) != 1 {
		time.Sleep(time.Millisecond)
	}
	want := WireCard(r.q.Pending()[0])
	notes := 0
	for {
		n, ok := r.next()
		if !ok {
			t.Fatal("the connection ended")
		}
		notes++
		var c remotewire.CardsResult
		if json.Unmarshal(n.Params, &c) == nil && len(c.Cards) == 1 && reflect.DeepEqual(c.Cards[0], want) {
			break
		}
	}
	t.Logf("%d notifications for 99 changes", notes)
}

// WireCard and HostCard are each other's inverse, and the digest covers every field shown.
func TestWireCardRoundTrip(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 30, 0, 123456789, time.UTC)
	for _, c := range []host.Card{
		{ID: 7, Created: at, Req: host.ApprovalRequest{Action: host.ActionCall, Client: "claude", Instance: "hosted:1", Title: "T",
			Tool: "rm", ToolDescription: "removes", Args: json.RawMessage(`{"a":1}`), Revision: "r9", Unchecked: []string{"pattern"}}},
		{ID: 8, Created: at, Req: host.ApprovalRequest{Action: host.ActionOpen, Argv: []string{"sh", "-c", "x"}, Dir: "/tmp", Shell: true, Sandboxed: true}},
		{ID: 9, Created: at, Req: host.ApprovalRequest{Action: host.ActionSend, Instance: "shell:2", Text: "ls\r"}},
		{ID: 10, Created: at, Req: host.ApprovalRequest{Action: host.ActionAgent, Instance: "shell:1", Agent: &host.AgentCall{Agent: "Claude Code",
			Session: "s", Cwd: "/w", Tool: "Bash", Input: json.RawMessage(`{"command":"ls"}`), Command: "ls", Description: "d", File: "f",
			Diff: "-a\n+b", DiffNote: "n", MCPServer: "m", MCPTool: "t"}}},
	} {
		w := WireCard(c)
		if w.Digest != remotewire.CardDigest(w) {
			t.Errorf("card %d: digest %q, CardDigest %q", c.ID, w.Digest, remotewire.CardDigest(w))
		}
		raw, _ := json.Marshal(w)
		var back remotewire.Card
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if back.Digest != remotewire.CardDigest(back) {
			t.Errorf("card %d: the digest does not hold after the wire", c.ID)
		}
		if got := (remote.HostCard{Card: back}).Local(); !reflect.DeepEqual(got, c) {
			t.Errorf("card %d: remote.HostCard{Card: WireCard(c)}.Local() = %+v, want %+v", c.ID, got, c)
		}
	}
	a := WireCard(host.Card{ID: 1, Created: at, Req: host.ApprovalRequest{Action: host.ActionCall, Args: json.RawMessage(`{"a":1}`)}})
	b := WireCard(host.Card{ID: 1, Created: at, Req: host.ApprovalRequest{Action: host.ActionCall, Args: json.RawMessage(`{"a":2}`)}})
	if a.Digest == b.Digest {
		t.Error("two cards with other args have one digest")
	}
}
