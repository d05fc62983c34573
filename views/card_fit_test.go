package views

import (
	"strconv"
	"strings"
	"testing"

	"tickmux/config"
	"tickmux/host"
)

// At 80x24 a focused card takes the whole panel: the demo's first card (the counter's increment,
// keys answered from a server's view) fits and y allows it at once, with no paging (issue 42
// item 7). It did not: the panel's body kept a third of the rows.
func TestCardFitsThePanelAt80x24(t *testing.T) {
	hs := newHarness(t, 80, 24)
	hs.openTick("plain")
	hs.start()
	hs.onUI(func() { hs.app.panel.answerer = "view 1 /dev/pts/0" }) // as a server's view says
	done, cancel := ask(hs, host.ApprovalRequest{Action: host.ActionCall, Client: "tickmux-cli", Instance: "hosted:1", Title: "Counter",
		Tool: "increment", ToolDescription: "Add an integer (negative to subtract) to the counter. Returns the new value and the change's number.",
		Args: []byte(`{"amount":2}`), Revision: "b31078c9cac7"})
	defer cancel()
	hs.waitFor("⚑ 1 pending")
	hs.prefix()
	hs.typeText("a")
	s := hs.waitFor("/dev/pts/0")
	if strings.Contains(s, "more than the panel shows") || !strings.Contains(s, "┗━━") {
		t.Fatalf("the card does not fit:\n%s", s)
	}
	hs.typeText("y")
	if err := answered(t, done); err != nil {
		t.Fatalf("y at 80x24: %v\n%s", err, hs.text())
	}
}

// A narrow pane's border keeps its approval badge whole: "· ready" goes, then the badge shrinks
// to its mark and the title is cut (the demo's Counter at 80 columns said "⚑ approva").
func TestNarrowBorderKeepsTheBadge(t *testing.T) {
	for _, c := range []struct {
		w    int
		want string
	}{
		{80, " View Tick  ⚑ approval  ─"}, // 40 columns: without "· ready", all of it
		{60, " View Tick  ⚑  ─"},          // 30 columns: the mark
		{40, " …  ⚑  ─"},                  // 20 columns: the title cut
	} {
		t.Run(strconv.Itoa(c.w), func(t *testing.T) {
			hs := newHarness(t, c.w, 24)                 // under 100 columns: no panel
			hs.app.cfg.PaneBorders = config.BordersBoxed // each pane's own box, whose top line is narrower
			in := hs.openTick("plain")
			hs.start()
			hs.prefix()
			hs.typeText("%")
			hs.waitFor("shell:1")
			approve(in, 2)
			hs.waitFor("⚑ 1 pending")
			hs.waitFor(in.ID() + c.want)
		})
	}
}

// At 100 columns the grants' heading keeps its hint whole, under it ("C-b Tab then 1–9 revokes"
// was cut to "C-b Tab t").
func TestGrantsHintIsWholeAt100Columns(t *testing.T) {
	hs := newHarness(t, 100, 30)
	in := hs.openTick("plain")
	hs.start()
	done := approve(in, 2)
	hs.waitFor("⚑ 1 pending")
	hs.allowForRevision(done)
	s := hs.waitFor("ALLOWED WITHOUT A CARD (1)")
	if !strings.Contains(s, "C-b Tab then 1–9 revokes") {
		t.Fatalf("the grants' hint is cut:\n%s", s)
	}
}
