package views

import (
	"testing"
	"time"

	"tickmux/host"
)

// Issue 42 item 6: with a plain program focused, the side panel shows every Tick and agent at a
// glance (id, title, status, seq, updates, waiting cards), and how to choose one.
func TestPanelOverviewForAPlainProgram(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 150, 40)
	tick := hs.openTick("plain")
	var sh *host.Instance
	hs.onUI(func() {
		var err error
		if sh, err = hs.app.Open(host.OpenSpec{Shell: true}); err != nil {
			t.Fatal(err)
		}
	})
	hs.h.Agents().Set(host.AgentSession{Agent: "Codex", Session: "s-1", Pane: sh.ID()}, host.AgentWorking, time.Now())
	hs.start()
	done, cancel := ask(hs, host.ApprovalRequest{Action: host.ActionCall, Client: "agent", Instance: tick.ID(), Tool: "increment", Args: []byte(`{"amount":1}`)})
	defer func() { cancel(); <-done }()
	txt := hs.waitFor("TICKS (1)")
	for _, want := range []string{tick.ID() + "  View Tick  ready", "seq 1 · 1 updates · 1 waiting", "C-b w chooses one", "AGENTS (1)", "Codex  " + sh.ID() + "  working"} {
		hs.waitFor(want)
	}
	_ = txt
	// A Tick focused: its own panel, no overview.
	hs.onUI(func() { hs.app.setFocus(tick.ID()) })
	hs.waitGone("TICKS (1)")
}
