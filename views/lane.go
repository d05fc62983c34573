package views

import (
	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
)

// Typing lanes (server/viewterm's lane.go): printable ASCII a person types may go from the
// view's terminal straight to the focused pane's program, without crossing the UI goroutine,
// while a key typed now would go there as it is. The App opens a lane for one view, on the UI
// goroutine, after it has taken everything that view sent (laneFor); the lane closes as soon
// as anything else runs on the UI goroutine (route), but an output's frame or a Tick's new state
// (applyEvents). A read that finds the lane closed takes the usual way, key by key through
// captureKey.
//
// What a lane can never do: answer a card, a question or a prompt, or type while a prefix, a
// mode, an overlay or a card's settling would take the key. Each of those is entered by work
// on the UI goroutine, which closes the lane first, and laneFor opens none while one holds.

// Lane types a view's printable ASCII into a program; false when the lane has closed.
type Lane = interface {
	Type(b []byte) bool
}

// routeChanged closes every open lane: work on the UI goroutine may have changed where a typed
// key goes. UI goroutine, before that work.
func (a *App) routeChanged() { a.route.Add(1) }

// laneFor opens a lane for view id, or gives nil when a key the view types now would not go to
// the focused pane's program as it is. UI goroutine, after it took the view's events (a mark).
func (a *App) laneFor(id string) Lane {
	if a.views.cur != id || a.view.mode != keymap.ModeRoot || a.settling() || a.panel.focused ||
		a.view.confirm != nil || a.restoreAsk != nil || a.input != nil || a.paneNumbersShown() || a.prompt.open ||
		a.help.open || a.tree.open || !a.plainKeysFree() {
		return nil
	}
	p := a.focusedPane()
	if p == nil || p.inst.Status() == host.StatusEnded || !p.term.Live() || p.offer != nil {
		return nil
	}
	proc := p.inst.Process()
	if proc == nil {
		return nil
	}
	return &lane{a: a, p: p, proc: proc, route: a.route.Load()}
}

// plainKeysFree reports whether every printable ASCII key, typed alone, goes to the pane in
// root mode: none is the prefix or bound in the root table. UI goroutine.
func (a *App) plainKeysFree() bool {
	if a.plainFree == 0 {
		a.plainFree = 1
		for c := rune(0x20); c < 0x7f; c++ {
			k := keymap.FromEvent(tcell.NewEventKey(tcell.KeyRune, c, tcell.ModNone))
			if _, bound := a.keys.Lookup(keymap.ModeRoot, k); bound || k == a.keys.Prefix {
				a.plainFree = 2
				break
			}
		}
	}
	return a.plainFree == 1
}

// lane is an open lane to one pane's program.
type lane struct {
	a     *App
	p     *Pane
	proc  *host.Process
	route uint64 // a.route when opened
}

// Type sends b as toPane sends typed keys, unless the lane has closed. The view's reader
// goroutine.
func (l *lane) Type(b []byte) bool {
	if l.a.route.Load() != l.route {
		return false
	}
	if l.p.typed.Load() < maxTypedEchoes {
		l.p.typed.Add(1) // its echo is drawn at once (requestEcho), as a key's
	}
	_ = l.proc.Input(b) // full: dropped, as a key would be
	l.a.laned.Add(int64(len(b)))
	return true
}
