package viewterm_test

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
	_ "github.com/gdamore/tcell/v2/terminfo/extended"

	"tickmux/server/mirror"
	"tickmux/server/viewterm"
	"tickmux/vt"
)

// tcellView is a tcell screen as the Mirror draws on a view.
type tcellView struct{ tcell.Screen }

func (v tcellView) PutCell(x, y int, text string, st tcell.Style, _ int) { v.Put(x, y, text, st) }

// PollEvent drops the resize tcell reports at Init (the terminal's size, unchanged): the Mirror
// would redraw the view whole for it, at a moment of its own.
func (v tcellView) PollEvent() tcell.Event {
	for {
		ev := v.Screen.PollEvent()
		if _, ok := ev.(*tcell.EventResize); !ok {
			return ev
		}
	}
}

// signalled tells the test the frames the Mirror shows on a view: the text of cell 0,0 (the
// test's frame counter) in each.
type signalled struct {
	mirror.ViewScreen
	counter string
	shown   chan string
}

func (s *signalled) PutCell(x, y int, text string, st tcell.Style, width int) {
	if x == 0 && y == 0 {
		s.counter = text
	}
	s.ViewScreen.PutCell(x, y, text, st, width)
}
func (s *signalled) Show() { s.ViewScreen.Show(); s.shown <- s.counter }
func (s *signalled) Sync() { s.ViewScreen.Sync(); s.shown <- s.counter }

// waitShown waits for the frame whose counter is want (a frame for modes alone may come first).
func waitShown(t *testing.T, name string, s *signalled, want string) {
	t.Helper()
	for {
		select {
		case got := <-s.shown:
			if got == want {
				return
			}
		case <-time.After(20 * time.Second): // a hang guard, not a timing
			t.Fatalf("%s showed no frame %q", name, want)
		}
	}
}

func lookup(t testing.TB, name string) *terminfo.Terminfo {
	t.Helper()
	ti, err := terminfo.LookupTerminfo(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ti
}

var texts = []string{"a", "b", "Z", "~", " ", "─", "│", "┌", "é", "e\u0301", "世", "界", "🙂", "ж", "█"}

func randomStyle(rng *rand.Rand) tcell.Style {
	st := tcell.StyleDefault
	colour := func() tcell.Color {
		switch rng.Intn(5) {
		case 0:
			return tcell.ColorDefault
		case 1:
			return tcell.PaletteColor(rng.Intn(16))
		case 2:
			return tcell.PaletteColor(rng.Intn(256))
		default:
			return tcell.NewRGBColor(rng.Int31n(256), rng.Int31n(256), rng.Int31n(256))
		}
	}
	st = st.Foreground(colour()).Background(colour())
	if rng.Intn(3) == 0 {
		st = st.Bold(rng.Intn(2) == 0).Dim(rng.Intn(4) == 0).Italic(rng.Intn(2) == 0).Reverse(rng.Intn(3) == 0).
			Blink(rng.Intn(5) == 0).StrikeThrough(rng.Intn(4) == 0)
	}
	if rng.Intn(4) == 0 {
		ul := []tcell.UnderlineStyle{tcell.UnderlineStyleSolid, tcell.UnderlineStyleDouble, tcell.UnderlineStyleCurly, tcell.UnderlineStyleDotted, tcell.UnderlineStyleDashed}
		st = st.Underline(ul[rng.Intn(len(ul))], colour())
	}
	if rng.Intn(8) == 0 {
		return tcell.StyleDefault
	}
	return st
}

// compare fails when the two terminals do not show the same: every cell's character, marks,
// width and look, and the cursor.
func compare(t *testing.T, what string, want, got *vt.Terminal) {
	t.Helper()
	var a, b vt.Screen
	want.Snapshot(&a)
	got.Snapshot(&b)
	for i := range a.Cells {
		ca, cb := a.Cells[i], b.Cells[i]
		if ca.Rune != cb.Rune || string(ca.Comb) != string(cb.Comb) || ca.Width != cb.Width || ca.Style != cb.Style {
			t.Fatalf("%s, cell %d,%d: tcell's screen shows %q%q w%d %+v, the view terminal %q%q w%d %+v\n tcell:\n%s\n ours:\n%s",
				what, i%a.Cols, i/a.Cols, ca.Rune, ca.Comb, ca.Width, ca.Style, cb.Rune, cb.Comb, cb.Width, cb.Style, a.Text(), b.Text())
		}
	}
	if a.Cursor.Visible != b.Cursor.Visible || a.Cursor.Visible && (a.Cursor.X != b.Cursor.X || a.Cursor.Y != b.Cursor.Y || a.Cursor.Shape != b.Cursor.Shape) {
		t.Fatalf("%s: tcell's cursor %+v, the view terminal's %+v", what, a.Cursor, b.Cursor)
	}
	if a.Modes != b.Modes {
		t.Fatalf("%s: tcell's modes %+v, the view terminal's %+v", what, a.Modes, b.Modes)
	}
}

// A view drawn by the Mirror on a Terminal shows, on every kind of terminal, what it shows on
// tcell's own screen given the same frames: random cells of every width, marks, palette and RGB
// colours, attributes, underline styles and colours, the cursor moving, hiding and changing
// shape, whole redraws, modes set and reset, and the terminal given back at the end.
func TestDrawsAsTcell(t *testing.T) {
	cases := []struct {
		term, locale string
		frames       int
	}{
		{"xterm-256color", "en_US.UTF-8", 40},
		{"xterm", "en_US.UTF-8", 30},
		{"xterm-88color", "en_US.UTF-8", 20},
		{"xterm-direct", "en_US.UTF-8", 30},
		{"screen-256color", "en_US.UTF-8", 30},
		{"tmux-256color", "en_US.UTF-8", 30},
		{"rxvt-unicode-256color", "en_US.UTF-8", 20},
		{"linux", "en_US.UTF-8", 20},
		{"xterm-256color", "C", 20},
		{"linux", "POSIX", 20},
		{"vt100", "en_US.UTF-8", 3}, // tcell sleeps for vt100's padding
	}
	for _, tc := range cases {
		t.Run(tc.term+"/"+tc.locale, func(t *testing.T) {
			t.Setenv("LC_ALL", tc.locale)
			t.Setenv("COLORTERM", "")
			t.Setenv("NO_COLOR", "")
			t.Setenv("TCELL_TRUECOLOR", "")
			t.Setenv("TCELL_ALTSCREEN", "")
			t.Setenv("LINES", "")
			t.Setenv("COLUMNS", "")
			drawBoth(t, lookup(t, tc.term), tc.frames, int64(len(tc.term)*31+len(tc.locale)))
		})
	}
}

func drawBoth(t *testing.T, ti *terminfo.Terminfo, frames int, seed int64) {
	const w, h = 24, 7
	tcTty, ourTty := newFakeTty(w, h), newFakeTty(w, h)
	tsc, err := tcell.NewTerminfoScreenFromTtyTerminfo(tcTty, ti)
	if err != nil {
		t.Fatal(err)
	}
	if err := tsc.Init(); err != nil {
		t.Fatal(err)
	}
	ours := viewterm.New(ourTty, ti, viewterm.Charset(os.Getenv))
	if err := ours.Init(); err != nil {
		t.Fatal(err)
	}
	if ours.Colors() != tsc.Colors() {
		t.Fatalf("Colors: tcell %d, ours %d", tsc.Colors(), ours.Colors())
	}
	a := &signalled{ViewScreen: tcellView{tsc}, shown: make(chan string, 64)}
	b := &signalled{ViewScreen: ours, shown: make(chan string, 64)}
	m := mirror.NewSized(w, h)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	if err := m.Attach("tcell", a, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Attach("ours", b, nil); err != nil {
		t.Fatal(err)
	}
	m.EnablePaste()
	m.EnableMouse(tcell.MouseButtonEvents | tcell.MouseDragEvents)
	vtA, vtB := vt.New(w, h, nil), vt.New(w, h, nil)
	rng := rand.New(rand.NewSource(seed))
	shapes := []tcell.CursorStyle{tcell.CursorStyleDefault, tcell.CursorStyleSteadyBar, tcell.CursorStyleBlinkingUnderline, tcell.CursorStyleSteadyBlock}
	for f := 0; f < frames; f++ {
		counter := string(rune('A' + f%26))
		m.SetContent(0, 0, rune(counter[0]), nil, tcell.StyleDefault.Foreground(tcell.PaletteColor(f%8+1))) // every frame changes it
		n := 1 + rng.Intn(40)
		if f == 0 {
			n = w * h
		}
		for i := 0; i < n; i++ {
			x, y := rng.Intn(w), rng.Intn(h)
			if x == 0 && y == 0 {
				x = 1
			}
			m.Put(x, y, texts[rng.Intn(len(texts))], randomStyle(rng))
		}
		switch rng.Intn(4) {
		case 0:
			m.HideCursor()
		default:
			m.ShowCursor(rng.Intn(w), rng.Intn(h))
			m.SetCursorStyle(shapes[rng.Intn(len(shapes))])
		}
		if f == frames/2 {
			m.EnableFocus()
			m.DisableMouse()
		}
		if f%9 == 8 {
			m.Sync()
		} else {
			m.Show()
		}
		waitShown(t, "tcell", a, counter)
		waitShown(t, "ours", b, counter)
		oa, ob := tcTty.take(), ourTty.take()
		if os.Getenv("VT_DEBUG") != "" {
			t.Logf("frame %d\n tcell %q\n ours  %q", f, oa, ob)
		}
		vtA.Write([]byte(oa))
		vtB.Write([]byte(ob))
		compare(t, fmt.Sprintf("frame %d", f), vtA, vtB)
	}
	m.Fini()
	vtA.Write([]byte(tcTty.take()))
	outB := ourTty.take()
	vtB.Write([]byte(outB))
	compare(t, "after Fini", vtA, vtB)
	var s vt.Screen
	vtB.Snapshot(&s)
	if s.Modes.AltScreen && ti.EnterCA != "" || s.Modes.Mouse != 0 || s.Modes.BracketedPaste || s.Modes.FocusEvents || !s.Cursor.Visible && ti.ShowCursor != "" {
		t.Fatalf("the terminal is not given back: %+v, cursor %+v", s.Modes, s.Cursor)
	}
	if strings.Contains(outB, "$<") {
		t.Fatalf("padding written: %q", outB)
	}
	if ourTty.stopped != 1 || ourTty.closed != 1 {
		t.Fatalf("tty stopped %d and closed %d times, want once", ourTty.stopped, ourTty.closed)
	}
}
