package views

import (
	"errors"
	"sync"
	"testing"

	"tickmux/host"
)

// Issue 38: with 1,024 cards up the person had no way to deny them together. N asks "deny all
// N waiting cards of shell:1?" (the focused card's instance) and y denies each of them as n
// would, answered from the same view; n to the question denies nothing; a card of that
// instance that arrives while the question is asked is not in the set, and another instance's
// card is left alone.
// Key table (README "Using tickmux"): prefix `a` then `N`.
func TestDenyAllOfOneInstanceAsksFirst(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.start()

	var mu sync.Mutex
	views := map[string]string{} // text → the view its answer came from
	decisions := map[string]host.Decision{}
	send := func(instance, text string) chan error {
		done, cancel := ask(hs, host.ApprovalRequest{Action: host.ActionSend, Client: "agent", Instance: instance, Text: text,
			Answered: func(d host.Decision, view string) {
				mu.Lock()
				defer mu.Unlock()
				views[text], decisions[text] = view, d
			}})
		t.Cleanup(cancel)
		return done
	}
	single := send("shell:1", "one by n")
	waitCards(t, hs.queue, 1)
	var group []chan error
	for i, text := range []string{"first", "second"} {
		group = append(group, send("shell:1", text))
		waitCards(t, hs.queue, 2+i)
	}
	other := send("shell:2", "another instance")
	waitCards(t, hs.queue, 4)
	group = append(group, send("shell:1", "third"))
	waitCards(t, hs.queue, 5)

	hs.prefix()
	hs.typeText("a")
	hs.waitFor("one by n")
	denyAfterSettle(t, hs, single, "the first card, by n") // the view a single n answers from
	hs.waitSettled()

	hs.typeText("N")
	hs.waitFor("deny all 3 waiting cards of shell:1? (y/n)")
	hs.typeText("n") // no: nothing is denied, and this n is not a card's answer
	hs.waitGone("deny all 3 waiting")
	hs.sync()
	if n := len(hs.queue.Pending()); n != 4 {
		t.Fatalf("%d cards pending after no to the question, want 4", n)
	}

	hs.typeText("N")
	hs.waitFor("deny all 3 waiting cards of shell:1? (y/n)")
	late := send("shell:1", "arrived while asked")
	waitCards(t, hs.queue, 5)
	hs.typeText("y")
	for i, done := range group {
		if err := answered(t, done); !errors.Is(err, host.ErrDenied) {
			t.Errorf("card %d of shell:1: %v, want denied", i+1, err)
		}
	}
	hs.waitFor("denied 3 waiting cards of shell:1")
	left := waitCards(t, hs.queue, 2)
	if left[0].Req.Text != "another instance" || left[1].Req.Text != "arrived while asked" {
		t.Errorf("still pending: %q and %q; want the other instance's card and the one that came during the question", left[0].Req.Text, left[1].Req.Text)
	}
	for _, done := range []chan error{other, late} {
		select {
		case err := <-done:
			t.Errorf("a card outside the set was answered: %v", err)
		default:
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, text := range []string{"first", "second", "third"} {
		if decisions[text] != host.Deny || views[text] != views["one by n"] {
			t.Errorf("%q: decision %v from view %q; want deny from %q, as a single n", text, decisions[text], views[text], views["one by n"])
		}
	}
}

// An agent's cards are grouped by its session: N on one of them counts that session's cards only.
func TestDenyAllGroupsAnAgentBySession(t *testing.T) {
	for _, tc := range []struct {
		a, b host.ApprovalRequest
		same bool
	}{
		{agentReq("s1", "shell:1"), agentReq("s1", "shell:2"), true},
		{agentReq("s1", "shell:1"), agentReq("s2", "shell:1"), false},
		{agentReq("", "shell:1"), agentReq("", "shell:1"), true},
		{agentReq("", "shell:1"), host.ApprovalRequest{Action: host.ActionSend, Instance: "shell:1"}, false},
		{host.ApprovalRequest{Action: host.ActionCall, Instance: "hosted:1"}, host.ApprovalRequest{Action: host.ActionSend, Instance: "hosted:1"}, true},
		{host.ApprovalRequest{Action: host.ActionOpen, Client: "x"}, host.ApprovalRequest{Action: host.ActionOpen, Client: "y"}, false},
	} {
		ga, whose := denyGroup(tc.a)
		gb, _ := denyGroup(tc.b)
		if (ga == gb) != tc.same || whose == "" {
			t.Errorf("%+v and %+v: same group %v, want %v (%q)", tc.a, tc.b, ga == gb, tc.same, whose)
		}
	}
}

func agentReq(session, instance string) host.ApprovalRequest {
	return host.ApprovalRequest{Action: host.ActionAgent, Client: "Claude Code", Instance: instance,
		Agent: &host.AgentCall{Agent: "Claude Code", Session: session, Tool: "Bash"}}
}
