// Package views is tickmux's terminal UI: panes in split layouts, the agent side panel with its
// approval cards, the status bar, the command prompt and the help overlay.
//
//	host events ──▶ eventLoop ──QueueUpdateDraw──▶ UI goroutine (tview) ◀── keys, mouse, paste
//	approvals   ──▶    (coalescing mailbox)              │ applies changes, rebuilds the panel
//	vt output   ──▶ TerminalView ──requestDraw──▶ drawLoop (at most one draw per frame)
//	echo of a typed key ──requestEcho──▶ UI goroutine (drawn at once: keys first)
//	clock       ──▶ tickLoop (minute boundaries; each second only while a sparkline moves)
//	a view's keys ──▶ Mirror (counted until taken) ──▶ while one waits, every draw is left to the
//	                  draw after it (keysfirst.go)
//
// Only the UI goroutine touches widgets and the layout. Every other goroutine is started by App,
// selects on App.done and is waited for before the tview application stops.
package views

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/config"
	"tickmux/host"
	"tickmux/keymap"
	"tickmux/themes"
)

// Options set up an App.
type Options struct {
	Host      *host.Host
	Approvals *host.ApprovalQueue // the host's approver, answered here only
	Config    *config.Config
	// Screen is where to draw; nil means the real terminal. Tests pass a simulation screen.
	Screen tcell.Screen
	// Logf receives log lines; never the terminal.
	Logf func(format string, args ...any)
	// Now is the clock (tests fix it).
	Now func() time.Time
	// EndWhenEmpty stops the App when its last pane closes (a server: nothing is left to show).
	EndWhenEmpty bool
	// Stopping is told once, on the goroutine that stops the App, when it begins to stop (the
	// person quit, the last pane closed, Stop): a server's hook for its hard deadline.
	Stopping func()
	// Changed is told, on the UI goroutine, at every frame drawn: what the App shows may have
	// changed (a server's snapshots). It must not block.
	Changed func()
	// Remote is the cards of tickmux servers on other hosts (remote.Manager; nil: none). Its
	// changes reach the App through RemoteChanged.
	Remote RemoteQueue
}

// App is the running TUI.
type App struct {
	app      *tview.Application
	root     *rootView
	host     *host.Host
	queue    *host.ApprovalQueue
	cfg      *config.Config
	theme    *themes.Theme
	keys     *keymap.Keymap
	logf     func(format string, args ...any)
	now      func() time.Time
	stopping func() // Options.Stopping
	screen   *keptScreen
	endSaid  map[string]bool // panes whose end broke a rule and was said on the status bar

	// UI goroutine state.
	overlayWas bool // the last frame drew an overlay (over the bar or the panel)
	panes      map[string]*Pane
	// tab is the shown tab (tabs.go): its layout, focus and float, read and changed in place.
	tab *tab
	// view is the key state of the view whose key came last (clients.go): mode, card focus and
	// question; a single terminal has just one.
	view       *viewState
	panel      *SidePanel
	panelShown bool
	panelSet   bool // the person toggled the panel: auto no longer applies
	status     *StatusBar
	prompt     *promptView
	help       *helpView
	tree       *treeView // choose-tree (prefix w)
	drag       *Border
	// full asks the next frame to redraw everything; chrome, the panel, the status bar and the
	// pane frames. Without either a frame redraws only the panes whose programs drew: output and
	// typing cost one pane, and a flood of updates the chrome, never the whole screen.
	full   bool
	chrome bool
	// frameDue is set by the frames output asks for (drawLoop's, an echo's): only they redraw
	// panes whose programs drew.
	// tview also draws after every key; those draws leave output to the next paced frame, so a
	// burst of typed keys never repaints a flooding neighbour once per key.
	frameDue  bool
	later     atomic.Bool // a drawLater is pending
	lastSize  [2]int
	initErr   error
	message   string
	messageAt time.Time
	lastRates bool // the focused instance's sparkline had updates at the last tick
	kf        keysFirst
	rung      uint64 // the last card that rang the views (attention.go)

	// A server's views (clients.go): nil mirror when the App draws on one terminal.
	mirror    MultiView
	views     viewSet
	redrawAll atomic.Bool // a view left: the next frame draws everything, if only for no view
	// A view came, or is about to: the next frame draws the chrome and every pane whose program
	// drew meanwhile, none put off (viewFrame). The logical screen keeps the rest as drawn (the
	// frame after the last view left was drawn whole), and a new size redraws everything anyway.
	redrawViews  atomic.Bool
	viewFrame    bool
	drawNow      atomic.Bool // a view is about to attach: its first frame waits for no burst
	endWhenEmpty bool

	// Goroutines.
	sub      *host.Subscription
	approved chan struct{} // the approval queue changed
	drawReq  chan struct{}
	// echoQueued: a frame for a key's echo waits for the UI goroutine (keys first).
	echoQueued atomic.Bool
	// Typing lanes (lane.go): route counts the UI goroutine's work that may change where a key
	// goes; plainFree: 0 not known yet, 1 no printable key is bound in root mode, 2 one is.
	route     atomic.Uint64
	plainFree int
	laned     atomic.Int64 // bytes typed through lanes (the log's keys first line)
	echoes    atomic.Int64 // frames drawn at once for an echo (tests read it)
	echoDraw  bool         // the frame being drawn is an echo's: panes keep their titles (UI goroutine)
	tickReq   chan time.Time
	// titlesUntil: after Enter in a plain program's pane, the clock ticks each second until then,
	// so that a shell's title follows the command it started (which may draw nothing).
	titlesUntil time.Time
	done        chan struct{}
	stopped     chan struct{} // closed once Stop's goroutine has stopped tview
	stopOnce    sync.Once
	wg          sync.WaitGroup

	changed    func()                 // Options.Changed
	remote     remoteCards            // the other hosts' cards (remote.go)
	endedBy    atomic.Pointer[string] // why the App stopped by itself (EndedBy)
	restoreAsk *restoreAsk            // the restore's question, until answered (restore.go)

	handoff // when the UI loop stopped, and the screen's error (handoff.go)
	uiState // tabs, the float's place, the paste buffer (uistate.go)
}

// New builds the UI; Run shows it.
func New(opts Options) *App {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	a := &App{
		handoff:  handoff{uiStopped: make(chan struct{})},
		app:      tview.NewApplication(),
		host:     opts.Host,
		queue:    opts.Approvals,
		cfg:      cfg,
		theme:    cfg.Theme,
		keys:     cfg.Keymap,
		logf:     opts.Logf,
		now:      opts.Now,
		stopping: opts.Stopping,
		changed:  opts.Changed,
		remote:   remoteCards{q: opts.Remote},
		panes:    map[string]*Pane{},
		view:     &viewState{mode: keymap.ModeRoot},
		approved: make(chan struct{}, 1),
		drawReq:  make(chan struct{}, 1),
		tickReq:  make(chan time.Time, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	if a.logf == nil {
		a.logf = func(string, ...any) {}
	}
	if a.now == nil {
		a.now = time.Now
	}
	a.tab = &tab{}
	a.tabs = []*tab{a.tab}
	a.panel = NewSidePanel(a.theme, a.keys)
	a.status = NewStatusBar(a.theme, a.keys)
	a.root = &rootView{Box: tview.NewBox(), a: a}
	a.prompt = newPromptView(a)
	a.help = newHelpView(a)
	a.tree = newTreeView(a)
	a.app.SetRoot(a.root, true)
	a.app.SetInputCapture(a.captureKey)
	a.app.SetMouseCapture(func(ev *tcell.EventMouse, act tview.MouseAction) (*tcell.EventMouse, tview.MouseAction) {
		a.routeChanged() // a click may focus another pane, a wheel scroll it (lane.go)
		a.enterView(ev)
		return ev, act
	})
	a.endWhenEmpty = opts.EndWhenEmpty
	if m, ok := opts.Screen.(MultiView); ok {
		a.mirror = m
		m.OnViews(a.viewsChanged)
		m.OnPaste(a.choosePaste)
		m.OnLane(a.laneFor)
	}
	screen, err := newScreen(opts.Screen)
	if err != nil {
		a.initErr = fmt.Errorf("cannot open the terminal: %w", err)
	} else {
		a.screen = screen
		screen.onError = a.failed
		screen.hold = a.keysWaiting
		a.app.SetScreen(screen) // initializes it
	}
	// After SetScreen: tview passes these to a screen it already has, and to one it makes in
	// Run, but not to one set before Run (the terminal never got mouse or bracketed paste).
	a.app.EnableMouse(true)
	a.app.EnablePaste(true)
	a.sub = a.host.Subscribe()
	return a
}

// ApprovalsChanged is the approval queue's notify function: it wakes the UI. Any goroutine.
func (a *App) ApprovalsChanged() {
	select {
	case a.approved <- struct{}{}:
	default:
	}
}

// Run shows the UI until Stop, or the person quits.
func (a *App) Run() error {
	if a.initErr != nil {
		return a.initErr
	}
	a.wg.Add(3)
	go a.eventLoop() // owner: a; exits when done closes
	go a.drawLoop()  // owner: a; exits when done closes
	go a.tickLoop()  // owner: a; exits when done closes
	err := a.app.Run()
	close(a.uiStopped)
	a.Stop()
	<-a.stopped
	a.logKeysFirst()
	for _, p := range a.panes {
		p.term.Close()
	}
	a.sub.Close()
	return a.runError(err)
}

// Stop ends the UI from any goroutine: the App's goroutines are told to stop and waited for
// (they may need the UI loop to finish a queued update), then tview stops and Run returns.
func (a *App) Stop() {
	a.stopOnce.Do(func() {
		if a.stopping != nil {
			a.stopping()
		}
		close(a.done)
		go func() { // owner: Stop; Run waits for it
			defer close(a.stopped)
			a.wg.Wait()
			a.closePosts() // what was handed over runs before tview stops; nothing more is taken
			a.app.Stop()
		}()
	})
}

// requestDraw asks for a redraw; requests made during a frame become one draw. Any goroutine.
func (a *App) requestDraw() {
	select {
	case a.drawReq <- struct{}{}:
	default:
	}
}

// requestEcho draws at once: a program drew after a key was typed into it, so its output is
// most likely the key's echo, which waits for neither the burst nor the frame pacing. The frame
// is handed from here (the PTY reader's goroutine) straight to the UI goroutine, not through
// the draw loop: a hand-off less on the echo's path (each wakes a thread, 10-20 µs). One such
// frame waits at a time, and draws whatever output came meanwhile. One typed key allows one
// such draw; output without a key in front is paced as usual. Any goroutine.
func (a *App) requestEcho() {
	if !a.drawing() {
		a.requestDraw() // nobody to draw for: the draw loop keeps the panes dirty
		return
	}
	if !a.echoQueued.CompareAndSwap(false, true) {
		return // the frame waiting draws this output too
	}
	if _, ok := a.handOver(a.echoFrame, false, true); !ok {
		a.echoQueued.Store(false) // stopping
	}
}

// echoFrame draws the frame for an echo, set up as the draw loop sets up its frames, with the
// panes' titles as they were; once it is out, the titles are read again. UI goroutine.
func (a *App) echoFrame() {
	// Cleared before the frame draws: output after this point asks for a frame of its own.
	a.echoQueued.Store(false)
	a.frameSetup()
	a.echoDraw = true
	a.app.ForceDraw() // tview allows it in a queued update
	a.echoDraw = false
	a.echoes.Add(1)
	a.checkTitles()
}

// checkTitles reads again the titles that the last frames drew as they were (an echo's): a pane
// whose title changed is drawn again by the next frame. UI goroutine.
func (a *App) checkTitles() {
	changed := false
	for _, p := range a.panes {
		if !p.titleKept {
			continue
		}
		p.titleKept = false
		if t := programTitle(p.inst); t != p.title {
			p.title, p.retitled = t, true
			p.dirty.Store(true) // its frame is drawn again, with the title read then
			changed = true
		}
	}
	if changed {
		a.requestDraw()
	}
}

// frameSetup readies the UI for a frame asked for by output (the draw loop's, or an echo's).
// UI goroutine.
func (a *App) frameSetup() {
	a.forgetViews()
	if a.redrawAll.Swap(false) {
		a.full = true
	}
	if a.redrawViews.Swap(false) {
		a.chrome, a.viewFrame = true, true
	}
	a.frameDue = true
}

// frame is the shortest time between two draws caused by output (120 per second; panes without
// the focus are drawn at most every background).
const frame = 8 * time.Millisecond

// eventFrame is the shortest time between two applications of host events; after a batch of
// nothing but new states (a flood of updates) it is background instead, so a flood rebuilds the
// panel and the status bar at most 20 times a second.
const eventFrame = 16 * time.Millisecond

// background is the shortest time between two draws of a pane without the focus.
const background = 50 * time.Millisecond

// drawLater asks for a frame after d; one is pending at a time. UI goroutine.
func (a *App) drawLater(d time.Duration) {
	if !a.later.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(d, func() { // runs once on the timer's goroutine; it only posts, never blocks
		a.later.Store(false)
		a.requestDraw()
	})
}

// burst is how long a draw waits for more output after the first: a line printed in pieces, or
// keys echoed one by one, land in one frame instead of two 16 ms apart.
const burst = 3 * time.Millisecond

// pause is how long a draw asked for now waits to gather more output: nothing for a view's
// first frame (its attach waits for it, and there is no output to gather); else the burst, and
// at least a frame since the last draw.
func (a *App) pause(last time.Time) time.Duration {
	if a.drawNow.Swap(false) {
		return 0
	}
	wait := burst
	if since := time.Since(last); !last.IsZero() && since+wait < frame {
		wait = frame - since
	}
	return wait
}

func (a *App) drawLoop() {
	defer a.wg.Done()
	var last time.Time
	for {
		select {
		case <-a.done:
			return
		case <-a.drawReq:
		}
		if wait := a.pause(last); wait > 0 && !a.rest(wait) {
			return
		}
		if !a.drawing() {
			// Nobody to draw for: panes stay dirty until a view attaches. The frame after the
			// last view left is drawn all the same, whole (that view's key state, scroll and
			// overlays went with it), so that the next attach draws only what changed meanwhile.
			left := a.redrawAll.Swap(false)
			if !a.postThen(func() {
				a.forgetViews()
				a.full = a.full || left
			}, left) {
				return
			}
			continue
		}
		if !a.postFrame(a.frameSetup) {
			return
		}
		last = time.Now()
	}
}

// rest waits d, or less if the App stops; it reports whether the App still runs.
func (a *App) rest(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.done:
		return false
	case <-t.C:
		return true
	}
}

// eventLoop carries host events and approval changes to the UI goroutine. Events wait in the
// subscription's mailbox while the UI is busy, so a flood of updates costs one rebuild a frame.
func (a *App) eventLoop() {
	defer a.wg.Done()
	for {
		var evs []host.Event
		cards := false
		select {
		case <-a.done:
			return
		case <-a.sub.C():
			evs = a.sub.Drain()
		case <-a.approved:
			cards = true
		}
		if !a.applyEvents(evs, cards) {
			return
		}
		// Nothing but new states (a flood of updates): the status bar's counts and the panel
		// move at most at the rate of a pane without the focus. Anything else keeps the pace.
		pause := eventFrame
		if !cards && onlyStates(evs) {
			pause = background
		}
		if !a.rest(pause) {
			return
		}
	}
}

// applyEvents applies host events and approval changes on the UI goroutine, and waits. New
// states alone (a Tick's update or read) change what the panel and the status bar show, never
// where a key goes: they leave the typing lanes open (lane.go), so that a flood of
// updates does not send every key the long way. Anything else may move a key's target (a pane
// added or ended, a card, an agent's prompt) and closes them. False once the App is stopping.
func (a *App) applyEvents(evs []host.Event, cards bool) bool {
	return a.postWait(func() { a.apply(evs, cards) }, a.drawing(), !cards && onlyStates(evs))
}

// onlyStates reports whether every event is a new state.
func onlyStates(evs []host.Event) bool {
	for _, e := range evs {
		if e.Kind != host.EventState {
			return false
		}
	}
	return true
}

// tickLoop wakes the UI for the clock (each minute) and, while the focused instance's sparkline
// has something to show, each second. Idle, it sleeps until the next minute.
func (a *App) tickLoop() {
	defer a.wg.Done()
	next := nextMinute(time.Now())
	for {
		t := time.NewTimer(time.Until(next))
		select {
		case <-a.done:
			t.Stop()
			return
		case n := <-a.tickReq:
			t.Stop()
			if n.Before(next) {
				next = n
			}
			continue
		case <-t.C:
		}
		var want time.Time
		if !a.post(func() { want = a.onTick() }) {
			return
		}
		next = nextMinute(time.Now())
		if !want.IsZero() && want.Before(next) {
			next = want
		}
	}
}

func nextMinute(t time.Time) time.Time { return t.Truncate(time.Minute).Add(time.Minute) }

// wakeTick asks tickLoop for a tick at t at the latest. UI goroutine (the only sender): a request
// still waiting is replaced by the earlier of the two, never dropped.
func (a *App) wakeTick(t time.Time) {
	for {
		select {
		case a.tickReq <- t:
			return
		default:
		}
		select {
		case old := <-a.tickReq:
			if old.Before(t) {
				t = old
			}
		default:
		}
	}
}

// onTick refreshes what time moves: the clock, the sparkline, a message's age. It returns when
// it needs the next tick before the next minute (zero: the minute's will do): each second while
// a sparkline moves or titles may change, and when the status line's message expires. Worked
// out here at each tick, so a tick asked for in between (a key's) never loses the message's.
func (a *App) onTick() time.Time {
	a.rebuild()
	var next time.Time
	if a.lastRates || a.now().Before(a.titlesUntil) {
		next = time.Now().Truncate(time.Second).Add(time.Second)
	}
	if left := a.messageAt.Add(messageLife).Sub(a.now()); a.message != "" && left > 0 {
		if at := time.Now().Add(left); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// apply runs on the UI goroutine with the events that arrived since the last apply.
func (a *App) apply(evs []host.Event, cards bool) {
	for _, e := range evs {
		switch e.Kind {
		case host.EventAdded:
			if _, ok := a.panes[e.ID]; !ok {
				if in := a.host.Get(e.ID); in != nil {
					a.addPane(in, a.tab.focus, a.autoAxis())
				}
			}
		case host.EventRemoved:
			a.dropPane(e.ID)
		case host.EventStatus:
			a.full = true // an ended pane says why over its content
			if in := a.host.Get(e.ID); in != nil && in.Status() == host.StatusEnded {
				if _, shown := a.panes[e.ID]; shown && !a.cfg.RemainOnExit && closesOnExit(in) {
					a.closePane(e.ID) // shellexit.go: `exit` in a shell closes its pane
					continue
				}
				// Said once: the host posts a second status event when the exit status is known,
				// and has logged the end itself.
				if info := in.EndInfo(); info != nil && info.Rule != "" && !a.endSaid[e.ID] {
					if a.endSaid == nil {
						a.endSaid = map[string]bool{}
					}
					a.endSaid[e.ID] = true
					a.show(fmt.Sprintf("%s ended: %s", e.ID, info.Reason))
				}
			}
		}
	}
	if cards {
		a.cardsChanged()
	}
	a.rebuild()
}

// rebuild recomputes what depends on the host: the panel, the status bar, the pane badges.
func (a *App) rebuild() {
	a.chrome = true
	cards := a.pending()
	alerts := map[string]bool{}
	for _, c := range cards {
		if c.Req.Host == "" { // another host's hosted:1 is not this one's
			alerts[c.Req.Instance] = true
		}
	}
	agents, agentsLive := a.agentStates()
	for id, p := range a.panes {
		p.alert = alerts[id]
		p.agent = agents[id]
		p.focused = id == a.tab.focus && a.view.mode != keymap.ModeCard && !a.panel.focused
	}
	cardFocus := -1
	if a.view.mode == keymap.ModeCard && len(cards) > 0 {
		cardFocus = a.focusCard(cards)
	}
	var focused *host.Instance
	if p := a.panes[a.tab.focus]; p != nil {
		focused = p.inst
	}
	if cardFocus >= 0 && cards[cardFocus].Req.Host == "" {
		if in := a.host.Get(cards[cardFocus].Req.Instance); in != nil {
			focused = in // show the state and catalog of what the card is about
		}
	}
	if w, h := a.screenSize(); a.panelVisible(w) {
		// Where the frame will draw it: a panel shown just now (card mode at 80 columns) had
		// tview's default size, and its card was laid out 13 columns wide.
		pw := panelWidth(w)
		a.panel.SetRect(w-pw, 0, pw, h-1)
	}
	_, _, pw, _ := a.panel.GetInnerRect()
	var grants []host.Grant
	if a.queue != nil {
		grants = a.queue.Grants()
	}
	var unreachable map[uint64]bool
	for _, c := range cards {
		if !a.cardReachable(c.ID) {
			if unreachable == nil {
				unreachable = map[uint64]bool{}
			}
			unreachable[c.ID] = true
		}
	}
	a.panel.Rebuild(panelInput{inst: focused, cards: cards, grants: grants, unreachable: unreachable, cardFocus: cardFocus, settling: a.settling(), width: pw - 2, now: a.now(),
		journalWarning: a.host.JournalWarning(), lastChange: a.host.LastChange, all: a.overviewInstances(focused), agents: a.host.Agents().All(),
		chooseKeys: prefixKeys(a.keys, keymap.ChooseTree)})
	if cardFocus >= 0 {
		a.panel.ShowFocusedCard()
	}
	// The cards say how long they have waited, and the sparkline moves: tick each second while
	// either has something to show.
	a.lastRates = len(cards) > 0 || agentsLive // an agent's state says for how long
	if a.lastRates {
		a.wakeTick(time.Now().Truncate(time.Second).Add(time.Second))
	}
	if focused != nil && !a.lastRates {
		for _, r := range focused.UpdateRate(60) {
			if r > 0 {
				a.lastRates = true
				a.wakeTick(time.Now().Truncate(time.Second).Add(time.Second))
				break
			}
		}
	}

	a.status.mode = a.view.mode
	a.status.pending = len(cards)
	a.status.now = a.now()
	a.status.items = a.status.items[:0]
	for _, in := range a.host.Instances() {
		if !a.inShownTab(in.ID()) {
			continue // as tmux's status line, the bar lists the shown tab's panes; the tabs have their list
		}
		a.status.items = append(a.status.items, statusItem{
			id: in.ID(), title: a.paneTitle(in), updates: in.State().Updates, status: in.Status(),
			focused: in.ID() == a.tab.focus, alert: alerts[in.ID()], agent: agentShort(agents[in.ID()]), zoomed: a.tab.layout.Zoomed() == in.ID(),
		})
	}
	a.status.tabs = a.tabItems()
	a.status.message = nil
	if a.message != "" && a.now().Sub(a.messageAt) < messageLife {
		a.status.message = line{untrusted(a.message, a.theme.StatusBar.Bold(true))}
	} else if hs := a.hostStates(); len(hs) > 0 {
		a.status.message = line{untrusted(strings.Join(hs, "; "), a.theme.StatusBar.Bold(true))}
	}
}

// inShownTab reports whether pane id is in the shown tab (its layout or its float).
func (a *App) inShownTab(id string) bool {
	return id == a.tab.floatID || slices.Contains(a.tab.layout.IDs(), id)
}

// retitleStatus gives the status bar the titles the panes' frames read anew (bash, then vim),
// which it kept until the next rebuild otherwise. It reports whether any changed. UI goroutine.
func (a *App) retitleStatus() bool {
	changed := false
	for id, p := range a.panes {
		if !p.retitled {
			continue
		}
		p.retitled = false
		for i := range a.status.items {
			if it := &a.status.items[i]; it.id == id {
				if t := a.paneTitle(p.inst); t != it.title {
					it.title, changed = t, true
				}
			}
		}
	}
	return changed
}

// agentStates says, per pane, which agent session runs in it and what it does, as its hooks told
// tickmux: "Claude Code working 12s". live: a state that is not ended is shown (its time moves).
func (a *App) agentStates() (states map[string]string, live bool) {
	latest := map[string]host.AgentSession{} // by pane: the session that changed last
	for _, s := range a.host.Agents().All() {
		if cur, ok := latest[s.Pane]; s.Pane != "" && (!ok || s.Since.After(cur.Since)) {
			latest[s.Pane] = s
		}
	}
	if len(latest) == 0 {
		return nil, false
	}
	now := a.now()
	states = make(map[string]string, len(latest))
	for pane, s := range latest {
		states[pane] = capText(s.Agent, 40) + " " + string(s.State)
		if s.State != host.AgentEnded { // an ended one's time would not move (no ticks for it)
			states[pane] += " " + sinceText(now.Sub(s.Since))
			live = true
		}
	}
	return states, live
}

// agentShort is the status bar's part of an agent's state: the state and its time, without the
// agent's name ("working 12s"); an ended session says "agent ended", not to be read as the pane's end.
func agentShort(s string) string {
	for _, name := range []string{"Claude Code ", "Codex "} {
		if rest, ok := strings.CutPrefix(s, name); ok {
			if rest == string(host.AgentEnded) {
				return "agent ended"
			}
			return rest
		}
	}
	return s
}

// sinceText says a time since coarsely: 12s, 5m, 2h.
func sinceText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh", int(d/time.Hour))
}

// say shows a message on the status bar for a few seconds, and logs it.
func (a *App) say(msg string) {
	a.show(msg)
	a.logf("%s", msg)
}

// messageLife is how long the status line shows a message.
const messageLife = 10 * time.Second

// show is say without the log, for what the host has logged already.
func (a *App) show(msg string) {
	a.message, a.messageAt = msg, a.now()
	a.wakeTick(time.Now().Add(messageLife))
}

// cardsChanged keeps card mode consistent when cards come and go.
func (a *App) cardsChanged() {
	a.attend()
	a.otherViewsCardsChanged()
	if a.view.mode != keymap.ModeCard {
		return
	}
	if len(a.pending()) == 0 {
		a.cardsGone()
	}
}

// Open launches an instance and shows it in a new pane next to the focused one.
func (a *App) Open(spec host.OpenSpec) (*host.Instance, error) {
	return a.OpenBeside(spec, a.tab.focus, a.autoAxis())
}

// OpenBeside launches an instance and splits target to show it. Call it before Run or on the UI
// goroutine.
func (a *App) OpenBeside(spec host.OpenSpec, target string, axis Axis) (*host.Instance, error) {
	if spec.Cols == 0 {
		spec.Cols, spec.Rows = a.guessSize(target, axis)
	}
	in, err := a.host.Open(spec)
	if err != nil {
		return nil, err
	}
	a.addPane(in, target, axis)
	return in, nil
}

// guessSize is the size the new pane will have, so the program starts at its real size.
func (a *App) guessSize(target string, axis Axis) (int, int) {
	r, ok := a.paneRects()[target]
	if !ok {
		w, h := a.screenSize()
		return max(20, a.workspaceRect(w, h).W-2), max(5, a.workspaceRect(w, h).H-2)
	}
	if axis == SideBySide {
		return max(10, r.W/2-2), max(3, r.H-2)
	}
	return max(10, r.W-2), max(3, r.H/2-2)
}

func (a *App) addPane(in *host.Instance, target string, axis Axis) {
	a.makePane(in)
	a.tab.layout.Add(target, in.ID(), axis)
	a.full = true
	a.moveFocus(in.ID())
	a.rebuild()
}

// dropPane takes a pane out of the UI (its instance is already ended or being ended).
func (a *App) dropPane(id string) {
	p, ok := a.panes[id]
	if !ok {
		return
	}
	delete(a.endSaid, id)
	p.term.Close()
	delete(a.panes, id)
	a.tabForget(id)
	a.full = true
	if a.tab.floatID == id {
		a.tab.floatID, a.tab.floatShown = "", false
	}
	var next string
	if a.tab.focus == id {
		rects := a.paneRects()
		for _, d := range []Direction{Left, Up, Right, Down} {
			if n := a.tab.layout.Neighbor(id, d, rects); n != "" {
				next = n
				break
			}
		}
	}
	a.tab.layout.Remove(id)
	if a.endWhenEmpty && len(a.panes) == 0 {
		a.endedBy.CompareAndSwap(nil, &endLastPane)
		a.Stop() // the last pane closed: a server has nothing left to show
	}
	if a.tab.focus == id {
		if next == "" {
			if ids := a.tab.layout.IDs(); len(ids) > 0 {
				next = ids[len(ids)-1]
			}
		}
		a.tab.focus = "" // the old pane is gone: nobody to tell
		a.moveFocus(next)
	}
	a.closeEmptyTab()
}

// closePane ends a pane's program (in the background: a stubborn one takes 2 s) and removes it.
func (a *App) closePane(id string) {
	a.dropPane(id)
	go func() { // owner: the host; Remove returns once the process group has been ended
		_ = a.host.Remove(id)
	}()
	a.rebuild()
}

// autoAxis splits the focused pane across its longer side.
func (a *App) autoAxis() Axis {
	if r, ok := a.paneRects()[a.tab.focus]; ok && r.H*2 > r.W {
		return Stacked
	}
	return SideBySide
}

// screenSize is the size the layout was last drawn at; before the first frame, the screen's,
// which that frame takes. Until tview lays the root out, the root's rect is tview's default
// 15x10: a program opened before Run (a server's first shell) started at 20x7 and the first
// frame resized it a few milliseconds later, while it was starting. bash can miss that
// SIGWINCH, and then edits its line for 20 columns: C-u moved the cursor up instead of erasing
// the typed text, which stayed on screen.
func (a *App) screenSize() (int, int) {
	if a.lastSize == ([2]int{}) && a.screen != nil {
		if w, h := a.screen.Size(); w > 0 && h > 0 {
			return w, h
		}
	}
	_, _, w, h := a.root.GetRect()
	if w == 0 {
		return 120, 40
	}
	return w, h
}

// panelVisible applies the config's side-panel rule: on at 100 columns or more unless toggled.
func (a *App) panelVisible(w int) bool {
	if a.panelSet {
		return a.panelShown
	}
	switch a.cfg.SidePanel {
	case config.PanelOn:
		return true
	case config.PanelOff:
		return false
	}
	return w >= 100
}

// workspaceRect is where panes go: the screen minus the status bar and the panel.
func (a *App) workspaceRect(w, h int) Rect {
	r := Rect{0, 0, w, max(0, h-1)}
	if a.panelVisible(w) {
		r.W -= panelWidth(w)
	}
	return r
}

func panelWidth(w int) int { return max(34, min(64, w*2/5)) }

func (a *App) paneRects() map[string]Rect {
	w, h := a.screenSize()
	return a.tab.layout.Arrange(a.workspaceRect(w, h))
}

func (a *App) floatRect(w, h int) Rect {
	ws := a.workspaceRect(w, h)
	fw, fh := max(20, ws.W*4/5), max(6, ws.H*4/5)
	return Rect{ws.X + (ws.W-fw)/2, ws.Y + (ws.H-fh)/2, min(fw, ws.W), min(fh, ws.H)}
}

// focusedPane is the pane taking keys, nil when there is none.
func (a *App) focusedPane() *Pane { return a.panes[a.tab.focus] }

// Focus gives pane id the focus. Call it before Run or on the UI goroutine.
func (a *App) Focus(id string) {
	a.setFocus(id)
	a.rebuild()
}

// setFocus moves the focus to pane id.
func (a *App) setFocus(id string) {
	if _, ok := a.panes[id]; ok {
		a.showTabOf(id)
		a.moveFocus(id)
		a.panel.focused = false
	}
}

// moveFocus is the one place the focused pane changes: programs that asked for focus events
// (DEC 1004) learn that they lost or gained it.
func (a *App) moveFocus(id string) {
	if id == a.tab.focus {
		return
	}
	if old := a.panes[a.tab.focus]; old != nil {
		old.term.FocusChanged(false)
		a.lastPane = a.tab.focus
	}
	a.tab.focus = id
	if p := a.panes[id]; p != nil {
		p.term.FocusChanged(true)
	}
}

// splitShell opens a shell beside the focused pane, in its working directory.
func (a *App) splitShell(axis Axis) { a.splitShellWith(host.OpenSpec{}, axis) }

// splitShellWith is splitShell with spec's Sandbox (prefix S). What cannot start, a sandbox
// bwrap cannot make included, is said on the status line and opens nothing.
func (a *App) splitShellWith(spec host.OpenSpec, axis Axis) {
	if p := a.focusedPane(); p != nil {
		spec.Dir = p.inst.Process().ForegroundCwd() // a split opens where the person is, as in tmux
	}
	spec.Shell = true
	if _, err := a.OpenBeside(spec, a.tab.focus, axis); err != nil {
		a.say(err.Error())
	}
}
