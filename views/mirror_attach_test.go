package views

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// framesScreen is a view's terminal that keeps the text of every frame shown on it.
type framesScreen struct {
	tcell.SimulationScreen
	mu     sync.Mutex
	frames []string
	shown  chan struct{}
}

func (s *framesScreen) PutCell(x, y int, text string, st tcell.Style, _ int) { s.Put(x, y, text, st) }

func newFramesScreen(t *testing.T, w, h int) *framesScreen {
	t.Helper()
	s := &framesScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), shown: make(chan struct{}, 16)}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(w, h)
	return s
}

func (s *framesScreen) Show() {
	s.SimulationScreen.Show()
	cells, w, h := s.GetContents()
	var b strings.Builder
	for i := 0; i < w*h; i++ {
		if r := cells[i].Runes; len(r) > 0 {
			b.WriteString(string(r))
		} else {
			b.WriteByte(' ')
		}
	}
	s.mu.Lock()
	s.frames = append(s.frames, b.String())
	s.mu.Unlock()
	s.shown <- struct{}{}
}

func (s *framesScreen) Frames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.frames...)
}

func (s *framesScreen) waitFrame(t *testing.T) string {
	t.Helper()
	select {
	case <-s.shown:
	case <-time.After(10 * time.Second):
		t.Fatal("no frame was shown")
	}
	f := s.Frames()
	return f[len(f)-1]
}

// draw puts text at the top left of the logical screen and shows it, as the App draws a frame.
func draw(m *Mirror, text string) {
	m.PutStr(0, 0, text)
	m.Show()
}

// A view that attaches gets the frame the App draws for it as its first frame, never the one
// drawn before it came (a server draws nothing while no view is attached, so that one is stale).
func TestMirrorFirstFrameIsTheRedrawForTheView(t *testing.T) {
	m := NewMirrorSized(40, 5)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	a := newFramesScreen(t, 40, 5)
	if err := m.Attach("a", a, nil); err != nil {
		t.Fatal(err)
	}
	draw(m, "OLD-FRAME")
	if f := a.waitFrame(t); !strings.Contains(f, "OLD-FRAME") {
		t.Fatalf("view a shows %q", f)
	}
	m.Detach("a", "detached")
	m.PutStr(0, 0, "NEW-STATE") // drawn, not shown: no frame reaches anybody

	b := newFramesScreen(t, 40, 5)
	if err := m.Attach("b", b, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a first frame copied from the stale cells would show by now
	if f := b.Frames(); len(f) != 0 {
		t.Fatalf("view b got a frame before the App drew for it: %q", f)
	}
	m.Show()
	if f := b.waitFrame(t); !strings.Contains(f, "NEW-STATE") {
		t.Fatalf("view b's first frame is %q, want the App's redraw", f)
	}
}

// A view announced with Expect, for which the App drew while its terminal was set up, gets that
// frame at once when it attaches, before Attach returns; one of another size waits for the App's
// redraw at its size.
func TestMirrorExpectedViewGetsTheFrameDrawnForIt(t *testing.T) {
	m := NewMirrorSized(40, 5)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	redraws := make(chan struct{}, 4)
	m.OnViews(func(id string, attached bool) {
		if id == "" && attached {
			redraws <- struct{}{}
		}
	})
	if m.Drawing() {
		t.Fatal("the Mirror draws with no view attached or expected")
	}
	done := m.Expect()
	select {
	case <-redraws:
	default:
		t.Fatal("Expect did not ask the App to redraw")
	}
	if !m.Drawing() {
		t.Fatal("the Mirror does not draw for an expected view")
	}
	draw(m, "DRAWN-FOR-IT")
	v := newFramesScreen(t, 40, 5)
	if err := m.Attach("v", v, nil); err != nil {
		t.Fatal(err)
	}
	done()
	// Shown by Attach itself, not by the copier's goroutine once it is woken.
	if f := v.Frames(); len(f) != 1 || !strings.Contains(f[0], "DRAWN-FOR-IT") {
		t.Fatalf("the expected view's frames when Attach returned: %q", f)
	}
	m.Detach("v", "detached")
	if m.Drawing() {
		t.Fatal("the Mirror still draws once the expected view came and went")
	}

	done = m.Expect()
	draw(m, "AT-40x5")
	w := newFramesScreen(t, 30, 4)
	if err := m.Attach("w", w, nil); err != nil {
		t.Fatal(err)
	}
	done()
	time.Sleep(100 * time.Millisecond)
	if f := w.Frames(); len(f) != 0 {
		t.Fatalf("a view of another size got the frame drawn at 40x5: %q", f)
	}
}

func TestBlankCells(t *testing.T) {
	m := NewMirror()
	for _, c := range []struct {
		str   string
		style tcell.Style
		blank bool
	}{
		{" ", tcell.StyleDefault, true},
		{" ", tcell.StyleDefault.Foreground(tcell.ColorRed).Bold(true).Italic(true), true},
		{"x", tcell.StyleDefault, false},
		{" ", tcell.StyleDefault.Background(tcell.ColorBlue), false},
		{" ", tcell.StyleDefault.Reverse(true), false},
		{" ", tcell.StyleDefault.Underline(true), false},
		{" ", tcell.StyleDefault.StrikeThrough(true), false},
		{"  ", tcell.StyleDefault, false},
		{"\u00a0", tcell.StyleDefault, false},
	} {
		m.dmu.Lock()
		cell := cellOf(m.internText(c.str), m.internStyle(c.style), 0)
		m.dmu.Unlock()
		m.mu.Lock()
		got := m.tab.blank(cell)
		m.mu.Unlock()
		if got != c.blank {
			t.Errorf("%q %+v: blank = %v, want %v", c.str, c.style, got, c.blank)
		}
	}
	if !m.tab.blank(mcell{}) {
		t.Error("a cell never drawn is not blank")
	}
}

// The logical screen is as large as the latest view, cursor included: the simulation screen
// behind it keeps its first size (only its cells follow).
func TestMirrorCursorAnywhereOnALargeScreen(t *testing.T) {
	m := NewMirrorSized(160, 45)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	if w, h := m.Size(); w != 160 || h != 45 {
		t.Fatalf("the logical screen is %dx%d, want 160x45", w, h)
	}
	v := newFramesScreen(t, 160, 45)
	if err := m.Attach("v", v, nil); err != nil {
		t.Fatal(err)
	}
	m.PutStr(150, 44, "CORNER")
	m.ShowCursor(100, 30)
	m.Show()
	if f := v.waitFrame(t); !strings.Contains(f, "CORNER") {
		t.Fatalf("the bottom right corner did not reach the view: %q", f[len(f)-200:])
	}
	if x, y, vis := v.GetCursor(); x != 100 || y != 30 || !vis {
		t.Fatalf("the view's cursor is at %d,%d (visible %v), want 100,30", x, y, vis)
	}
	m.HideCursor()
	m.Show()
	// A frame of the view's own (its screen's first resize event redraws it whole) may still
	// be on its way: wait for the frames until one hides the cursor.
	deadline := time.Now().Add(10 * time.Second)
	for {
		v.waitFrame(t)
		if _, _, vis := v.GetCursor(); !vis {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the view's cursor shows after HideCursor")
		}
	}
}

// The App draws an announced view's first frame at once, not after the burst that gathers a
// program's output: the attach waits for that frame. A view that attached, or left, waits as
// any output does.
func TestAnnouncedViewDrawnWithoutPause(t *testing.T) {
	a := &App{}
	if w := a.pause(false, time.Now().Add(-time.Millisecond)); w <= burst || w > frame-time.Millisecond {
		t.Fatalf("a draw 1 ms after the last waits %v, want the rest of a frame", w)
	}
	a.viewsChanged("", true) // Mirror.Expect
	if w := a.pause(false, time.Time{}); w != 0 {
		t.Fatalf("the announced view's frame waits %v", w)
	}
	if w := a.pause(false, time.Time{}); w != burst {
		t.Fatalf("the draw after it waits %v, want the burst", w)
	}
	a.viewsChanged("view-1", true)
	if w := a.pause(false, time.Time{}); w != burst {
		t.Fatalf("a draw for an attached view waits %v, want the burst", w)
	}
	if w := a.pause(true, time.Time{}); w != 0 {
		t.Fatalf("an echo waits %v", w)
	}
}

// A view that attaches after a spell with no view sees every pane as it is now in its first
// frame, the pane without the focus too (it is not put off as a busy neighbour's frames are),
// though the App draws for it only what changed meanwhile and the chrome, not every cell; and
// the attach asks for no second frame after that one.
func TestAttachDrawsWhatChangedWhileNoViewWas(t *testing.T) {
	vh := newViewsHarness(t)
	left, err := vh.app.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"cat"}}, "", SideBySide)
	if err != nil {
		t.Fatal(err)
	}
	right, err := vh.app.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"cat"}}, left.ID(), SideBySide)
	if err != nil {
		t.Fatal(err)
	}
	vh.app.Focus(left.ID())
	redraws := make(chan bool, 16)
	vh.mirror.OnViews(func(id string, attached bool) {
		redraws <- attached
		vh.app.viewsChanged(id, attached)
	})
	vh.start()
	typeIn := func(in *host.Instance, text string) {
		if err := in.Process().Input([]byte(text + "\r")); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(in.Terminal().Text(), text) < 2 { // the echo and cat's copy
			if time.Now().After(deadline) {
				t.Fatalf("%s never showed in its pane:\n%s", text, in.Terminal().Text())
			}
			time.Sleep(time.Millisecond)
		}
	}
	a := vh.attachAnnounced("a")
	typeIn(left, "LEFT-ONE")
	typeIn(right, "RIGHT-ONE")
	for f := a.waitFrame(t); !strings.Contains(f, "LEFT-ONE") || !strings.Contains(f, "RIGHT-ONE"); f = a.waitFrame(t) {
	}
	vh.detachLast("a")
	// The right pane was drawn just now: as the busy pane without the focus, its next frame
	// would wait.
	typeIn(left, "LEFT-TWO")
	typeIn(right, "RIGHT-TWO")
	for len(redraws) > 0 {
		<-redraws
	}
	var drawn int
	vh.onUI(func() { drawn = vh.mirror.puts })
	b := vh.attachAnnounced("b")
	first := b.waitFrame(t)
	if !strings.Contains(first, "LEFT-TWO") || !strings.Contains(first, "RIGHT-TWO") {
		t.Fatalf("the first frame misses what the panes drew while no view was attached:\n%s", first)
	}
	var after int
	vh.onUI(func() { after = vh.mirror.puts })
	if cells := 160 * 50; after-drawn >= cells {
		t.Fatalf("the attach drew %d cells, a whole screen is %d: it drew what had not changed", after-drawn, cells)
	}
	// The detach's own notice (false) may come after the drain above: only attaches count.
	n := 0
	for len(redraws) > 0 {
		if <-redraws {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the attach asked the App for %d draws, want 1 (Expect's)", n)
	}
}

// The last view leaves scrolled back in a pane: its scroll goes with it, and the next view's
// first frame shows the pane as it is, though that attach draws only what changed.
func TestAttachAfterAViewLeftScrolledShowsThePaneLive(t *testing.T) {
	vh := newViewsHarness(t)
	in, err := vh.app.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"sh", "-c", "seq 1 300; echo LIVE\"\"-END; exec cat"}}, "", SideBySide)
	if err != nil {
		t.Fatal(err)
	}
	vh.start()
	vh.attach("a", 160, 50)
	vh.waitView("a", "LIVE-END", true)
	vh.keysIn("a", prefixKey, runeKey('['), tcell.NewEventKey(tcell.KeyPgUp, 0, tcell.ModNone))
	scrolled := vh.waitView("a", "LIVE-END", false)
	if !strings.Contains(scrolled, "/"+strconv.Itoa(in.Terminal().ScrollbackLen())+"]") {
		t.Fatalf("view a is not scrolled back:\n%s", scrolled)
	}
	vh.detachLast("a")
	b := vh.attachAnnounced("b")
	if first := b.waitFrame(t); !strings.Contains(first, "LIVE-END") {
		t.Fatalf("the first frame shows the pane scrolled back, as the view that left had it:\n%s", first)
	}
}

// attachAnnounced attaches a view of 160x50 as the server does: announced (Expect) while its
// terminal is set up, so that the App draws its first frame meanwhile.
func (vh *viewsHarness) attachAnnounced(id string) *framesScreen {
	vh.t.Helper()
	done := vh.mirror.Expect()
	defer done()
	// The server's attach gives the App the time the terminal takes to arrive to draw for the
	// announced view; wait for that draw, as a loaded machine may not have made it yet.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		vh.mirror.mu.Lock()
		fresh := vh.mirror.fresh
		vh.mirror.mu.Unlock()
		if fresh {
			break
		}
		if time.Now().After(deadline) {
			vh.t.Fatal("the App never drew for the announced view")
		}
	}
	sc := newFramesScreen(vh.t, 160, 50)
	if err := vh.mirror.Attach(id, sc, nil); err != nil {
		vh.t.Fatal(err)
	}
	return sc
}

// detachLast detaches view id, the last one, and waits for the frame drawn after it left, with
// no view: the draw loop gets to it a frame's pace after the last, and an attach before that
// draws everything itself.
func (vh *viewsHarness) detachLast(id string) {
	vh.t.Helper()
	vh.mirror.Detach(id, "detached")
	for deadline := time.Now().Add(10 * time.Second); vh.app.redrawAll.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			vh.t.Fatal("the frame after the view left was never drawn")
		}
	}
	vh.onUI(func() {}) // after that frame
}
