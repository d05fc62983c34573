package views

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/internal/screentest"
	"tickmux/keymap"
	"tickmux/server/mirror"
)

// viewsHarness runs an App on a server's Mirror, with views that are simulation screens (what a
// view's terminal would show: the copy the Mirror makes, not the App's own drawing).
type viewsHarness struct {
	*harness
	mirror *watchedMirror
	views  map[string]*lockedScreen
	mu     sync.Mutex
	left   map[string]string // view → the reason it left
}

func newViewsHarness(t *testing.T) *viewsHarness {
	t.Helper()
	m := &watchedMirror{Mirror: mirror.New()}
	hs := newHarnessOn(t, m)
	return &viewsHarness{harness: hs, mirror: m, views: map[string]*lockedScreen{}, left: map[string]string{}}
}

// watchedMirror is the Mirror as the App draws on it (a MultiView), with what the tests watch:
// the cells the App drew, and whether it showed a frame since the last Expect.
type watchedMirror struct {
	*mirror.Mirror
	puts  int        // cells drawn on the screen, ever (UI goroutine)
	mu    sync.Mutex // orders fresh as the Mirror orders its own: Expect's reset, Show's set
	fresh bool
}

var _ MultiView = (*watchedMirror)(nil)

func (m *watchedMirror) Expect() (done func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fresh = false
	return m.Mirror.Expect()
}

func (m *watchedMirror) Show() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Mirror.Show()
	m.fresh = true
}

func (m *watchedMirror) Sync() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Mirror.Sync()
	m.fresh = true
}

// shownSinceExpect reports whether a frame was shown since the last Expect.
func (m *watchedMirror) shownSinceExpect() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fresh
}

// Put and the rest draw as the Mirror does, one grapheme a Put, counting the cells drawn.
func (m *watchedMirror) Put(x, y int, s string, st tcell.Style) (string, int) {
	if w, h := m.Size(); x >= 0 && y >= 0 && x < w && y < h {
		m.puts++
	}
	return m.Mirror.Put(x, y, s, st)
}
func (m *watchedMirror) PutStr(x, y int, s string) { m.PutStrStyled(x, y, s, tcell.StyleDefault) }
func (m *watchedMirror) PutStrStyled(x, y int, s string, st tcell.Style) {
	for w, h := m.Size(); s != "" && x < w && y < h; {
		var width int
		s, width = m.Put(x, y, s, st)
		if width == 0 {
			break
		}
		x += width
	}
}
func (m *watchedMirror) SetCell(x, y int, st tcell.Style, ch ...rune) {
	if len(ch) > 0 {
		m.Put(x, y, string(ch), st)
	} else {
		m.Put(x, y, " ", st)
	}
}
func (m *watchedMirror) SetContent(x, y int, r rune, c []rune, st tcell.Style) {
	m.Put(x, y, string(append([]rune{r}, c...)), st)
}

// lockedScreen is a view's terminal that the test reads between frames (a simulation screen's
// contents change under its reader while it shows a frame).
type lockedScreen struct {
	tcell.SimulationScreen
	mu sync.Mutex
	// keysPosted counts the keys the Mirror's reader has put in the App's queue: it asks its
	// terminal for the next event only once it has posted the last.
	keysPosted atomic.Int64
	lastKey    bool // the event the reader took last is a key (the reader's alone)
}

func (s *lockedScreen) PollEvent() tcell.Event {
	if s.lastKey {
		s.keysPosted.Add(1)
	}
	ev := s.SimulationScreen.PollEvent()
	_, s.lastKey = ev.(*tcell.EventKey)
	return ev
}

func (s *lockedScreen) PutCell(x, y int, text string, st tcell.Style, _ int) { s.Put(x, y, text, st) }

func (s *lockedScreen) Show() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Show()
}

func (s *lockedScreen) Sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.SimulationScreen.Sync()
}

// attach adds a view of size w x h.
func (vh *viewsHarness) attach(id string, w, h int) *lockedScreen {
	vh.t.Helper()
	sc := &lockedScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	if err := sc.Init(); err != nil {
		vh.t.Fatal(err)
	}
	sc.SetSize(w, h)
	if err := vh.mirror.Attach(id, sc, func(reason string) {
		vh.mu.Lock()
		vh.left[id] = reason
		vh.mu.Unlock()
	}); err != nil {
		vh.t.Fatal(err)
	}
	vh.views[id] = sc
	return sc
}

// viewText is what view id's terminal shows.
func viewText(sc *lockedScreen) string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return screentest.Text(sc.SimulationScreen)
}

func (vh *viewsHarness) waitView(id, want string, present bool) string {
	vh.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := viewText(vh.views[id])
		if strings.Contains(s, want) == present {
			return s
		}
		if time.Now().After(deadline) {
			vh.t.Fatalf("view %s: want %q present=%v:\n%s", id, want, present, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// keysIn types into view id's terminal; they reach the App tagged with the view.
func (vh *viewsHarness) keysIn(id string, keys ...*tcell.EventKey) {
	for _, k := range keys {
		vh.views[id].InjectKey(k.Key(), k.Rune(), k.Modifiers())
	}
	vh.keysSeen(vh.views[id]) // returns once the App has handled them: a sentinel key behind them
}

func runeKey(r rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone) }

var prefixKey = tcell.NewEventKey(tcell.KeyCtrlB, 'b', tcell.ModCtrl)

// twoViewsOnPlain runs the plain Tick with two views, a and b, of 160×50 that both show it.
func twoViewsOnPlain(t *testing.T) (*viewsHarness, *host.Instance) {
	t.Helper()
	vh := newViewsHarness(t)
	in := vh.openTick("plain")
	vh.start()
	vh.attach("a", 160, 50)
	vh.attach("b", 160, 50)
	vh.waitView("a", "VIEWTICK value=0", true)
	vh.waitView("b", "VIEWTICK value=0", true)
	return vh, in
}

// spec: H-K2
// A card shows in every view; card mode is per view, so a key typed in one view never answers a
// card that another view focused; the answer in one view takes the card out of every view.
func TestViewsKeepTheirOwnCardMode(t *testing.T) {
	vh, in := twoViewsOnPlain(t)

	done := approve(in, 4)
	vh.waitView("a", "claude-code wants to call increment", true)
	vh.waitView("b", "claude-code wants to call increment", true)

	vh.keysIn("a", prefixKey, runeKey('a'))
	vh.waitView("a", "allow once", true)
	vh.keysIn("b", runeKey('y'), runeKey('r')) // b is in root mode: these go to the Tick
	oneCardStillPending(t, vh.harness, done, "a key from another view answered the card")
	vh.keysIn("a", runeKey('y'))
	if err := answered(t, done); err != nil {
		t.Fatalf("approved call: %v", err)
	}
	vh.waitView("a", "claude-code wants to call increment", false)
	vh.waitView("b", "claude-code wants to call increment", false)
	vh.waitView("b", "VIEWTICK value=4", true)
}

// The layout takes the size of the view used last; a larger view is padded and a smaller one
// clipped, and each says so.
func TestViewsFollowTheLatestSize(t *testing.T) {
	vh := newViewsHarness(t)
	vh.openTick("plain")
	vh.start()
	vh.attach("big", 160, 50)
	vh.waitView("big", "VIEWTICK value=0", true)
	vh.attach("small", 100, 30) // attaching makes it the latest
	vh.waitView("big", "sized 100x30 by another view", true)
	vh.keysIn("big", runeKey('x')) // using the big view makes it the latest again
	vh.waitView("small", "clipped: sized 160x50 by another view", true)
	vh.waitView("big", "sized 100x30", false)
	if w, h := vh.mirror.Size(); w != 160 || h != 50 {
		t.Fatalf("the layout is %dx%d, want the big view's 160x50", w, h)
	}
}

// stuckScreen is a view whose terminal never takes another frame.
type stuckScreen struct {
	tcell.SimulationScreen
	release chan struct{}
	once    sync.Once
	shown   chan struct{}
}

func (s *stuckScreen) PutCell(x, y int, text string, st tcell.Style, _ int) { s.Put(x, y, text, st) }

func (s *stuckScreen) Show() {
	s.once.Do(func() { close(s.shown) })
	<-s.release
}

// A view that stops taking frames blocks neither the App nor the other views; prefix d
// detaches a view and the others go on.
func TestStuckViewBlocksNobody(t *testing.T) {
	vh := newViewsHarness(t)
	vh.openTick("plain")
	vh.start()
	stuck := &stuckScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), release: make(chan struct{}), shown: make(chan struct{})}
	if err := stuck.Init(); err != nil {
		t.Fatal(err)
	}
	stuck.SetSize(160, 50)
	if err := vh.mirror.Attach("stuck", stuck, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(stuck.release) })
	<-stuck.shown
	vh.attach("ok", 160, 50)
	vh.waitView("ok", "VIEWTICK value=0", true)
	for i := 0; i < 5; i++ {
		vh.keysIn("ok", runeKey('+')) // the fake Tick ignores it; the frames go on regardless
	}
	in := vh.h.Instances()[0]
	done := approve(in, 7)
	vh.waitView("ok", "claude-code wants to call increment", true)
	vh.keysIn("ok", prefixKey, runeKey('a'))
	vh.waitView("ok", "allow once", true)
	vh.keysIn("ok", runeKey('y'))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	vh.waitView("ok", "VIEWTICK value=7", true)

	vh.keysIn("ok", prefixKey, runeKey('d'))
	deadline := time.Now().Add(20 * time.Second)
	for {
		vh.mu.Lock()
		why := vh.left["ok"]
		vh.mu.Unlock()
		if why == "detached" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("prefix d did not detach the view (left: %q)", why)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := vh.mirror.Views(); n != 1 {
		t.Fatalf("%d views attached after one detached, want 1", n)
	}
}

// spec: H-K2
// A card answered in one view leaves the card mode of another view that was reading it at once,
// not at that view's next key: a key typed there seconds later reaches the pane, while a key
// typed within the settle time after the card went away still reaches nothing.
func TestCardAnsweredInAnotherViewEndsCardModeEverywhere(t *testing.T) {
	vh, in := twoViewsOnPlain(t)

	done := approve(in, 4)
	vh.waitView("a", "claude-code wants to call increment", true)
	vh.keysIn("a", prefixKey, runeKey('a'))
	vh.waitView("a", "allow once", true)
	vh.keysIn("b", prefixKey, runeKey('a'))
	vh.waitView("b", "allow once", true)
	vh.keysIn("b", runeKey('y'))
	if err := answered(t, done); err != nil {
		t.Fatalf("approved call: %v", err)
	}
	savedMode := func() (keymap.Mode, bool) {
		return onUIValue(vh.harness, func() keymap.Mode {
			if st := vh.app.views.states["a"]; st != nil {
				return st.mode
			}
			return ""
		}), onUIValue(vh.harness, func() bool { return vh.app.views.cur == "b" })
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mode, bCurrent := savedMode()
		if !bCurrent {
			t.Fatal("view b is not the current view after its answer")
		}
		if mode == keymap.ModeRoot {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("view a is still in %s mode after its card was answered in view b", mode)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Past the settle time, a's keys are its pane's again.
	time.Sleep(cardSettle + 100*time.Millisecond)
	vh.keysIn("a", prefixKey, runeKey('a')) // no card: card mode does not start
	if m := onUIValue(vh.harness, func() keymap.Mode { return vh.app.view.mode }); m != keymap.ModeRoot {
		t.Fatalf("view a is in %s mode with no card pending", m)
	}
	if onUIValue(vh.harness, func() bool { return vh.app.settling() }) {
		t.Fatal("view a's keys still wait for a card answered long ago")
	}
}
