package views

import (
	"tickmux/host"
	"tickmux/host/journal"
)

// The approval journal on the side panel: each recent call shows the state change it made (as
// tickmux log does), a card for a tool shows the last change that tool made, and a journal that
// cannot be written says so above everything but the cards. The change's text is the Tick's:
// escaped (untrusted) and capped like the card's.

// maxChangeLines bounds the change lines under one call or card.
const maxChangeLines = 4

// changeLines renders c's change, each line after indent.
func (p *SidePanel) changeLines(c host.CallRecord, indent string) []line {
	if c.Change == nil {
		return nil
	}
	th := p.theme
	var out []line
	for _, l := range journal.ChangeLines(journal.Entry{Change: c.Change, Merged: c.Merged}, maxChangeLines) {
		out = append(out, line{{indent, th.Panel}, untrusted(shorten(l, 200), th.PanelMuted)})
	}
	return out
}

// lastChangeLines says what the last call of r's tool changed, on r's card.
func (p *SidePanel) lastChangeLines(r host.ApprovalRequest, w int) []line {
	if p.lastChange == nil || r.Action != host.ActionCall {
		return nil
	}
	c, ok := p.lastChange(r.Instance, r.Tool)
	if !ok {
		return nil
	}
	th := p.theme
	// When the change happened: the call's end, when its result (and the change) arrived.
	at := c.Finished
	if at.IsZero() {
		at = c.Started
	}
	out := []line{plain("last time ("+at.Format("15:04:05")+") it changed:", th.Card)}
	for _, l := range p.changeLines(c, "  ") {
		out = append(out, wrapLine(l, w)...)
	}
	return out
}

// journalWarning shows why the journal cannot be written.
func (p *SidePanel) journalWarning(warn string, w int, add func(line), blank func()) {
	if warn == "" {
		return
	}
	th := p.theme
	l := line{{"JOURNAL NOT WRITTEN: ", th.Error.Bold(true)}, untrusted(shorten(warn, 300), th.Error),
		{" (decisions go unrecorded; the log says more)", th.PanelMuted}}
	for _, wl := range wrapLine(l, w) {
		add(wl)
	}
	blank()
}
