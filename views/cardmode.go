package views

import (
	"fmt"
	"strconv"
	"time"

	"tickmux/host"
	"tickmux/keymap"
)

// cardSettle is how long keys are ignored after the card under the focus changed without the
// person asking (a withdrawal, a voiding): a key pressed for the card that went away must not
// answer the one that took its place, nor fall into a pane when no card is left.
const cardSettle = 800 * time.Millisecond

// cardFocus is card mode's state (UI goroutine): which card has the focus, by id, so a key
// answers the card that was on screen when it was pressed, never whatever now sits at its place.
type cardFocus struct {
	id     uint64    // the focused card; 0 before card mode picks one
	idx    int       // where it was in the queue, to pick its neighbour when it goes
	settle time.Time // keys are ignored until then
	// shownPanel: card mode showed the side panel (a narrow screen hides it); it goes away
	// again when card mode ends, unless the person toggled it meanwhile.
	shownPanel bool
}

// focusCard returns the index of the focused card in cards (not empty) and keeps the focus on the
// same card while it is pending. When it went away, the focus moves to the card now at its place,
// and keys wait for cardSettle, with a message saying why.
func (a *App) focusCard(cards []host.Card) int {
	f := &a.view.cards
	for i, c := range cards {
		if c.ID == f.id {
			f.idx = i
			return i
		}
	}
	i := min(f.idx, len(cards)-1)
	if f.id != 0 {
		f.settle = time.Now().Add(cardSettle)
		a.wakeTick(f.settle) // redraw when keys work again
		a.say("the card you were reading went away: this is another card; keys wait a moment")
	}
	f.id, f.idx = cards[i].ID, i
	return i
}

// enterCards focuses the oldest pending card (prefix + a), showing the side panel if the screen
// is too narrow for it to be on.
func (a *App) enterCards(cards []host.Card) {
	shown := false
	if w, _ := a.screenSize(); !a.panelVisible(w) {
		a.panelShown, a.panelSet, shown = true, true, true
	}
	a.view.mode = keymap.ModeCard
	a.view.cards = cardFocus{id: cards[0].ID, shownPanel: shown}
	// The person may have read another card at the top of the panel, which went away just now
	// (withdrawn or voided, drawn or not yet): keys wait, as when the focused card changes.
	if top, swapped := a.panel.TopCardSeen(); top != 0 && (top != cards[0].ID || time.Since(swapped) < cardSettle) {
		a.view.cards.settle = time.Now().Add(cardSettle)
		a.wakeTick(a.view.cards.settle)
		a.say("the card at the top changed just now: this is another card; keys wait a moment")
	}
}

// leaveCards ends card mode; a panel card mode showed goes away again.
func (a *App) leaveCards() {
	a.view.mode = keymap.ModeRoot
	if a.view.cards.shownPanel && a.panelShown && a.panelSet {
		a.panelShown, a.panelSet = false, false
		a.panel.focused = false
		a.full = true
	}
	a.view.cards.shownPanel = false
}

// moveCard focuses the next (+1) or previous (-1) card: the person's own move, so no settle.
func (a *App) moveCard(step int) {
	cards := a.pending()
	if len(cards) == 0 {
		return
	}
	i := (a.focusCard(cards) + step + len(cards)) % len(cards)
	a.view.cards.id, a.view.cards.idx = cards[i].ID, i
}

// settling reports whether keys are still being ignored after a card changed under the focus.
func (a *App) settling() bool { return time.Now().Before(a.view.cards.settle) }

// cardsGone ends card mode when the last card went away without an answer; keys typed for it
// wait for cardSettle so they never reach the pane.
func (a *App) cardsGone() {
	a.leaveCards()
	a.view.cards.settle = time.Now().Add(cardSettle)
	a.say("the card went away before an answer (withdrawn or voided)")
}

// answerCard answers the focused card: this keypress is the only way anything is approved. It
// answers the card with the focused id only: when that card was withdrawn or voided, the key
// answers nothing. An allow needs the card read to its end.
func (a *App) answerCard(act keymap.Action) {
	if a.settling() {
		a.say("the card changed: read it, then answer")
		return
	}
	var c *host.Card
	for _, x := range a.pending() {
		if x.ID == a.view.cards.id {
			c = &x
			break
		}
	}
	if c == nil {
		a.say("that request was withdrawn or voided before the answer")
		if len(a.pending()) == 0 {
			a.cardsGone()
		} else {
			a.view.cards.settle = time.Now().Add(cardSettle)
		}
		return
	}
	if act != keymap.Deny && !a.panel.CardRead(c.ID) {
		a.say("read to the card's end first: PgDn") // short: the status bar at 80 columns
		return
	}
	d, what := host.AllowOnce, "allowed once"
	switch act {
	case keymap.AllowRevision:
		d, what = host.AllowRevision, "allowed for revision "+strconv.Quote(c.Req.Revision)
		switch {
		case c.Req.Action == host.ActionAgent && c.Req.Agent != nil && c.Req.Agent.Session != "":
			what = "allowed again for this agent session"
		case c.Req.Action != host.ActionCall:
			d, what = host.AllowOnce, "allowed once"
		}
	case keymap.Deny:
		d, what = host.Deny, "denied"
	}
	by := a.viewName()
	if err := a.answer(*c, d, a.answeringView()); err != nil {
		if isRemote(c.ID) {
			a.say(err.Error()) // its host is unreachable: nothing was sent
		} else {
			a.say("that request was withdrawn or voided before the answer")
		}
		return
	}
	a.panel.CardAnswered(c.ID)
	if by != "" {
		what += " by " + by
	}
	a.say(what + ": " + string(c.Req.Action) + " " + describeTarget(c.Req))
	// The next card takes the focus: a key pressed twice must not answer it unread.
	a.view.cards.id = 0
	if len(a.pending()) == 0 {
		a.leaveCards()
	} else {
		a.view.cards.settle = time.Now().Add(cardSettle)
		a.wakeTick(a.view.cards.settle)
	}
}

// askDenyAll asks whether to deny every card now waiting of the focused card's Tick or agent,
// then denies each as n would (journaled one by one, answered from this view). The cards are
// the ones counted in the question: a card that arrives while it is asked is never denied
// unseen, and one answered, withdrawn or voided meanwhile is skipped.
func (a *App) askDenyAll() {
	if a.settling() {
		a.say("the card changed: read it, then answer")
		return
	}
	cards := a.pending()
	var focused *host.Card
	for i := range cards {
		if cards[i].ID == a.view.cards.id {
			focused = &cards[i]
			break
		}
	}
	if focused == nil {
		a.say("that request was withdrawn or voided before the answer")
		if len(cards) == 0 {
			a.cardsGone()
		} else {
			a.view.cards.settle = time.Now().Add(cardSettle)
		}
		return
	}
	group, whose := denyGroup(focused.Req)
	var ids []uint64
	for _, c := range cards {
		if g, _ := denyGroup(c.Req); g == group {
			ids = append(ids, c.ID)
		}
	}
	noun := "cards"
	if len(ids) == 1 {
		noun = "card"
	}
	a.ask(fmt.Sprintf("deny all %d waiting %s of %s?", len(ids), noun, whose), func() { a.denyAll(ids, whose) })
}

// denyAll denies the cards ids that still wait (the person said yes to askDenyAll).
func (a *App) denyAll(ids []uint64, whose string) {
	view := a.answeringView()
	denied := 0
	waiting := map[uint64]host.Card{}
	for _, c := range a.pending() {
		waiting[c.ID] = c
	}
	for _, id := range ids {
		c, ok := waiting[id]
		if !ok || a.answer(c, host.Deny, view) != nil {
			continue // answered, withdrawn or voided since the question (or its host is unreachable)
		}
		a.panel.CardAnswered(id)
		denied++
	}
	what := fmt.Sprintf("denied %d waiting cards of %s", denied, whose)
	if by := a.viewName(); by != "" {
		what += " by " + by
	}
	if gone := len(ids) - denied; gone > 0 {
		what += fmt.Sprintf(" (%d went away before the answer)", gone)
	}
	a.say(what)
	a.view.cards.id = 0
	if len(a.pending()) == 0 {
		if a.view.mode == keymap.ModeCard {
			a.leaveCards()
		}
	} else {
		a.view.cards.settle = time.Now().Add(cardSettle)
		a.wakeTick(a.view.cards.settle)
	}
}

// denyGroup says whose a card is, for askDenyAll: an agent's card belongs to its agent session
// (else to the agent in its pane), a Tick's or pane's to the instance, an open to the client that
// asked. whose names the group for the question, escaped for the screen.
func denyGroup(r host.ApprovalRequest) (group, whose string) {
	switch {
	case r.Action == host.ActionAgent && r.Agent != nil && r.Agent.Session != "":
		return "agent\x00" + r.Agent.Agent + "\x00" + r.Agent.Session,
			host.Printable(capText(r.Agent.Agent, 40), false) + " session " + host.Printable(capText(r.Agent.Session, 40), false)
	case r.Action == host.ActionAgent && r.Agent != nil:
		where := r.Instance
		if where == "" {
			where = "outside tickmux"
		}
		return "agent\x00" + r.Agent.Agent + "\x00\x00" + r.Instance,
			host.Printable(capText(r.Agent.Agent, 40), false) + " in " + host.Printable(capText(where, 40), false)
	case r.Instance != "":
		return "instance\x00" + r.Instance, host.Printable(capText(r.Instance, 40), false)
	}
	return "client\x00" + r.Client, host.Printable(capText(r.Client, 40), false)
}

// readCard runs a card-mode action that reads through a card taller than the panel (PgDn,
// Space, PgUp, Home and End by default). It reports whether act was one.
func (a *App) readCard(act keymap.Action) bool {
	_, _, _, h := a.panel.GetInnerRect()
	page := max(1, h-2)
	switch act {
	case keymap.PageDown:
		a.panel.ScrollCard(page)
	case keymap.PageUp:
		a.panel.ScrollCard(-page)
	case keymap.ScrollTop:
		a.panel.ScrollCard(-1 << 30)
	case keymap.ScrollBottom:
		a.panel.ScrollCard(1 << 30)
	default:
		return false
	}
	return true
}

// askRevoke asks, then revokes the i-th grant the panel lists (the panel has the focus).
func (a *App) askRevoke(i int) {
	if a.queue == nil {
		return
	}
	grants := a.queue.Grants()
	if i >= len(grants) {
		return
	}
	g := grants[i]
	what := host.Printable(capText(g.Tool, 60), false) + " on " + g.Instance
	if g.Session != "" {
		what = host.Printable(capText(g.Tool, 60), false) + " with this input in agent session " + host.Printable(capText(g.Session, 60), false)
	}
	a.ask("revoke: "+what+" needs a card again?", func() {
		if a.queue.Revoke(g) {
			a.say("revoked: " + what + " needs a card again")
		}
	})
}
