package mirror

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/internal/screentest"
)

// framesScreen is a view's terminal that keeps the text of every frame shown on it.
type framesScreen = screentest.Frames

func newFramesScreen(t *testing.T, w, h int) *framesScreen { return screentest.NewFrames(t, w, h) }

// draw puts text at the top left of the logical screen and shows it, as the App draws a frame.
func draw(m *Mirror, text string) {
	m.PutStr(0, 0, text)
	m.Show()
}

// A view that attaches gets the frame the App draws for it as its first frame, never the one
// drawn before it came (a server draws nothing while no view is attached, so that one is stale).
func TestMirrorFirstFrameIsTheRedrawForTheView(t *testing.T) {
	m := NewSized(40, 5)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	a := newFramesScreen(t, 40, 5)
	if err := m.Attach("a", a, nil); err != nil {
		t.Fatal(err)
	}
	draw(m, "OLD-FRAME")
	if f := a.WaitFrame(t); !strings.Contains(f, "OLD-FRAME") {
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
	if f := b.WaitFrame(t); !strings.Contains(f, "NEW-STATE") {
		t.Fatalf("view b's first frame is %q, want the App's redraw", f)
	}
}

// A view announced with Expect, for which the App drew while its terminal was set up, gets that
// frame at once when it attaches, before Attach returns; one of another size waits for the App's
// redraw at its size.
func TestMirrorExpectedViewGetsTheFrameDrawnForIt(t *testing.T) {
	m := NewSized(40, 5)
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
	m := New()
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
	m := NewSized(160, 45)
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
	if f := v.WaitFrame(t); !strings.Contains(f, "CORNER") {
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
		v.WaitFrame(t)
		if _, _, vis := v.GetCursor(); !vis {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the view's cursor shows after HideCursor")
		}
	}
}
