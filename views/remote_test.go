package views

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
	"tickmux/host"
	"tickmux/internal/remotewire"
	"tickmux/remote"
)

// fakeRemote plays remote.Manager: the cards of other hosts, and the answers sent to them.
type fakeRemote struct {
	mu      sync.Mutex
	cards   []remote.HostCard
	states  []remote.HostState
	answers []fakeAnswer
	fail    error
	changed func()
}

type fakeAnswer struct {
	host     string
	card     remotewire.Card
	decision string
	view     string
}

func (f *fakeRemote) Cards() []remote.HostCard {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]remote.HostCard(nil), f.cards...)
}

func (f *fakeRemote) States() []remote.HostState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]remote.HostState(nil), f.states...)
}

func (f *fakeRemote) Answer(_ context.Context, h string, c remotewire.Card, decision, view string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, fakeAnswer{h, c, decision, view})
	return f.fail
}

func (f *fakeRemote) set(cards []remote.HostCard, states []remote.HostState) {
	f.mu.Lock()
	f.cards, f.states = cards, states
	f.mu.Unlock()
	f.changed()
}

func (f *fakeRemote) sent() []fakeAnswer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeAnswer(nil), f.answers...)
}

// newRemoteHarness is newHarness with the other hosts' cards from rq.
func newRemoteHarness(t *testing.T, rq *fakeRemote) *harness {
	t.Helper()
	t.Setenv("NO_COLOR", "")
	sc := tcell.NewSimulationScreen("UTF-8")
	hs := &harness{t: t, done: make(chan error, 1)}
	var app *App
	var mu sync.Mutex
	wake := func() {
		mu.Lock()
		a := app
		mu.Unlock()
		if a != nil {
			a.ApprovalsChanged()
		}
	}
	rq.changed = wake
	hs.queue = host.NewApprovalQueue(wake)
	hs.h = host.New(host.Config{Approver: hs.queue, Logf: func(f string, args ...any) { t.Logf("host: "+f, args...) }})
	a := New(Options{Host: hs.h, Approvals: hs.queue, Config: config.Default(), Screen: sc, Remote: rq})
	mu.Lock()
	app = a
	mu.Unlock()
	hs.app, hs.appScreen, hs.screen = a, sc, sc
	sc.SetSize(140, 40)
	t.Cleanup(hs.close)
	return hs
}

func remoteCard(h string, id uint64, since time.Time, tool string, reachable bool) remote.HostCard {
	c := remotewire.Card{ID: id, Since: since, Action: "call", Client: "agent-on-" + h, Instance: "hosted:1", Title: "Counter", Tool: tool,
		Args: []byte(`{"amount":1}`), Revision: "rev-" + h}
	c.Digest = remotewire.CardDigest(c)
	return remote.HostCard{Host: h, Card: c, Reachable: reachable}
}

// spec: H-K2
// Issue 40: another host's card is in the side panel with the local ones, in the order they
// started waiting, says its host, and y answers it on its host with the card's digest, naming
// the view; a card whose host is unreachable says so and a key sends nothing; a card that changed
// on its host is another card here (the key pressed for the old one answers nothing).
func TestRemoteCardsInTheQueue(t *testing.T) {
	rq := &fakeRemote{}
	hs := newRemoteHarness(t, rq)
	in := hs.openTick("plain")
	hs.start()
	base := time.Now().Add(-time.Minute)
	rq.set([]remote.HostCard{remoteCard("b", 7, base, "deploy", true)}, nil)
	local, cancelLocal := ask(hs, host.ApprovalRequest{Action: host.ActionCall, Client: "local-agent", Instance: in.ID(), Tool: "increment", Args: []byte(`{"amount":5}`)})
	txt := hs.waitFor("local-agent wants to")
	if !strings.Contains(txt, "ON HOST b") {
		t.Fatalf("the remote card does not say its host:\n%s", txt)
	}
	if strings.Index(txt, "agent-on-b") > strings.Index(txt, "local-agent") {
		t.Errorf("the remote card waited first and is not first:\n%s", txt)
	}

	// y on the first card (the remote one) sends the answer to b.
	hs.prefix()
	hs.typeText("a")
	hs.typeText("y")
	deadline := time.Now().Add(20 * time.Second)
	for len(rq.sent()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the answer never went to host b")
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := rq.sent()[0]
	if got.host != "b" || got.card.ID != 7 || got.card.Digest != remotewire.CardDigest(got.card) || got.decision != remotewire.Once || !strings.Contains(got.view, " on ") {
		t.Errorf("answer = %+v", got)
	}
	select {
	case err := <-local:
		t.Fatalf("the local card was answered too: %v", err)
	default:
	}
	// Answered from here, it is hidden until b drops it: a second key cannot answer it again.
	hs.waitGone("agent-on-b")

	// Unreachable: the card says so, y sends nothing.
	rq.set([]remote.HostCard{remoteCard("c", 3, base, "migrate", false)},
		[]remote.HostState{{Name: "c", State: remote.Unreachable, Since: time.Now(), NextTry: time.Now().Add(8 * time.Second)}})
	hs.waitFor("host unreachable: cannot answer now")
	hs.waitFor("c unreachable since")
	hs.prefix()
	hs.typeText("a")
	hs.typeText("y")
	hs.waitFor("host c unreachable: cannot answer now")
	if n := len(rq.sent()); n != 1 {
		t.Errorf("%d answers sent; the unreachable host's card must not be answered", n)
	}
	hs.key(tcell.KeyEscape, 0, tcell.ModNone)

	// A card that changed on its host (another digest) is another card: the focus moves, keys
	// wait, nothing is answered.
	d := remoteCard("d", 9, base, "first", true)
	rq.set([]remote.HostCard{d}, nil)
	hs.waitFor("agent-on-d")
	hs.prefix()
	hs.typeText("a")
	changed := remoteCard("d", 9, base, "second", true)
	rq.set([]remote.HostCard{changed}, nil)
	hs.waitFor("wants to call second")
	hs.typeText("y")
	if n := len(rq.sent()); n != 1 {
		t.Errorf("a key pressed as the card changed answered it (%d answers)", n)
	}
	hs.waitFor("keys wait a moment")
	cancelLocal()
	<-local
}

// A failed answer (the host went away after it was sent) is said, and the card shows again:
// nothing retries it.
func TestRemoteAnswerFails(t *testing.T) {
	rq := &fakeRemote{fail: errors.New("the answer's outcome is unknown: the link dropped")}
	hs := newRemoteHarness(t, rq)
	hs.openTick("plain")
	hs.start()
	rq.set([]remote.HostCard{remoteCard("b", 1, time.Now(), "deploy", true)}, nil)
	hs.waitFor("agent-on-b")
	hs.prefix()
	hs.typeText("a")
	hs.typeText("y")
	hs.waitFor("b: the answer's outcome is unknown")
	hs.waitFor("agent-on-b")
	time.Sleep(100 * time.Millisecond)
	if n := len(rq.sent()); n != 1 {
		t.Errorf("the answer was sent %d times", n)
	}
}

// A host that is tried again after it was lost stays unreachable on the status line, since it
// was lost: a try can wait 10 s for a host that hangs.
func TestRemoteUnreachableWhileTryingAgain(t *testing.T) {
	rq := &fakeRemote{}
	hs := newRemoteHarness(t, rq)
	hs.openTick("plain")
	hs.start()
	lost := time.Date(2026, 12, 7, 9, 41, 0, 0, time.Local)
	rq.set(nil, []remote.HostState{{Name: "b", State: remote.Connecting, Since: lost.Add(3 * time.Minute), Reason: "no answer from b in 3s", Down: lost}})
	hs.waitFor("b unreachable since 09:41, trying again")
	rq.set(nil, []remote.HostState{{Name: "b", State: remote.Unreachable, Since: lost.Add(4 * time.Minute), NextTry: time.Now().Add(30 * time.Second), Down: lost}})
	hs.waitFor("b unreachable since 09:41, next try in")
	rq.set(nil, []remote.HostState{{Name: "b", State: remote.Up, Since: time.Now()}})
	hs.waitGone("b unreachable")
}
