package views

import (
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/server/mirror"
)

// laneView is a view's terminal that takes typing lanes, as viewterm's does: the test posts the
// end of a read (a FeedDone) behind the keys it typed, and reads the App's answer.
type laneView struct {
	*lockedScreen
	mu      sync.Mutex
	on      bool
	answers map[uint64]mirror.Lane
	got     map[uint64]bool
}

func (v *laneView) EnableLanes() { v.mu.Lock(); v.on = true; v.mu.Unlock() }

func (v *laneView) SetLane(l mirror.Lane, seq uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.answers[seq], v.got[seq] = l, true
}

type fedEvent struct{ seq uint64 }

func (e *fedEvent) When() time.Time { return time.Time{} }
func (e *fedEvent) FeedSeq() uint64 { return e.seq }

// fed posts the end of read seq, behind what was typed before, and returns the App's answer:
// the lane it opened, or nil.
func (v *laneView) fed(t *testing.T, seq uint64) mirror.Lane {
	t.Helper()
	v.PostEventWait(&fedEvent{seq: seq})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		v.mu.Lock()
		l, ok := v.answers[seq], v.got[seq]
		v.mu.Unlock()
		if ok {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer for read %d", seq)
		}
	}
}

// seqOf numbers a read after each kind of event (TestLaneTypesWhereKeysGo).
func seqOf(k host.EventKind) uint64 { return 10 + uint64(k) }

// openCat opens a shell pane running cat, which echoes what is typed (the terminal's echo).
func (vh *viewsHarness) openCat() *host.Instance {
	vh.t.Helper()
	var in *host.Instance
	var err error
	vh.onUI(func() {
		in, err = vh.app.Open(host.OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "printf 'cat-ready\\n'; exec cat"}})
	})
	if err != nil {
		vh.t.Fatal(err)
	}
	waitText(vh.t, in, "cat-ready")
	return in
}

func (vh *viewsHarness) attachLanes(id string, w, h int) *laneView {
	vh.t.Helper()
	sc := &lockedScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	if err := sc.Init(); err != nil {
		vh.t.Fatal(err)
	}
	sc.SetSize(w, h)
	lv := &laneView{lockedScreen: sc, answers: map[uint64]mirror.Lane{}, got: map[uint64]bool{}}
	if err := vh.mirror.Attach(id, lv, func(string) {}); err != nil {
		vh.t.Fatal(err)
	}
	vh.views[id] = sc
	return lv
}

// spec: issue 29 (quiet key echo). A lane opens once the App has taken the view's keys and they
// went to the focused pane; text typed through it reaches the program after them, and its echo
// is drawn at once. An output's frame leaves it open; any other work on the UI goroutine closes
// it; a prefix typed keeps the next read from one.
func TestLaneTypesWhereKeysGo(t *testing.T) {
	vh := newViewsHarness(t)
	vh.start()
	in := vh.openCat()
	lv := vh.attachLanes("a", 120, 40)
	lv.mu.Lock()
	on := lv.on
	lv.mu.Unlock()
	if !on {
		t.Fatal("the Mirror did not turn lanes on for a view that takes them")
	}

	vh.keysIn("a", runeKey('x'))
	l := lv.fed(t, 1)
	if l == nil {
		t.Fatal("no lane after a key typed into the focused pane")
	}
	if !l.Type([]byte("yz")) {
		t.Fatal("the lane refused at once")
	}
	waitText(t, in, "xyz")
	vh.waitView("a", "xyz", true) // the echo's frame: the lane allows it as a key does

	// An output's frame leaves the lane open.
	if !vh.app.postFrame(func() {}) || !l.Type([]byte("w")) {
		t.Fatal("a frame closed the lane")
	}
	waitText(t, in, "xyzw")

	// So do a Tick's new states (a flood of updates would otherwise send every key the long
	// way); any other host event closes it: a pane added or ended, a card, an agent's prompt.
	states := []host.Event{{Kind: host.EventState, ID: in.ID()}, {Kind: host.EventState, ID: "other"}}
	if !vh.app.applyEvents(states, false) || !l.Type([]byte("o")) {
		t.Fatal("a Tick's new state closed the lane")
	}
	waitText(t, in, "xyzwo")
	for _, k := range []host.EventKind{host.EventAdded, host.EventStatus, host.EventCatalog, host.EventCalls, host.EventApprovals, host.EventRemoved, host.EventAgent} {
		vh.keysIn("a", runeKey('n'))
		if l = lv.fed(t, seqOf(k)); l == nil {
			t.Fatalf("no lane before the %s event", k)
		}
		if !vh.app.applyEvents(append(states, host.Event{Kind: k, ID: "other"}), false) {
			t.Fatal("the App stopped")
		}
		if l.Type([]byte("v")) {
			t.Fatalf("the lane still typed after a %s event", k)
		}
	}
	vh.keysIn("a", runeKey('n'))
	if l = lv.fed(t, 100); l == nil {
		t.Fatal("no lane before the cards changed")
	}
	if !vh.app.applyEvents(states, true) || l.Type([]byte("v")) {
		t.Fatal("the lane still typed after the cards changed")
	}
	vh.keysIn("a", runeKey('w'))
	waitText(t, in, "xyzwonnnnnnnnw")
	if l = lv.fed(t, 101); l == nil || !l.Type(nil) {
		t.Fatal("no lane after the events")
	}

	// Any other work closes it: it may have moved the focus, opened a prompt...
	if !vh.app.post(func() {}) {
		t.Fatal("the App stopped")
	}
	if l.Type([]byte("v")) {
		t.Fatal("the lane still typed after other work ran on the UI goroutine")
	}
	vh.keysIn("a", runeKey('u'))
	waitText(t, in, "xyzwonnnnnnnnwu")

	// A prefix: the next read takes the usual way, and acts in prefix mode.
	vh.keysIn("a", prefixKey)
	if l := lv.fed(t, 102); l != nil {
		t.Fatal("a lane opened in prefix mode")
	}
	vh.keysIn("a", tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone))
	if m := onUIValue(vh.harness, func() keymap.Mode { return vh.app.view.mode }); m != keymap.ModeRoot {
		t.Fatalf("mode %s after the prefix and Esc", m)
	}
	if l := lv.fed(t, 103); l == nil || !l.Type([]byte("t")) {
		t.Fatal("no lane back in root mode")
	}
	waitText(t, in, "xyzwonnnnnnnnwut")

	// Another view's key closes the lane: the keys now act with that view's state.
	vh.attach("b", 120, 40)
	l = lv.fed(t, 104)
	if l == nil {
		t.Fatal("no lane with a second view attached")
	}
	vh.keysIn("b", runeKey('s'))
	if l.Type([]byte("r")) {
		t.Fatal("the lane still typed after another view's key")
	}
	// So does the mouse: a click may focus another pane, the wheel scroll this one back.
	vh.keysIn("a", runeKey('q'))
	if l = lv.fed(t, 105); l == nil {
		t.Fatal("no lane after the view typed again")
	}
	vh.views["a"].InjectMouse(5, 5, tcell.WheelUp, tcell.ModNone)
	vh.keysSeen(vh.views["a"])
	if l.Type([]byte("p")) {
		t.Fatal("the lane still typed after the mouse")
	}
	waitText(t, in, "xyzwonnnnnnnnwutsq")
}

// spec: issue 29. No lane opens while a key would not go to the focused pane's program as it
// is: in any mode but root, with an overlay, a question or the numbers shown, the panel focused,
// a card settling, the pane scrolled back, a printable key bound, or for a view that is not the
// one whose state the keys act on.
func TestLaneClosedWhileKeysGoElsewhere(t *testing.T) {
	vh := newViewsHarness(t)
	vh.start()
	vh.openCat()
	lv := vh.attachLanes("a", 120, 40)
	vh.keysIn("a", runeKey('x'))
	if lv.fed(t, 1) == nil {
		t.Fatal("no lane to begin with")
	}
	a := vh.app
	cases := []struct {
		name string
		set  func() (undo func())
	}{
		{"prefix mode", func() func() { a.view.mode = keymap.ModePrefix; return func() { a.view.mode = keymap.ModeRoot } }},
		{"card mode", func() func() { a.view.mode = keymap.ModeCard; return func() { a.view.mode = keymap.ModeRoot } }},
		{"scroll mode", func() func() { a.view.mode = keymap.ModeScroll; return func() { a.view.mode = keymap.ModeRoot } }},
		{"locked mode", func() func() { a.view.mode = keymap.ModeLocked; return func() { a.view.mode = keymap.ModeRoot } }},
		{"a card settling", func() func() {
			a.view.cards.settle = time.Now().Add(time.Minute)
			return func() { a.view.cards.settle = time.Time{} }
		}},
		{"the panel focused", func() func() { a.panel.focused = true; return func() { a.panel.focused = false } }},
		{"a question", func() func() { a.view.confirm = &confirmation{}; return func() { a.view.confirm = nil } }},
		{"a line being typed", func() func() { a.input = &lineInput{}; return func() { a.input = nil } }},
		{"the pane numbers", func() func() {
			a.numbersUntil = time.Now().Add(time.Minute)
			return func() { a.numbersUntil = time.Time{} }
		}},
		{"the prompt", func() func() { a.prompt.open = true; return func() { a.prompt.open = false } }},
		{"the help", func() func() { a.help.open = true; return func() { a.help.open = false } }},
		{"the tree", func() func() { a.tree.open = true; return func() { a.tree.open = false } }},
		{"the pane scrolled back", func() func() {
			tv := a.focusedPane().term.(*TerminalView)
			tv.scroll = 3
			return func() { tv.scroll = 0 }
		}},
		{"a printable key bound in root mode", func() func() {
			keys := a.keys
			k := keymap.Default()
			if err := k.BindString(keymap.ModeRoot, "q", string(keymap.SplitRight)); err != nil {
				t.Fatal(err)
			}
			a.keys, a.plainFree = k, 0
			return func() { a.keys, a.plainFree = keys, 0 }
		}},
		{"a printable prefix", func() func() {
			prefix := a.keys.Prefix
			k, _ := keymap.Parse("`")
			a.keys.Prefix, a.plainFree = k, 0
			return func() { a.keys.Prefix, a.plainFree = prefix, 0 }
		}},
	}
	for _, c := range cases {
		var got Lane
		var again bool
		vh.onUI(func() {
			undo := c.set()
			got = a.laneFor("a")
			undo()
			again = a.laneFor("a") != nil
		})
		if got != nil {
			t.Errorf("%s: a lane opened", c.name)
		}
		if !again {
			t.Fatalf("%s: no lane once it was undone", c.name)
		}
	}
	// Each key, whichever view typed it, and each mouse event close it before they act.
	var afterKey, afterMouse, afterFrame bool
	vh.onUI(func() {
		l := a.laneFor("a")
		a.captureKey(tcell.NewEventKey(tcell.KeyF62, 0, tcell.ModNone))
		afterKey = l.Type(nil)
		l = a.laneFor("a")
		a.app.GetMouseCapture()(tcell.NewEventMouse(1, 1, tcell.WheelUp, tcell.ModNone), tview.MouseScrollUp)
		afterMouse = l.Type(nil)
		l = a.laneFor("a")
		a.echoFrame()
		afterFrame = l.Type(nil)
	})
	if afterKey || afterMouse {
		t.Errorf("the lane stayed open after a key (%v) or the mouse (%v)", afterKey, afterMouse)
	}
	if !afterFrame {
		t.Error("an echo's frame closed the lane")
	}
	var other Lane
	vh.onUI(func() { other = a.laneFor("b") })
	if other != nil {
		t.Error("a lane opened for a view other than the one whose state the keys act on")
	}
}
