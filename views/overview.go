package views

import (
	"fmt"
	"time"

	"tickmux/host"
)

// The overview: when the focused pane runs a plain program (a shell, vim), the side panel has
// no state to show of it, and shows instead every Tick and agent session at a glance (issue 42
// item 6): each Tick's id, title, status, seq, updates and waiting cards; each agent's pane,
// state and for how long.

// overviewInstances is what the overview lists: every instance, when the focused one is a plain
// program; nil otherwise (nothing is gathered for a Tick's panel). UI goroutine.
func (a *App) overviewInstances(focused *host.Instance) []*host.Instance {
	if focused == nil || focused.IsTick() {
		return nil
	}
	return a.host.Instances()
}

// overview adds the Ticks and agents to a plain program's panel body.
func (p *SidePanel) overview(in panelInput, w int, add func(line), blank func(), heading func(string, ...seg)) {
	th := p.theme
	cards := map[string]int{}
	for _, c := range in.cards {
		if c.Req.Host == "" {
			cards[c.Req.Instance]++
		}
	}
	var ticks []*host.Instance
	for _, i := range in.all {
		if i.IsTick() {
			ticks = append(ticks, i)
		}
	}
	blank()
	var hint []seg
	if in.chooseKeys != "" {
		hint = append(hint, seg{in.chooseKeys + " chooses one", th.PanelMuted})
	}
	heading(fmt.Sprintf("TICKS (%d)", len(ticks)), hint...)
	if len(ticks) == 0 {
		add(plain("none: tickmux -- CMD opens one (tickmux demo shows five)", th.PanelMuted))
	}
	for _, t := range ticks {
		st := t.State()
		add(wrapLine(line{{t.ID(), th.PanelHeading}, {"  ", th.Panel}, untrusted(capText(t.Title(), 30), th.Panel), {"  ", th.Panel}, statusSeg(th, t.Status())}, w)[0])
		detail := fmt.Sprintf("  seq %d · %d updates", st.Seq, st.Updates)
		if n := cards[t.ID()]; n > 0 {
			detail += fmt.Sprintf(" · %d waiting", n)
		}
		add(plain(detail, th.PanelMuted))
	}
	var agents []host.AgentSession
	for _, s := range in.agents {
		if s.State != host.AgentEnded {
			agents = append(agents, s)
		}
	}
	if len(agents) == 0 {
		return
	}
	blank()
	heading(fmt.Sprintf("AGENTS (%d)", len(agents)))
	for _, s := range agents {
		where := s.Pane
		if where == "" {
			where = "outside tickmux"
		}
		since := ""
		if !s.Since.IsZero() {
			since = " " + sinceText(in.now.Sub(s.Since).Round(time.Second))
		}
		l := line{untrusted(capText(s.Agent, 20), th.PanelHeading), {"  " + where + "  ", th.Panel}, untrusted(string(s.State)+since, th.PanelMuted)}
		add(wrapLine(l, w)[0])
	}
}
