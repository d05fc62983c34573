package views

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
)

// Several views on one App (a server's Mirror): the layout, the panes, the focus and zoom are
// shared, as between two clients of one tmux session; what a person is in the middle of typing
// is not. Each view has its own key state (prefix pending, card mode and the card it points at,
// scroll or locked mode, a yes/no question); App.view points at the state of the view a key or
// click came from last, so a prefix or card mode entered in one view never takes a key typed in
// another, and no key typed in one view ever answers a card opened in another. The screen shows
// the state of the view used last.

// viewState is one view's key state: App.view while its keys come, kept in viewSet.states for
// every view.
type viewState struct {
	mode    keymap.Mode
	cards   cardFocus
	confirm *confirmation
}

// viewSet tracks the views of a server's App.
type viewSet struct {
	cur    string                // the view whose key state is App.view, "" when none is
	states map[string]*viewState // every view's, the current one's too
	mu     sync.Mutex            // guards left and names
	left   []string              // views that detached since the last frame
	names  map[string]string     // view id → its number and terminal ("view 2 /dev/pts/5")
	// suspend suspends a view (prefix C-z): the server's, which releases the view's terminal
	// and has its process stop; nil in a single-process tickmux.
	suspend func(id string)
}

// OnSuspendView sets what suspends a view (prefix C-z), before Run.
func (a *App) OnSuspendView(f func(id string)) { a.views.suspend = f }

// suspendView suspends the current view, as tmux's prefix C-z does: the terminal goes back to
// the shell that started the view until it is brought to the foreground again.
func (a *App) suspendView() {
	if a.mirror == nil || a.views.cur == "" || a.views.suspend == nil {
		a.say("this tickmux has no view to suspend")
		return
	}
	id := a.views.cur
	go a.views.suspend(id) // owner: the server; returns once the view's process is told to stop
}

// NameView names view id, before it attaches, as the card, the log and the recent calls say
// which view answered: its number and terminal ("view 2 /dev/pts/5"). Any goroutine.
func (a *App) NameView(id, name string) {
	a.views.mu.Lock()
	if a.views.names == nil {
		a.views.names = map[string]string{}
	}
	a.views.names[id] = name
	a.views.mu.Unlock()
}

// viewName is the current view's name, "" when there is none or it has none. UI goroutine.
func (a *App) viewName() string {
	a.views.mu.Lock()
	defer a.views.mu.Unlock()
	return a.views.names[a.views.cur]
}

// enterView makes the view that sent ev current: App.view points at its key state. UI
// goroutine.
func (a *App) enterView(ev tcell.Event) {
	if a.mirror == nil {
		return
	}
	id := a.mirror.OriginOf(ev)
	if id == "" || id == a.views.cur {
		return
	}
	if a.views.states == nil {
		a.views.states = map[string]*viewState{}
	}
	st := a.views.states[id]
	if st == nil {
		st = &viewState{mode: keymap.ModeRoot}
		a.views.states[id] = st
	}
	if a.view.mode == keymap.ModeScroll && st.mode != keymap.ModeScroll {
		if p := a.focusedPane(); p != nil && p.term.Scrolling() {
			p.term.StopScroll() // the pane is shared: its scroll position belongs to the view that scrolled
		}
	}
	a.view = st
	if a.view.mode == keymap.ModeScroll {
		a.view.mode = keymap.ModeRoot
	}
	if a.view.mode == keymap.ModeCard {
		a.cardsChanged() // the cards may have been answered in another view meanwhile
	}
	a.views.cur = id
	a.panel.answerer = a.viewName()
	a.full = true
	a.rebuild()
}

// otherViewsCardsChanged does for the views other than the current one what cardsChanged does
// for the current one, when it happens: a view in card mode whose card went away (answered in
// another view, withdrawn, voided) starts its settle time now, and leaves card mode when no card
// is left, so its next key, seconds later, is not swallowed as one meant for a vanished card.
// UI goroutine.
func (a *App) otherViewsCardsChanged() {
	if len(a.views.states) == 0 {
		return
	}
	cards := a.pending()
	for _, st := range a.views.states {
		if st == a.view || st.mode != keymap.ModeCard {
			continue
		}
		f := &st.cards
		i := slices.IndexFunc(cards, func(c host.Card) bool { return c.ID == f.id })
		switch {
		case i >= 0:
			f.idx = i
		case len(cards) == 0:
			st.mode = keymap.ModeRoot
			f.settle = time.Now().Add(cardSettle)
		default:
			f.idx = min(f.idx, len(cards)-1)
			f.id = cards[f.idx].ID
			f.settle = time.Now().Add(cardSettle)
		}
	}
}

// viewsChanged is the Mirror's notice that a view attached or left, or is about to attach (id
// empty). Any goroutine.
func (a *App) viewsChanged(id string, attached bool) {
	if attached {
		a.redrawViews.Store(true)
	} else {
		a.views.mu.Lock()
		a.views.left = append(a.views.left, id)
		a.views.mu.Unlock()
		a.redrawAll.Store(true)
	}
	if attached && id == "" {
		a.drawNow.Store(true) // announced by Mirror.Expect: the view's first frame is this draw
	}
	a.requestDraw()
}

// forgetViews drops the key state of views that left; the current one's goes back to root mode.
// UI goroutine, at the start of a frame.
func (a *App) forgetViews() {
	a.views.mu.Lock()
	left := a.views.left
	a.views.left = nil
	a.views.mu.Unlock()
	if len(left) > 0 {
		a.routeChanged() // a view's state goes (lane.go)
	}
	for _, id := range left {
		delete(a.views.states, id)
		a.views.mu.Lock()
		delete(a.views.names, id)
		a.views.mu.Unlock()
		if id == a.views.cur {
			a.views.cur = ""
			a.panel.answerer = ""
			a.view = &viewState{mode: keymap.ModeRoot}
			if p := a.focusedPane(); p != nil && p.term.Scrolling() {
				p.term.StopScroll()
			}
			a.rebuild()
		}
	}
}

// detachView ends the current view (prefix d); every program goes on running.
func (a *App) detachView() {
	if a.mirror == nil || a.views.cur == "" {
		a.say("this tickmux has no server to detach from")
		return
	}
	id := a.views.cur
	go a.mirror.Detach(id, "detached") // owner: the Mirror; returns once the view is told to leave
}

// drawing reports whether a frame would reach anybody: a server with no view attached (or about
// to attach) draws nothing.
func (a *App) drawing() bool { return a.mirror == nil || a.mirror.Drawing() }

// OpenForView opens a program a person named when attaching (tickmux -- CMD on a running
// server) beside the focused pane. Any goroutine; it waits for the UI goroutine.
func (a *App) OpenForView(spec host.OpenSpec) error {
	var err error
	opened := false // post skips the update once the App is stopping
	a.post(func() {
		_, err = a.Open(spec)
		opened = true
	})
	if !opened {
		return errors.New("tickmux is stopping")
	}
	return err
}
