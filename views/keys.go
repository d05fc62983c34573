package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
)

// captureKey sees every key first (UI goroutine). Keys reach a pane only in root or locked
// mode, and an approval card takes keys only in card mode, which the person enters on purpose
// (prefix + a): typing into a pane can never answer a card.
func (a *App) captureKey(ev *tcell.EventKey) *tcell.EventKey {
	a.routeChanged() // the lanes close before anything a key does (lane.go)
	a.keyTaken(ev)   // keys first (keysfirst.go)
	a.enterView(ev)  // several views: this key acts with its own view's state (clients.go)
	if a.runMark(ev) {
		return nil // a paste's start or end (paste.go), or a lane's question: never a key
	}
	a.full = true // a key typed into a pane clears this again: only the pane will change
	// Overlays own the keyboard while open; tview routes to their focused field.
	switch {
	case a.restoreAsk != nil:
		a.answerRestore(ev)
		a.rebuild()
		return nil
	case a.view.confirm != nil:
		a.answerConfirm(ev)
		return nil
	case a.input != nil:
		a.inputKey(ev)
		return nil
	case a.paneNumbersShown():
		a.paneNumberKey(ev)
		a.rebuild()
		return nil
	case a.prompt.open:
		return a.prompt.handle(ev)
	case a.help.open:
		a.help.handle(ev)
		return nil
	case a.tree.open:
		a.tree.handle(ev)
		a.rebuild()
		return nil
	}
	k := keymap.FromEvent(ev)
	switch a.view.mode {
	case keymap.ModeLocked:
		if a.settling() {
			return nil
		}
		if act, ok := a.keys.Lookup(keymap.ModeLocked, k); ok {
			a.do(act)
			a.rebuild() // the status bar says LOCKED no more (it waited for the next tick)
			return nil
		}
		a.toPane(ev)
		return nil
	case keymap.ModePrefix:
		a.view.mode = keymap.ModeRoot
		if act, ok := a.keys.Lookup(keymap.ModePrefix, k); ok {
			a.do(act)
		}
		a.rebuild()
		return nil
	case keymap.ModeCard:
		if act, ok := a.keys.Lookup(keymap.ModeCard, k); ok {
			if !a.readCard(act) {
				a.do(act)
			}
		} else if k == a.keys.Prefix {
			a.view.mode = keymap.ModePrefix // the prefix still works, and leaves the card pending
		}
		a.rebuild()
		return nil // any other key is swallowed: never typed into a pane by accident
	case keymap.ModeScroll:
		if p := a.focusedPane(); p != nil && p.term.Searching() {
			p.term.ScrollKey(ev) // every key goes to the query being typed; Enter searches
		} else if act, ok := a.keys.Lookup(keymap.ModeScroll, k); ok {
			a.doScroll(act)
		} else if p := a.focusedPane(); p != nil {
			p.term.ScrollKey(ev) // search typing and the like
			if !p.term.Scrolling() {
				a.view.mode = keymap.ModeRoot
			}
		}
		a.rebuild()
		return nil
	}
	// Root mode.
	if a.settling() {
		return nil // a key meant for a card that just went away never reaches the pane
	}
	if k == a.keys.Prefix {
		a.view.mode = keymap.ModePrefix
		a.rebuild()
		return nil
	}
	if act, ok := a.keys.Lookup(keymap.ModeRoot, k); ok {
		a.do(act)
		a.rebuild()
		return nil
	}
	if a.panel.focused {
		if act, ok := a.keys.Lookup(keymap.ModePanel, k); ok {
			a.doPanel(act)
		}
		a.rebuild()
		return nil // any other key is swallowed while the panel has the focus
	}
	if p := a.focusedPane(); p != nil && p.inst.Status() == host.StatusEnded {
		if act, ok := a.keys.Lookup(keymap.ModeEnded, k); ok {
			a.do(act)
			a.rebuild()
			return nil
		}
	}
	if p := a.focusedPane(); p != nil && a.offerKey(p, ev) {
		a.rebuild()
		return nil
	}
	a.toPane(ev)
	return nil
}

// maxTypedEchoes bounds the draws at once that typed keys allow a pane (a held key repeats).
const maxTypedEchoes = 32

// toPane types a key into the focused pane's program.
func (a *App) toPane(ev *tcell.EventKey) {
	a.full = false
	if p := a.focusedPane(); p != nil && p.inst.Status() != host.StatusEnded {
		if p.typed.Load() < maxTypedEchoes {
			p.typed.Add(1)
		}
		a.typeKey(p, ev)
		if ev.Key() == tcell.KeyEnter && !p.inst.IsTick() {
			// A command may start: its name becomes the pane's title within a second or two.
			a.titlesUntil = a.now().Add(3 * time.Second)
			a.wakeTick(time.Now().Add(300 * time.Millisecond))
		}
	}
}

// doPanel runs an action of the focused side panel ([keys.panel]).
func (a *App) doPanel(act keymap.Action) {
	_, _, _, h := a.panel.GetInnerRect()
	switch act {
	case keymap.ScrollUp:
		a.panel.ScrollBy(-1)
	case keymap.ScrollDown:
		a.panel.ScrollBy(1)
	case keymap.PageUp:
		a.panel.ScrollBy(-max(1, h-1))
	case keymap.PageDown:
		a.panel.ScrollBy(max(1, h-1))
	case keymap.ScrollTop:
		a.panel.scroll = 0
	case keymap.ToggleSchemas:
		a.panel.schemas = !a.panel.schemas
	case keymap.LeavePanel:
		a.panel.focused = false
	default:
		if n, ok := keymap.GrantOf(act); ok {
			a.askRevoke(n - 1)
		} else {
			a.do(act) // any other action bound here does what it does anywhere
		}
	}
}

// layoutPresets are the layouts M-1…M-5 choose, as in tmux.
var layoutPresets = map[keymap.Action]Preset{
	keymap.LayoutEvenHorizontal: EvenHorizontal, keymap.LayoutEvenVertical: EvenVertical,
	keymap.LayoutMainHorizontal: MainHorizontal, keymap.LayoutMainVertical: MainVertical, keymap.LayoutTiled: Tiled,
}

// do runs an action (UI goroutine).
func (a *App) do(act keymap.Action) {
	p := a.focusedPane()
	switch act {
	case keymap.SplitRight:
		a.splitShell(SideBySide)
	case keymap.SplitDown:
		a.splitShell(Stacked)
	case keymap.SplitSandboxed:
		a.splitShellWith(host.OpenSpec{Sandbox: true}, SideBySide)
	case keymap.NewShell:
		a.splitShell(a.autoAxis())
	case keymap.NewTab:
		a.newTab()
	case keymap.NextTab, keymap.PrevTab:
		step := 1
		if act == keymap.PrevTab {
			step = len(a.tabs) - 1
		}
		a.switchTab((a.tabIndex() + step) % len(a.tabs))
	case keymap.RenameTab:
		a.renameTab()
	case keymap.RenamePane:
		a.renamePane()
	case keymap.LastPane:
		a.goLastPane()
	case keymap.DisplayPanes:
		a.showPaneNumbers()
	case keymap.RespawnPane:
		a.respawn(false)
	case keymap.RunPlain:
		a.respawn(true)
	case keymap.PasteBuffer:
		a.pasteBuffer()
	case keymap.ChooseBuffer:
		a.tree.showBuffers()
	case keymap.FocusLeft, keymap.FocusRight, keymap.FocusUp, keymap.FocusDown:
		if a.tab.floatShown && a.tab.focus == a.tab.floatID {
			a.tab.floatShown = false // moving out of the float hides it; it keeps running
			a.setFocus(a.tab.lastTiled)
			break
		}
		if n := a.tab.layout.Neighbor(a.tab.focus, actionDirection(act), a.paneRects()); n != "" {
			a.setFocus(n)
		}
	case keymap.FocusNext:
		ids := a.tab.layout.IDs()
		for i, id := range ids {
			if id == a.tab.focus {
				a.setFocus(ids[(i+1)%len(ids)])
				break
			}
		}
	case keymap.ResizeLeft, keymap.ResizeRight, keymap.ResizeUp, keymap.ResizeDown:
		a.tab.layout.Resize(a.tab.focus, actionDirection(act), 2)
	case keymap.Zoom:
		a.tab.layout.Zoom(a.tab.focus)
	case keymap.NextLayout, keymap.LayoutEvenHorizontal, keymap.LayoutEvenVertical, keymap.LayoutMainHorizontal,
		keymap.LayoutMainVertical, keymap.LayoutTiled:
		preset := a.tab.layout.NextPreset()
		if act != keymap.NextLayout {
			preset = layoutPresets[act]
		}
		a.tab.layout.ApplyPreset(preset)
		a.full = true
		a.say("layout: " + preset.String())
	case keymap.BreakPane:
		a.breakPane()
	case keymap.KillTab:
		t, i, n := a.tab, a.tabIndex(), len(a.tab.layout.IDs())
		if a.tab.floatID != "" {
			n++
		}
		q := fmt.Sprintf("kill tab %d (%s) and end its %d program(s)?", i, a.tabName(i), n)
		if a.endsTickmux(n) {
			q = fmt.Sprintf("kill the last tab (%s) and end tickmux?", a.tabName(i))
		}
		a.ask(q, func() { a.killTab(t) })
	case keymap.ChooseTree:
		a.tree.show()
	case keymap.ClosePane:
		if p == nil {
			return
		}
		id := p.ID()
		switch {
		case a.endsTickmux(1):
			// As tmux does not end a session nobody meant to end, the last pane asks first,
			// ended or not, and says what closing it does.
			a.ask(fmt.Sprintf("close the last pane (%s) and end tickmux?", id), func() { a.closePane(id) })
		case p.inst.Status() == host.StatusEnded:
			a.closePane(id)
		default:
			a.ask(fmt.Sprintf("close %s (%s) and end its program?", id, p.inst.Title()), func() { a.closePane(id) })
		}
	case keymap.SwapNext, keymap.SwapPrev:
		ids := a.tab.layout.IDs()
		for i, id := range ids {
			if id == a.tab.focus && len(ids) > 1 {
				j := (i + 1) % len(ids)
				if act == keymap.SwapPrev {
					j = (i - 1 + len(ids)) % len(ids)
				}
				a.tab.layout.Swap(id, ids[j])
				break
			}
		}
	case keymap.ToggleFloat:
		a.toggleFloat()
	case keymap.Prompt:
		a.prompt.show()
	case keymap.TogglePanel:
		a.view.cards.shownPanel = false // the person decides now
		w, _ := a.screenSize()
		a.panelShown = !a.panelVisible(w)
		a.panelSet = true
		if !a.panelShown {
			a.panel.focused = false
		}
	case keymap.FocusPanel:
		w, _ := a.screenSize()
		if !a.panelVisible(w) {
			a.panelShown, a.panelSet = true, true
		}
		a.panel.focused = !a.panel.focused
	case keymap.Approvals:
		if a.queue == nil || len(a.pending()) == 0 {
			a.say("no approvals pending")
			return
		}
		a.enterCards(a.pending())
	case keymap.Help:
		a.help.show()
	case keymap.ScrollMode:
		if p != nil {
			p.term.StartScroll()
			a.view.mode = keymap.ModeScroll
		}
	case keymap.Lock:
		a.view.mode = keymap.ModeLocked
		if keys := a.keys.KeysFor(keymap.ModeLocked, keymap.Unlock); len(keys) > 0 {
			a.say(lockedMessage + keys[0].String() + " unlocks")
		}
	case keymap.Unlock:
		a.view.mode = keymap.ModeRoot
		if strings.HasPrefix(a.message, lockedMessage) {
			a.message = "" // it would say locked a while longer
		}
	case keymap.Quit:
		n := 0
		for _, in := range a.host.Instances() {
			if in.Status() != host.StatusEnded {
				n++
			}
		}
		a.ask(fmt.Sprintf("quit tickmux and end %d running programs?", n), func() {
			a.endedBy.CompareAndSwap(nil, &endQuit)
			a.Stop()
		})
	case keymap.Detach:
		a.detachView()
	case keymap.Suspend:
		a.suspendView()
	case keymap.SendPrefix:
		if p != nil {
			k := a.keys.Prefix
			p.term.Key(tcell.NewEventKey(k.Code, k.Rune, k.Mod))
		}
	default:
		if n, ok := keymap.TabOf(act); ok {
			a.switchTab(n)
		}
	case keymap.AllowOnce, keymap.AllowRevision, keymap.Deny:
		a.answerCard(act)
	case keymap.DenyAll:
		a.askDenyAll()
	case keymap.LeaveCard:
		a.leaveCards()
	case keymap.NextCard, keymap.PrevCard:
		if act == keymap.NextCard {
			a.moveCard(1)
		} else {
			a.moveCard(-1)
		}
	}
}

func describeTarget(r host.ApprovalRequest) string {
	switch r.Action {
	case host.ActionCall:
		return r.Tool + " on " + r.Instance
	case host.ActionOpen:
		return fmt.Sprint(r.Argv)
	case host.ActionAgent:
		if r.Agent != nil {
			return r.Client + "'s " + r.Agent.Tool + " in " + r.Instance
		}
	}
	return r.Instance
}

func (a *App) doScroll(act keymap.Action) {
	p := a.focusedPane()
	if p == nil {
		a.view.mode = keymap.ModeRoot
		return
	}
	if act == keymap.ExitMode {
		p.term.StopScroll()
		a.view.mode = keymap.ModeRoot
		return
	}
	if act == keymap.Copy {
		if text := p.term.Selection(); text != "" {
			a.addPasteBuffer(text) // prefix ] pastes it, prefix = lists it
		}
	}
	p.term.ScrollAction(act)
	if act == keymap.Copy {
		a.say("copied")
	}
	if !p.term.Scrolling() {
		a.view.mode = keymap.ModeRoot
	}
}

// toggleFloat works like a monitor window: the first press lifts the focused pane out of the
// tiles and floats it over them; moving the focus to a tile hides the float (it keeps running);
// the key shows it again; pressed while the float has the focus, it puts the pane back among
// the tiles.
func (a *App) toggleFloat() {
	switch {
	case a.tab.floatID != "" && a.tab.floatShown && a.tab.focus == a.tab.floatID:
		id := a.tab.floatID
		a.tab.floatID, a.tab.floatShown = "", false
		a.panes[id].float = false
		if !a.tab.layout.PutBack(id, a.tab.floatPlace) { // where it was, unless that part has gone
			target := a.tab.lastTiled
			if !a.tab.layout.Has(target) {
				if ids := a.tab.layout.IDs(); len(ids) > 0 {
					target = ids[0]
				}
			}
			a.tab.layout.Add(target, id, SideBySide)
		}
		a.moveFocus(id)
	case a.tab.floatID != "":
		if a.tab.focus != a.tab.floatID {
			a.tab.lastTiled = a.tab.focus
		}
		a.tab.floatShown = true
		a.moveFocus(a.tab.floatID)
	case a.tab.focus != "" && len(a.tab.layout.IDs()) > 1:
		id := a.tab.focus
		a.tab.floatPlace = a.tab.layout.Lift(id)
		a.tab.floatID, a.tab.floatShown = id, true
		a.panes[id].float = true
		a.tab.lastTiled = a.tab.layout.IDs()[0]
	default:
		a.say("a floating pane needs another pane to float over")
	}
}

func actionDirection(act keymap.Action) Direction {
	switch act {
	case keymap.FocusLeft, keymap.ResizeLeft:
		return Left
	case keymap.FocusRight, keymap.ResizeRight:
		return Right
	case keymap.FocusUp, keymap.ResizeUp:
		return Up
	}
	return Down
}

// lockedMessage begins what the status line says in locked mode.
const lockedMessage = "locked: every key goes to the pane; "

// endsTickmux reports whether closing n panes closes every pane there is, which ends a server
// (Options.EndWhenEmpty): the question says so.
func (a *App) endsTickmux(n int) bool { return a.endWhenEmpty && n >= len(a.panes) }

// confirmation is a yes/no question on the status line.
type confirmation struct {
	question string
	yes      func()
}

func (a *App) ask(q string, yes func()) {
	a.view.confirm = &confirmation{question: q, yes: yes}
}

func (a *App) answerConfirm(ev *tcell.EventKey) {
	c := a.view.confirm
	a.view.confirm = nil
	if ev.Key() == tcell.KeyRune && (ev.Rune() == 'y' || ev.Rune() == 'Y') {
		c.yes()
	}
	a.rebuild()
}
