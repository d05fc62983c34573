// Package mirror is the screen a server's App draws on while views come and go: one logical
// screen copied onto every attached view's terminal (viewterm.Terminal), and every view's keys,
// mouse and pastes fed to the App tagged with the view. The App sees it through views.MultiView.
package mirror

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gdamore/tcell/v2"
)

// Mirror is the screen a server's App draws on when views come and go: an in-memory screen
// whose size is the size of the view used last (tmux's "latest" policy), copied after every
// frame onto each attached view's terminal (a ViewScreen: viewterm.Terminal, a terminal the
// server draws on directly).
//
//	App (UI goroutine) ──Show──▶ logical cells ──changed cells──▶ view A's copier ──▶ A's terminal
//	                                                       └──────▶ view B's copier ──▶ B's terminal
//	A's terminal ──▶ A's reader ──tagged events──┐
//	B's terminal ──▶ B's reader ──tagged events──┴──▶ the logical screen's event queue ──▶ App
//
// A view's pending work is a set of changed cell positions, never a queue of bytes: a view whose
// terminal stops reading falls behind by at most one screen, is redrawn whole when it catches
// up, and is dropped when a write to it stalls (its Tty's write deadline). Nothing a view does
// blocks the App, the other views or any pane. A small frame (a key's echo) the App's goroutine
// writes itself when the copier is idle and the terminal takes it at once (showNow).
type Mirror struct {
	sim          tcell.SimulationScreen // its event queue only: it holds no cells (sized 0x0)
	initW, initH int                    // the size before any view attaches

	// What the App draws (cells.go): any goroutine may size it, the App draws on it.
	dmu    sync.Mutex // before mu
	drawn  []mcell
	dw, dh int
	tab    cellTables // appended under dmu and mu; see cells.go

	mu     sync.Mutex
	views  map[string]*mirrorView
	order  []string // attach order, for naming
	latest string   // the view used last; the logical size is its size
	cells  []mcell  // the frame shown last, what the copiers read
	w, h   int
	// The rows drawn on since the last Show (UI goroutine only; allRows: every row).
	rows    []bool
	allRows bool
	cursorX int
	cursorY int
	// showX, showY: where the App put the cursor, -1 when hidden (UI goroutine; Show takes it).
	showX, showY int
	cursor       bool
	curSt        tcell.CursorStyle
	mouse        []tcell.MouseFlags
	mouseOn      bool
	pasteOn      bool
	focusOn      bool
	onViews      func(id string, attached bool) // a view came or went (any goroutine)
	// expected counts the views announced by Expect and not attached (or given up) yet; fresh:
	// a frame was shown since the last Expect.
	expected int
	fresh    bool

	origins map[tcell.Event]string // which view sent an event still in the queue
	originQ []tcell.Event          // the same events, oldest first (bounds the map)
	// Keys posted one by one (a paste's are not) that the App has not taken yet (KeyTaken):
	// while one waits, the App leaves its draws to the draw after the last (keys first).
	keysIn map[tcell.Event]struct{}
	// Frames copied to the views while a key waited (UI goroutine; the App reports it).
	shownWaiting int
	postMu       sync.Mutex // one view's events are posted in one piece, never interleaved
	// Keys posted as a paste's marks, and what the App runs for each (paste.go); pasteTo is the
	// App's choice of where a paste starting now goes.
	marks    map[*tcell.EventKey]func()
	laneFor  func(id string) Lane // the App's (lane.go)
	pasteTo  func(post func(func())) PasteSink
	finished bool
	wg       sync.WaitGroup // every view's goroutines
}

// ReasonExited is why every view leaves when the server ends (Fini).
const ReasonExited = "tickmux exited"

// alerter is a view's screen that can write a sequence to its terminal with the next frame
// (viewterm.Terminal).
type alerter interface {
	Alert(seq []byte)
}

// maxOrigins bounds the events remembered for OriginOf: tview's queue holds 100.
const maxOrigins = 512

var _ tcell.Screen = (*Mirror)(nil)

// ViewScreen is a view's terminal as the Mirror draws on it and reads from it. In a server it is
// a viewterm.Terminal; tests use tcell screens through an adapter. One goroutine at a time
// draws (PutCell, Clear, the cursor, Show, Sync, Fini): the Mirror's copier for the view, or the
// App's for a small frame on a screen that can show it without waiting (nowShower); the
// modes and the clipboard are set from any goroutine, and must not block (they may wait for the
// next frame: the Mirror asks for one).
type ViewScreen interface {
	Size() (w, h int)
	// PutCell draws text, one grapheme width columns wide, at column x, row y.
	PutCell(x, y int, text string, st tcell.Style, width int)
	Clear()
	ShowCursor(x, y int)
	HideCursor()
	SetCursorStyle(cs tcell.CursorStyle, cc ...tcell.Color)
	Show()
	Sync()
	EnableMouse(flags ...tcell.MouseFlags)
	DisableMouse()
	EnablePaste()
	DisablePaste()
	EnableFocus()
	DisableFocus()
	SetClipboard(data []byte)
	PollEvent() tcell.Event
	Tty() (tcell.Tty, bool)
	Fini()
}

// New makes the logical screen, 80x24 until a view attaches.
func New() *Mirror { return NewSized(0, 0) }

// NewSized makes the logical screen, w x h until a view attaches (80x24 when not
// positive, at most MaxViewCols x MaxViewRows): a server started for a terminal sizes it as
// that terminal, so that the App has drawn the first view's frame, at its size, by the time the
// view attaches.
func NewSized(w, h int) *Mirror {
	m := &Mirror{views: map[string]*mirrorView{}, origins: map[tcell.Event]string{}, keysIn: map[tcell.Event]struct{}{}, marks: map[*tcell.EventKey]func(){}, showX: -1, showY: -1}
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	m.initW, m.initH = clampViewSize(w, h)
	m.sim = tcell.NewSimulationScreen("UTF-8")
	m.tab.styles = []tcell.Style{tcell.StyleDefault}
	m.tab.textLimit, m.tab.styleLimit = minTableLimit, minTableLimit
	return m
}

// Init initializes the logical screen (tview calls it from SetScreen).
func (m *Mirror) Init() error {
	if err := m.sim.Init(); err != nil {
		return err
	}
	m.sim.SetSize(0, 0) // the Mirror keeps the cells
	m.setSize(m.initW, m.initH)
	return nil
}

// setSize sizes the logical screen: its cells. Any goroutine.
func (m *Mirror) setSize(w, h int) {
	m.dmu.Lock()
	m.resizeDrawn(w, h)
	m.dmu.Unlock()
}

// OnViews sets a function told of every view that attaches or leaves.
func (m *Mirror) OnViews(f func(id string, attached bool)) {
	m.mu.Lock()
	m.onViews = f
	m.mu.Unlock()
}

// Views is the number of attached views.
func (m *Mirror) Views() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.views)
}

// Drawing reports whether a frame reaches anybody: a view is attached, or expected.
func (m *Mirror) Drawing() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.views) > 0 || m.expected > 0
}

// Expect announces a view about to attach, while its terminal is being set up: the App draws
// everything for it now (a server with no view draws nothing), and a view that attaches at the
// logical screen's size after that frame is shown gets it as its first frame at once. done is
// to be called once the view attached, or will not. Any goroutine.
func (m *Mirror) Expect() (done func()) {
	m.mu.Lock()
	m.expected++
	m.fresh = false
	notify := m.onViews
	m.mu.Unlock()
	if notify != nil {
		notify("", true) // the App redraws everything
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			m.expected--
			m.mu.Unlock()
		})
	}
}

// Attach adds a view drawing on sc, which must be initialized. The view becomes the latest:
// the logical screen takes its size. gone runs once, on the view's own goroutine, after its
// screen has been finalized (the terminal is restored), with the reason it left.
func (m *Mirror) Attach(id string, sc ViewScreen, gone func(reason string)) error {
	v := &mirrorView{m: m, id: id, sc: sc, gone: gone, wake: make(chan struct{}, 1), quit: make(chan struct{}), whole: true}
	w, h := clampViewSize(sc.Size())
	lw, lh := m.Size()
	m.mu.Lock()
	// Expected, and the App has drawn for it at its size: the cells are its first frame.
	v.shown = m.expected > 0 && m.fresh && w == lw && h == lh
	if m.finished {
		m.mu.Unlock()
		return fmt.Errorf("tickmux is stopping")
	}
	if _, dup := m.views[id]; dup {
		m.mu.Unlock()
		return fmt.Errorf("view %s is already attached", id)
	}
	m.views[id] = v
	m.order = append(m.order, id)
	shown := v.shown
	mouseOn, mouse, pasteOn, focusOn := m.mouseOn, m.mouse, m.pasteOn, m.focusOn
	notify := m.onViews
	m.wg.Add(2)
	m.mu.Unlock()
	m.startLanes(sc)
	if mouseOn {
		sc.EnableMouse(mouse...)
	}
	if pasteOn {
		sc.EnablePaste()
	}
	if focusOn {
		sc.EnableFocus()
	}
	if shown {
		// Its first frame is drawn (Expect): it goes out from here, now, not once the copier's
		// goroutine is woken (0.5-1.3 ms later in an attach traced on a busy 2-core VM).
		v.drawMu.Lock()
		v.frame(false)
		v.drawMu.Unlock()
	}
	go v.copyLoop() // owner: the Mirror; exits when v.quit closes (Detach, Fini, a broken terminal)
	go v.readLoop() // owner: the Mirror; exits when v's screen is finalized (PollEvent returns nil)
	// use pokes every view when the size stays; when it changes, the App's redraw at the new
	// size does. A poke here would draw the old frame, at the old size, first.
	m.use(id)
	// A view whose first frame is drawn (Expect) asks for no other: that draw would only
	// compete with the copy of the first frame.
	if notify != nil && !shown {
		notify(id, true)
	}
	return nil
}

// Detach finalizes view id's screen (restoring its terminal) and drops it; gone is told reason.
// Any goroutine; it does not wait for the terminal.
func (m *Mirror) Detach(id, reason string) {
	m.mu.Lock()
	v := m.views[id]
	if v == nil {
		m.mu.Unlock()
		return
	}
	delete(m.views, id)
	if m.latest == id {
		m.latest = ""
		for _, o := range m.order {
			if m.views[o] != nil {
				m.latest = o // the view attached longest takes over the size
			}
		}
	}
	notify, latest := m.onViews, m.latest
	m.mu.Unlock()
	v.leave(reason)
	if latest != "" {
		m.use(latest)
	}
	if notify != nil {
		notify(id, false)
	}
}

// DetachAll drops every view with reason.
func (m *Mirror) DetachAll(reason string) {
	m.mu.Lock()
	ids := make([]string, 0, len(m.views))
	for id := range m.views {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	for _, id := range ids {
		m.Detach(id, reason)
	}
}

// resized handles view id's new size (its terminal reported the resize): the
// view is redrawn whole, and when it is the latest the layout takes its size.
func (m *Mirror) resized(id string) {
	m.mu.Lock()
	v := m.views[id]
	if v != nil {
		v.whole = true
	}
	latest := m.latest == id
	m.mu.Unlock()
	if v == nil {
		return
	}
	if latest {
		m.use(id)
	}
	v.poke()
}

// Redraw asks view id for a whole redraw (after SIGCONT, say).
func (m *Mirror) Redraw(id string) {
	m.mu.Lock()
	v := m.views[id]
	if v != nil {
		v.whole, v.sync = true, true
	}
	m.mu.Unlock()
	if v != nil {
		v.poke()
	}
}

// use makes view id the latest: the logical screen takes its size (at most the cap,
// clampViewSize), and the App is told.
func (m *Mirror) use(id string) {
	m.mu.Lock()
	v := m.views[id]
	if v == nil {
		m.mu.Unlock()
		return
	}
	changed := m.latest != id
	m.latest = id
	m.mu.Unlock()
	w, h := clampViewSize(v.sc.Size())
	if ow, oh := m.Size(); ow == w && oh == h {
		if changed {
			m.pokeAll() // the size notes change
		}
		return
	}
	m.setSize(w, h)
	m.sim.PostEventWait(tcell.NewEventResize(w, h))
}

// OriginOf is the view that sent ev, "" when none did (or it was forgotten). UI goroutine.
func (m *Mirror) OriginOf(ev tcell.Event) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.origins[ev]
}

// post puts events from view id on the logical screen's queue, in one piece.
func (m *Mirror) post(id string, evs ...tcell.Event) {
	m.postMu.Lock()
	defer m.postMu.Unlock()
	m.mu.Lock()
	for _, ev := range evs {
		m.origins[ev] = id
		m.originQ = append(m.originQ, ev)
	}
	if _, key := evs[0].(*tcell.EventKey); key && len(evs) == 1 {
		// tview hands every key to the App's input capture (a paste never reaches tview as
		// keys: paste.go): a key posted alone is always taken.
		m.keysIn[evs[0]] = struct{}{}
	}
	for len(m.originQ) > maxOrigins {
		delete(m.origins, m.originQ[0])
		delete(m.keysIn, m.originQ[0])
		m.originQ = m.originQ[1:]
	}
	m.mu.Unlock()
	for _, ev := range evs {
		m.sim.PostEventWait(ev) // returns when the logical screen is finalized
	}
}

// KeysWaiting reports whether a key a view sent has not been taken by the App yet: it is in
// the queue, behind the event or update the UI goroutine is busy with. Any goroutine.
func (m *Mirror) KeysWaiting() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keysIn) > 0
}

// KeyTaken notes that the App took ev from the queue. UI goroutine.
func (m *Mirror) KeyTaken(ev tcell.Event) {
	m.mu.Lock()
	delete(m.keysIn, ev)
	m.mu.Unlock()
}

// ShownWhileKeysWaited is how many frames went to the views while a key waited in the queue
// (the App leaves none: keys first). UI goroutine.
func (m *Mirror) ShownWhileKeysWaited() int { return m.shownWaiting }

// Show copies the cells that changed since the last frame to every view. UI goroutine.
func (m *Mirror) Show() {
	m.dmu.Lock()
	w, h := m.dw, m.dh
	m.mu.Lock()
	if len(m.keysIn) > 0 {
		m.shownWaiting++
	}
	if w != m.w || h != m.h {
		// Blank: every drawn cell that is not blank differs from it, and is copied.
		m.cells = make([]mcell, w*h)
		m.w, m.h = w, h
		m.allRows = true
		for _, v := range m.views {
			v.whole = true
		}
	}
	if len(m.rows) != h {
		m.rows, m.allRows = make([]bool, h), true
	}
	all := m.allRows
	m.allRows = false
	for y := 0; y < h; y++ {
		if !all && !m.rows[y] {
			continue // nothing drew on this row since the last frame
		}
		m.rows[y] = false
		row := m.drawn[y*w : y*w+w]
		shown := m.cells[y*w : y*w+w]
		for x := 0; x < w; x++ {
			c := &row[x]
			// Changed: not locked, and not as last shown (or to be drawn again whatever it is).
			if c.flags()&cellLocked == 0 && (c.flags()&cellForced != 0 || c.text() != shown[x].text() || c.style != shown[x].style) {
				c.clearFlags(cellForced)
				shown[x] = cellOf(c.text(), c.style, int(c.width()))
				for _, v := range m.views {
					v.mark(y*w + x)
				}
				if c.width() > 1 && x+1 < w {
					row[x+1].setFlags(cellForced) // drawn again once the wide cell goes
					// What the view shows there is the wide character: a change of that cell
					// marked earlier and not drawn yet must not cut it.
					shown[x+1] = mcell{}
					shown[x+1].setFlags(cellCovered)
				}
			}
			if c.width() > 1 {
				x++
			}
		}
	}
	for _, v := range m.views {
		v.shown = true
	}
	m.fresh = true
	// The cursor goes with the cells, in the same frame: a copier woken meanwhile (for modes)
	// must not draw the new cells with the old cursor.
	x, y := m.showX, m.showY
	m.cursorX, m.cursorY, m.cursor = x, y, x >= 0 && y >= 0 && x < w && y < h
	m.dmu.Unlock()
	var vs []*mirrorView
	for _, v := range m.views {
		// A view with nothing to draw gets no frame: tview draws after every key, and a key
		// typed into a pane changes nothing until its echo, whose frame it would delay.
		if v.pending() {
			vs = append(vs, v)
		}
	}
	m.mu.Unlock()
	for _, v := range vs {
		if !v.showNow() {
			v.poke()
		}
	}
}

// Sync redraws every view whole.
func (m *Mirror) Sync() {
	m.mu.Lock()
	for _, v := range m.views {
		v.whole, v.sync = true, true
	}
	m.mu.Unlock()
	m.Show()
}

func (m *Mirror) pokeAll() {
	m.mu.Lock()
	vs := make([]*mirrorView, 0, len(m.views))
	for _, v := range m.views {
		vs = append(vs, v)
	}
	m.mu.Unlock()
	for _, v := range vs {
		v.poke()
	}
}

// Fini drops every view (restoring their terminals) and waits for their goroutines; each is
// bounded by its Tty's write deadline.
func (m *Mirror) Fini() {
	m.mu.Lock()
	m.finished = true
	m.mu.Unlock()
	m.DetachAll(ReasonExited)
	m.wg.Wait()
	m.sim.Fini()
}

// The rest of tcell.Screen: the logical screen answers, and the terminal modes go to every view.

func (m *Mirror) Clear() { m.Fill(' ', tcell.StyleDefault) }
func (m *Mirror) Fill(r rune, st tcell.Style) {
	m.allRows = true
	m.dmu.Lock()
	m.fill(r, st)
	m.dmu.Unlock()
}
func (m *Mirror) Put(x, y int, s string, st tcell.Style) (string, int) {
	m.touch(y)
	m.dmu.Lock()
	defer m.dmu.Unlock()
	return m.put(x, y, s, st)
}
func (m *Mirror) PutStr(x, y int, s string) { m.PutStrStyled(x, y, s, tcell.StyleDefault) }

// PutStrStyled draws s from x on, one grapheme a cell, until s ends, a grapheme has no width or
// the row does (as tcell's).
func (m *Mirror) PutStrStyled(x, y int, s string, st tcell.Style) {
	m.touch(y)
	m.dmu.Lock()
	defer m.dmu.Unlock()
	for s != "" && x < m.dw && y < m.dh {
		var width int
		s, width = m.put(x, y, s, st)
		if width == 0 {
			break
		}
		x += width
	}
}
func (m *Mirror) SetCell(x, y int, st tcell.Style, ch ...rune) {
	if len(ch) > 0 {
		m.Put(x, y, string(ch), st)
	} else {
		m.Put(x, y, " ", st)
	}
}
func (m *Mirror) Get(x, y int) (string, tcell.Style, int) {
	m.dmu.Lock()
	defer m.dmu.Unlock()
	return m.get(x, y)
}
func (m *Mirror) GetContent(x, y int) (rune, []rune, tcell.Style, int) {
	str, style, width := m.Get(x, y)
	var mainc rune
	var combc []rune
	for i, r := range str {
		if i == 0 {
			mainc = r
		} else {
			combc = append(combc, r)
		}
	}
	return mainc, combc, style, width
}
func (m *Mirror) SetContent(x, y int, r rune, c []rune, st tcell.Style) {
	if len(c) == 0 && r >= 0 && r < 128 {
		m.Put(x, y, asciiChars[r:r+1], st)
		return
	}
	m.Put(x, y, string(append([]rune{r}, c...)), st)
}

// touch notes that row y was drawn on: Show looks for changed cells in drawn rows only. UI
// goroutine.
func (m *Mirror) touch(y int) {
	if y >= 0 && y < len(m.rows) {
		m.rows[y] = true
	} else {
		m.allRows = true
	}
}
func (m *Mirror) SetStyle(st tcell.Style) { m.sim.SetStyle(st) }
func (m *Mirror) ShowCursor(x, y int)     { m.showX, m.showY = x, y }
func (m *Mirror) HideCursor()             { m.showX, m.showY = -1, -1 }
func (m *Mirror) Size() (int, int) {
	m.dmu.Lock()
	defer m.dmu.Unlock()
	return m.dw, m.dh
}
func (m *Mirror) ChannelEvents(ch chan<- tcell.Event, quit <-chan struct{}) {
	m.sim.ChannelEvents(ch, quit)
}
func (m *Mirror) PollEvent() tcell.Event                { return m.sim.PollEvent() }
func (m *Mirror) HasPendingEvent() bool                 { return m.sim.HasPendingEvent() }
func (m *Mirror) PostEvent(ev tcell.Event) error        { return m.sim.PostEvent(ev) }
func (m *Mirror) PostEventWait(ev tcell.Event)          { m.sim.PostEventWait(ev) }
func (m *Mirror) HasMouse() bool                        { return true }
func (m *Mirror) Colors() int                           { return 1 << 24 }
func (m *Mirror) CharacterSet() string                  { return "UTF-8" }
func (m *Mirror) RegisterRuneFallback(r rune, s string) { m.sim.RegisterRuneFallback(r, s) }
func (m *Mirror) UnregisterRuneFallback(r rune)         { m.sim.UnregisterRuneFallback(r) }
func (m *Mirror) CanDisplay(r rune, fb bool) bool       { return m.sim.CanDisplay(r, fb) }
func (m *Mirror) Resize(int, int, int, int)             {}
func (m *Mirror) HasKey(tcell.Key) bool                 { return true }
func (m *Mirror) Suspend() error                        { return nil }
func (m *Mirror) Resume() error                         { return nil }
func (m *Mirror) Beep() error                           { return nil }
func (m *Mirror) SetSize(int, int)                      {}
func (m *Mirror) Tty() (tcell.Tty, bool)                { return nil, false }
func (m *Mirror) SetTitle(string)                       {}
func (m *Mirror) GetClipboard()                         {}

// LockRegion keeps the cells of a rectangle from the views until unlocked (as tcell's).
func (m *Mirror) LockRegion(x, y, w, h int, lock bool) {
	m.allRows = true // an unlocked cell is copied at the next Show
	m.dmu.Lock()
	m.lockRegion(x, y, w, h, lock)
	m.dmu.Unlock()
}

// SetClipboard puts data on the clipboard of the view used last, the person who copied (OSC 52
// through that view's terminal, with its next frame: a stalled terminal does not hold the UI).
func (m *Mirror) SetClipboard(data []byte) {
	m.mu.Lock()
	v := m.views[m.latest]
	m.mu.Unlock()
	if v == nil {
		return
	}
	v.sc.SetClipboard(bytes.Clone(data))
	v.flushModes()
}

// Alert writes seq (a bell, a desktop notification) to every attached view's terminal with its
// next frame, on the views' screens that can (alerter).
func (m *Mirror) Alert(seq []byte) {
	m.mu.Lock()
	vs := make([]*mirrorView, 0, len(m.views))
	for _, v := range m.views {
		vs = append(vs, v)
	}
	m.mu.Unlock()
	for _, v := range vs {
		if al, ok := v.sc.(alerter); ok {
			al.Alert(bytes.Clone(seq))
			v.flushModes()
		}
	}
}

func (m *Mirror) SetCursorStyle(cs tcell.CursorStyle, _ ...tcell.Color) {
	m.mu.Lock()
	m.curSt = cs
	m.mu.Unlock()
}

func (m *Mirror) EnableMouse(flags ...tcell.MouseFlags) {
	m.modes(func() { m.mouseOn, m.mouse = true, flags }, func(sc ViewScreen) { sc.EnableMouse(flags...) })
}
func (m *Mirror) DisableMouse() {
	m.modes(func() { m.mouseOn = false }, func(sc ViewScreen) { sc.DisableMouse() })
}
func (m *Mirror) EnablePaste() {
	m.modes(func() { m.pasteOn = true }, func(sc ViewScreen) { sc.EnablePaste() })
}
func (m *Mirror) DisablePaste() {
	m.modes(func() { m.pasteOn = false }, func(sc ViewScreen) { sc.DisablePaste() })
}
func (m *Mirror) EnableFocus() {
	m.modes(func() { m.focusOn = true }, func(sc ViewScreen) { sc.EnableFocus() })
}
func (m *Mirror) DisableFocus() {
	m.modes(func() { m.focusOn = false }, func(sc ViewScreen) { sc.DisableFocus() })
}

// modes records a terminal mode for views still to come and sets it on those attached; it goes
// out with each one's next frame.
func (m *Mirror) modes(record func(), apply func(ViewScreen)) {
	m.mu.Lock()
	record()
	vs := make([]*mirrorView, 0, len(m.views))
	for _, v := range m.views {
		vs = append(vs, v)
	}
	m.mu.Unlock()
	for _, v := range vs {
		apply(v.sc)
		v.flushModes()
	}
}

// flushModes asks the view's copier for a frame that writes the modes or clipboard set on its
// terminal, even with no cell to draw.
func (v *mirrorView) flushModes() {
	v.m.mu.Lock()
	v.modes = true
	v.m.mu.Unlock()
	v.poke()
}

// mirrorView is one attached view: its screen, the cells it has still to draw, its goroutines.
type mirrorView struct {
	m     *Mirror
	id    string
	sc    ViewScreen
	gone  func(reason string)
	wake  chan struct{}
	pokes atomic.Uint64 // frames asked of its copier
	quit  chan struct{}
	once  sync.Once
	why   string

	// One goroutine draws on the screen at a time: the copier, or the App's in showNow. ended:
	// the screen is finalized (under drawMu).
	drawMu sync.Mutex
	ended  bool

	// Under m.mu.
	dirty []bool
	list  []int
	whole bool
	sync  bool
	modes bool // modes or the clipboard wait on the terminal for a frame
	// unsent: the screen holds part of a frame that showNow could not write; the copier's next
	// Show writes it.
	unsent bool
	// shown: the App has shown a frame since the view attached. Until then the copier draws
	// nothing: the logical cells are the last frame drawn before the view came (a server draws
	// nothing with no view), and the App redraws everything for a new view at once, so the view's
	// first frame is that redraw, never a stale frame followed by it.
	shown bool

	// drawn: the view's screen has shown a frame (copyLoop only). Until then it is blank, as
	// tcell's Init left it and its terminal, and its first frame draws only what is not blank.
	drawn bool

	// The cursor its last frame set (under m.mu).
	curSt  tcell.CursorStyle
	cx, cy int
	cur    bool
}

// pending reports whether the view has something to draw: cells, a whole or synced redraw, modes
// to write, or a cursor other than the one its last frame set. Show pokes only such a view, and
// its copier draws a frame only then. Under m.mu.
func (v *mirrorView) pending() bool {
	m := v.m
	return v.whole || v.sync || v.modes || v.unsent || len(v.list) > 0 ||
		v.cx != m.cursorX || v.cy != m.cursorY || v.cur != m.cursor || v.curSt != m.curSt
}

// mark records that logical cell i changed. Under m.mu. The list never holds a cell twice, so
// it is bounded by the screen.
func (v *mirrorView) mark(i int) {
	if v.whole {
		return
	}
	if len(v.dirty) != v.m.w*v.m.h {
		v.whole = true
		return
	}
	if !v.dirty[i] {
		v.dirty[i] = true
		v.list = append(v.list, i)
	}
}

func (v *mirrorView) poke() {
	v.pokes.Add(1)
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

func (v *mirrorView) leave(reason string) {
	v.once.Do(func() {
		v.why = reason
		close(v.quit)
	})
}

// copyLoop draws the logical screen's changes on the view's terminal, one frame at a time.
func (v *mirrorView) copyLoop() {
	defer v.m.wg.Done()
	for {
		select {
		case <-v.quit:
			v.drawMu.Lock()
			v.ended = true
			v.sc.Fini() // restores the terminal; the Tty's write deadline bounds it
			v.drawMu.Unlock()
			if v.gone != nil {
				v.gone(v.why)
			}
			return
		case <-v.wake:
		}
		v.drawMu.Lock()
		v.frame(false)
		v.drawMu.Unlock()
		if tty, ok := v.sc.Tty(); ok {
			if b, ok := tty.(interface{ Broken() bool }); ok && b.Broken() {
				go v.m.Detach(v.id, "the terminal stopped reading") // owner: the Mirror; returns at once
			}
		}
	}
}

// nowShower is a view's screen that can show a frame without waiting on its terminal
// (viewterm.Terminal.ShowNow): false when part of it is left for the next Show.
type nowShower interface{ ShowNow() bool }

// maxNowCells bounds the frame the App's goroutine writes itself (showNow): an echo, a few keys'
// worth of a full-screen program. Larger frames (a flood, a whole redraw) go to the copier, which
// builds them in parallel with the App.
const maxNowCells = 1024

// showNow shows a small frame on the App's goroutine, when the view's copier is idle and its
// terminal takes the frame at once: a key's echo reaches the view with no wake-up of the copier
// (which, on a loaded 2-core machine, waited for a core 0.5 ms in the median, several ms at the
// 90th percentile, of a quiet shell's echo). It reports false when the copier is to draw it (or
// what the terminal did not take). It never waits: not on the copier, not on the terminal.
func (v *mirrorView) showNow() bool {
	if _, ok := v.sc.(nowShower); !ok || !v.drawMu.TryLock() {
		return false
	}
	defer v.drawMu.Unlock()
	return !v.ended && v.frame(true)
}

// frame copies what changed (everything after a resize or when the view fell behind) and shows
// it; now: on the App's goroutine, only a small frame, with nowShower (showNow). It reports
// false when the copier is to show the frame, or what is left of it. Under drawMu.
func (v *mirrorView) frame(now bool) bool {
	m := v.m
	// Take what changed under the lock, and draw it on the view's screen after: that screen's
	// lock may be held by tcell while it writes to a slow terminal, and the App must not wait.
	m.mu.Lock()
	if !v.shown {
		m.mu.Unlock()
		return true
	}
	if !v.pending() { // a poke left over from a frame already drawn, say
		m.mu.Unlock()
		return true
	}
	if now && (v.whole || v.sync || v.unsent || len(v.list) > maxNowCells) {
		m.mu.Unlock()
		return false
	}
	v.unsent = false
	w, h := m.w, m.h
	whole := v.whole
	cx, cy, cursor, curSt := m.cursorX, m.cursorY, m.cursor, m.curSt
	v.cx, v.cy, v.cur, v.curSt = cx, cy, cursor, curSt
	var cells []indexedCell
	if whole {
		// The view's screen is blank at the frame's start (filled, or never drawn on): the blank
		// cells need no copy and no drawing.
		v.whole = false
		v.dirty = make([]bool, w*h)
		v.list = v.list[:0]
		cells = m.nonBlankCells()
	} else {
		cells = make([]indexedCell, 0, len(v.list))
		for _, i := range v.list {
			v.dirty[i] = false
			if m.cells[i].flags()&cellCovered == 0 {
				cells = append(cells, indexedCell{i, m.cells[i]})
			}
		}
		v.list = v.list[:0]
	}
	// The tables only grow, or are made anew: what these name stays as it is.
	texts, styles := m.tab.texts, m.tab.styles
	sync := v.sync
	v.sync, v.modes = false, false
	m.mu.Unlock()

	vw, vh := v.sc.Size()
	if whole && v.drawn {
		v.sc.Clear()
	}
	v.drawn = true
	for _, c := range cells {
		v.sc.PutCell(c.i%w, c.i/w, textOf(texts, c.c.text()), styles[c.c.style], max(1, int(c.c.width())))
	}
	if cursor && cx < vw && cy < vh {
		v.sc.SetCursorStyle(curSt)
		v.sc.ShowCursor(cx, cy)
	} else {
		v.sc.HideCursor()
	}
	if vw != w || vh != h {
		viewSizeNote(v.sc, w, h, vw, vh)
	}
	if sync {
		v.sc.Sync()
		return true
	}
	if now {
		if v.sc.(nowShower).ShowNow() {
			return true
		}
		m.mu.Lock()
		v.unsent = true
		m.mu.Unlock()
		return false
	}
	v.sc.Show()
	return true
}

type indexedCell struct {
	i int
	c mcell
}

// nonBlankCells lists the cells shown that a cleared terminal does not show as they are. Under mu.
// A style's look on a space is found once per style on screen, not once per cell.
func (m *Mirror) nonBlankCells() []indexedCell {
	shows := make([]uint8, len(m.tab.styles)) // 0: not looked at yet, 1: blank, 2: shows
	var cells []indexedCell
	for i, c := range m.cells {
		if c.flags()&cellCovered != 0 {
			continue
		}
		if c.text() == 0 {
			if shows[c.style] == 0 {
				shows[c.style] = 1
				if !m.tab.blank(c) {
					shows[c.style] = 2
				}
			}
			if shows[c.style] == 1 {
				continue
			}
		}
		cells = append(cells, indexedCell{i, c})
	}
	return cells
}

// blank reports whether the cell looks as a cleared terminal shows it: a space on the default
// background, with no attribute that shows on a space (a foreground colour, bold, italic do not).
// Under the Mirror's mu.
func (t *cellTables) blank(c mcell) bool {
	if c.text() != 0 {
		return false
	}
	if c.style == 0 {
		return true
	}
	return t.styles[c.style].Foreground(tcell.ColorDefault).Bold(false).Dim(false).Italic(false).Blink(false) == tcell.StyleDefault
}

// viewSizeNote says on a view of size vw x vh that the layout is sized w x h for another view (a
// larger view is padded, a smaller one clipped), or, for a view larger than the cap, that the
// layout is drawn at the cap. The padding stops at the cap: what lies beyond is left blank, so
// the work a frame does is bounded whatever size a terminal reports.
func viewSizeNote(sc ViewScreen, w, h, vw, vh int) {
	st := tcell.StyleDefault.Reverse(true)
	pad := tcell.StyleDefault.Dim(true)
	cw, ch := min(vw, MaxViewCols), min(vh, MaxViewRows)
	for y := 0; y < ch; y++ {
		for x := 0; x < cw; x++ {
			if x >= w || y >= h {
				sc.PutCell(x, y, "·", pad, 1)
			}
		}
	}
	var note string
	switch {
	case vw < w || vh < h:
		note = fmt.Sprintf(" clipped: sized %dx%d by another view ", w, h)
	case w != cw || h != ch:
		note = fmt.Sprintf(" sized %dx%d by another view ", w, h)
	default: // the layout is this view's, at the cap
		note = fmt.Sprintf(" too large: drawn at %dx%d, tickmux's limit ", w, h)
	}
	x, y := max(0, cw-len(note)), ch-1
	switch {
	case vw > w && vh <= h, w == cw && vw > cw:
		x, y = w, 0 // right of the layout, on its first row
	case w == cw && vh > ch:
		x, y = 0, h // below the layout
	}
	for i := 0; i < len(note); i++ { // ASCII
		sc.PutCell(x+i, y, note[i:i+1], st, 1)
	}
}

// readLoop feeds the view's input to the App, tagged with the view: resizes and errors are the
// view's own business; a bracketed paste streams to where the App sends it (paste.go), never as
// keys, and nothing the view sends after it is posted before it is in.
func (v *mirrorView) readLoop() {
	defer v.m.wg.Done()
	var sink PasteSink // the paste under way (nil when the view left before the App chose)
	pasting := false
	endPaste := func() {
		if pasting && sink != nil {
			sink.End()
		}
		sink, pasting = nil, false
	}
	defer endPaste() // a view that leaves mid-paste still closes it
	for {
		ev := v.sc.PollEvent()
		switch e := ev.(type) {
		case nil:
			return // finalized
		case *tcell.EventResize:
			v.m.resized(v.id)
			continue
		case *tcell.EventError:
			v.m.Detach(v.id, "the terminal went away")
			continue
		case feedDone:
			if !pasting {
				v.askLane(e.FeedSeq())
			}
			continue
		case *tcell.EventPaste:
			endPaste()
			if e.Start() {
				sink, pasting = v.startPaste(), true
			}
			continue
		case pastedText:
			if !pasting { // its start was read as keys (a marker cut between two reads)
				sink, pasting = v.startPaste(), true
			}
			if sink != nil {
				sink.Write(e.PastedBytes(), v.quit)
			}
			continue
		case *tcell.EventKey:
			if pasting { // a screen that reads a paste as keys (tcell's): their bytes
				if sink != nil {
					sink.WriteKey(e, v.quit)
				}
				continue
			}
			v.m.use(v.id)
		case *tcell.EventMouse:
			if pasting {
				continue
			}
			v.m.use(v.id)
		}
		v.m.post(v.id, ev)
	}
}

// startPaste posts the start of a paste and waits for the App to choose where it goes; nil when
// the view leaves first.
func (v *mirrorView) startPaste() PasteSink {
	m := v.m
	m.use(v.id)
	ps := newPasteStream()
	post := func(f func()) { m.postMark(v.id, f) }
	m.postMark(v.id, func() {
		m.mu.Lock()
		choose := m.pasteTo
		m.mu.Unlock()
		if choose == nil {
			ps.give(dropSink{})
			return
		}
		ps.give(choose(post))
	})
	return ps.wait(v.quit)
}
