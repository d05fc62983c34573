package views

import (
	"fmt"

	"tickmux/config"
	"tickmux/host"
)

// Attention: a card that starts waiting rings every attached view once (config notify: a bell,
// or a desktop notification by OSC 9 or OSC 777), so a waiting card is not missed in another
// window. The text of a notification is the card's, escaped and capped, and holds no control
// character that could end the sequence early.

// alerter is a screen that can write a sequence to its terminal(s) with the next frame (the
// Mirror: to every attached view).
type alerter interface {
	Alert(seq []byte)
}

// attend rings for each card not rung for yet. Card ids only grow, so one number remembers them.
// UI goroutine.
func (a *App) attend() {
	if a.queue == nil && a.remote.q == nil {
		return
	}
	mode := config.NotifyBell
	if a.cfg != nil && a.cfg.Notify != "" {
		mode = a.cfg.Notify
	}
	for _, c := range a.pending() {
		// Ids only grow, the remote ones (above remoteBase) apart: one number for each.
		rung := &a.rung
		if isRemote(c.ID) {
			rung = &a.remote.rung
		}
		if c.ID <= *rung {
			continue
		}
		*rung = c.ID
		seq := attentionSeq(mode, c)
		if seq == nil {
			continue
		}
		if al, ok := a.screen.Screen.(alerter); ok {
			al.Alert(seq)
		} else if mode == config.NotifyBell {
			_ = a.screen.Beep()
		}
	}
}

// attentionSeq is what a view's terminal gets for card c; nil for none.
func attentionSeq(mode string, c host.Card) []byte {
	text := func() string {
		s := fmt.Sprintf("card %d: %s wants to %s", c.ID, capText(c.Req.Client, 60), cardVerb(c.Req))
		// Printable leaves no control character, so nothing can end the sequence early.
		return host.Printable(capText(s, 200), false)
	}
	switch mode {
	case config.NotifyBell:
		return []byte("\a")
	case config.NotifyOSC9:
		return []byte("\x1b]9;tickmux " + text() + "\x1b\\")
	case config.NotifyOSC777:
		return []byte("\x1b]777;notify;tickmux;" + text() + "\x1b\\")
	}
	return nil
}

// answeringView names the view whose key answers a card, for the journal, the log and the
// recent calls.
func (a *App) answeringView() string {
	if a.views.cur == "" {
		return "" // an App drawing on a screen of its own (tests): no view to name
	}
	if name := a.viewName(); name != "" {
		return name // "view 2 /dev/pts/5": its number and terminal
	}
	return a.views.cur // "view-2"
}
