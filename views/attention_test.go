package views

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
	"tickmux/host"
)

// A notification's text is the agent's and the Tick's: whatever they put in it, the sequence
// has its own start and end only, so nothing can end it early and write to the terminal.
func TestAttentionSequenceEscapesTheCard(t *testing.T) {
	c := host.Card{ID: 3, Req: host.ApprovalRequest{Action: host.ActionCall, Client: "evil\x1b\\\x07\x1b]0;pwned\x07", Instance: "hosted:1",
		Title: "T\x9c\x1b[2J", Tool: "rm\a"}}
	for mode, frame := range map[string][2]string{
		config.NotifyOSC9:   {"\x1b]9;tickmux card 3: ", "\x1b\\"},
		config.NotifyOSC777: {"\x1b]777;notify;tickmux;card 3: ", "\x1b\\"},
	} {
		seq := string(attentionSeq(mode, c))
		body, ok := strings.CutPrefix(seq, frame[0])
		body, ok2 := strings.CutSuffix(body, frame[1])
		if !ok || !ok2 {
			t.Fatalf("%s: %q is not framed as %q … %q", mode, seq, frame[0], frame[1])
		}
		for _, r := range body {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("%s: the text holds control character %U: %q", mode, r, body)
			}
		}
	}
	if s := attentionSeq(config.NotifyBell, c); string(s) != "\a" {
		t.Errorf("bell: %q", s)
	}
	if s := attentionSeq(config.NotifyNone, c); s != nil {
		t.Errorf("none: %q", s)
	}
}

// alertScreen is a simulation screen that records the alerts written to it.
type alertScreen struct {
	tcell.SimulationScreen
	mu     sync.Mutex
	alerts []string
}

func (s *alertScreen) Alert(seq []byte) {
	s.mu.Lock()
	s.alerts = append(s.alerts, string(seq))
	s.mu.Unlock()
}

func (s *alertScreen) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.alerts...)
}

// Each card rings once when it starts waiting, whatever else changes while it waits; a card
// answered and a card withdrawn ring nothing.
func TestEachCardRingsOnce(t *testing.T) {
	sc := &alertScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	hs := newHarnessOn(t, sc)
	sc.SetSize(160, 50)
	hs.screen = sc
	hs.start()
	first, withdraw, second, cancel := askHarmlessThenMalicious(hs)
	defer cancel()
	ringing := func(n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for len(sc.got()) < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := sc.got(); len(got) != n || (n > 0 && got[n-1] != "\a") {
			t.Fatalf("alerts %q, want %d bells", got, n)
		}
	}
	ringing(2)
	withdraw()
	answered(t, first)
	hs.waitFor("MALICIOUS")
	third, cancel3 := ask(hs, host.ApprovalRequest{Action: host.ActionSend, Client: "agent", Instance: "shell:1", Text: "third"})
	defer cancel3()
	waitCards(t, hs.queue, 2)
	ringing(3)
	cancel()
	cancel3()
	answered(t, second)
	answered(t, third)
	waitCards(t, hs.queue, 0)
	// A fourth card is the sentinel: once the App has rung for it, it has handled the cards going
	// away, and any bell that handling rang is in the list before the fourth's.
	fourth, cancel4 := ask(hs, host.ApprovalRequest{Action: host.ActionSend, Client: "agent", Instance: "shell:1", Text: "fourth"})
	defer cancel4()
	id := waitCards(t, hs.queue, 1)[0].ID
	waitUntil(t, "the App rang for the fourth card", func() bool { return onUIValue(hs, func() uint64 { return hs.app.rung }) >= id })
	if got := sc.got(); len(got) != 4 {
		t.Fatalf("alerts %q after the cards went away and a fourth came, want 4 bells", got)
	}
	cancel4()
	answered(t, fourth)
}
