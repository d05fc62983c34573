package views

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/vt"
)

// fakeBackend is a terminal fed by the test; it records what the view sends.
type fakeBackend struct {
	term    *vt.Terminal
	mu      sync.Mutex
	input   []byte
	resizes [][2]int
}

func newFakeBackend(cols, rows int) *fakeBackend {
	return &fakeBackend{term: vt.New(cols, rows, nil)}
}

func (f *fakeBackend) Terminal() *vt.Terminal { return f.term }

func (f *fakeBackend) Input(b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.input = append(f.input, b...)
	return nil
}

func (f *fakeBackend) Resize(cols, rows int) error {
	f.mu.Lock()
	f.resizes = append(f.resizes, [2]int{cols, rows})
	f.mu.Unlock()
	f.term.Resize(cols, rows)
	return nil
}

func (f *fakeBackend) sent() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := string(f.input)
	f.input = nil
	return s
}

// drawView draws v on a fresh w x h simulation screen and returns it as an ASCII picture, one
// line per row between bars.
func drawView(t *testing.T, v *TerminalView, w, h int) (tcell.SimulationScreen, string) {
	t.Helper()
	sc := tcell.NewSimulationScreen("UTF-8")
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sc.Fini)
	sc.SetSize(w, h)
	v.SetRect(0, 0, w, h)
	v.Draw(sc)
	v.PlaceCursor(sc)
	sc.Show()
	return sc, screenPicture(sc)
}

func screenPicture(sc tcell.SimulationScreen) string {
	cells, w, h := sc.GetContents()
	var b strings.Builder
	for y := 0; y < h; y++ {
		b.WriteByte('|')
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				continue // the right half of a wide character
			}
			b.WriteString(string(c.Runes))
		}
		b.WriteString("|\n")
	}
	return b.String()
}

func termPicture(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func newTestView(t *testing.T, f *fakeBackend) *TerminalView {
	v := NewTerminalView(f, TerminalOptions{RequestDraw: func() {}})
	t.Cleanup(v.Close)
	return v
}

// spec: H-S2
func TestViewDrawsCellsAndSizesThePTY(t *testing.T) {
	f := newFakeBackend(80, 24)
	v := newTestView(t, f)
	f.term.Write([]byte("\x1b[31mred\x1b[m 中文\r\ne\u0301 \x1b[7mrev\x1b[m"))
	sc, got := drawView(t, v, 10, 3)
	want := termPicture("|red 中文  |\n|e\u0301 rev     |\n|          |")
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	if len(f.resizes) != 1 || f.resizes[0] != [2]int{10, 3} {
		t.Errorf("resizes %v, want one to 10x3", f.resizes)
	}
	cells, w, _ := sc.GetContents()
	if fg, _, _ := cells[0].Style.Decompose(); fg != tcell.PaletteColor(1) {
		t.Errorf("'r' has foreground %v, want palette 1", fg)
	}
	if _, _, attrs := cells[w+2].Style.Decompose(); attrs&tcell.AttrReverse == 0 {
		t.Errorf("'r' of rev is not reversed")
	}
	if x, y, visible := sc.GetCursor(); !visible || x != 5 || y != 1 {
		t.Errorf("cursor at (%d,%d) visible=%v, want (5,1)", x, y, visible)
	}
}

// docs/reference.md "Terminal panes and `tickmux snap`": the wheel scrolls back.
func TestViewWheelScrollsBack(t *testing.T) {
	f := newFakeBackend(6, 2)
	v := newTestView(t, f)
	drawView(t, v, 6, 2)
	for _, l := range []string{"one", "two", "three", "four"} {
		f.term.Write([]byte(l + "\r\n"))
	}
	v.Mouse(tview.MouseScrollUp, tcell.NewEventMouse(1, 1, tcell.WheelUp, 0))
	_, got := drawView(t, v, 6, 2)
	want := termPicture(`
		|o[3/3]|
		|two   |`)
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	v.Key(tcell.NewEventKey(tcell.KeyRune, 'x', tcell.ModNone))
	if _, got = drawView(t, v, 6, 2); got != termPicture("|four  |\n|      |") {
		t.Errorf("a key did not return to the live screen:\n%s", got)
	}
}

// docs/reference.md "Terminal panes and `tickmux snap`": mouse reports only when the program asked.
func TestViewForwardsMouseOnlyWhenAsked(t *testing.T) {
	f := newFakeBackend(10, 3)
	v := newTestView(t, f)
	drawView(t, v, 10, 3)
	click := tcell.NewEventMouse(2, 1, tcell.Button1, 0)
	v.Mouse(tview.MouseLeftDown, click)
	if s := f.sent(); s != "" {
		t.Errorf("sent %q before the program asked for the mouse", s)
	}
	f.term.Write([]byte("\x1b[?1000h\x1b[?1006h"))
	v.Mouse(tview.MouseLeftDown, click)
	v.Mouse(tview.MouseLeftUp, tcell.NewEventMouse(2, 1, 0, 0))
	if s, want := f.sent(), "\x1b[<0;3;2M\x1b[<0;3;2m"; s != want {
		t.Errorf("sent %q, want %q", s, want)
	}
}

// docs/reference.md "Terminal panes and `tickmux snap`": focus events only when the program asked.
func TestViewFocusEventsWhenAsked(t *testing.T) {
	f := newFakeBackend(10, 3)
	v := newTestView(t, f)
	v.FocusChanged(true)
	f.term.Write([]byte("\x1b[?1004h"))
	v.FocusChanged(false)
	v.FocusChanged(true)
	if s := f.sent(); s != "\x1b[O\x1b[I" {
		t.Errorf("sent %q", s)
	}
}

// docs/reference.md "Terminal panes and `tickmux snap`": bracketed paste when the program asked.
func TestViewPasteIsBracketedWhenAsked(t *testing.T) {
	f := newFakeBackend(10, 3)
	v := newTestView(t, f)
	v.Paste("a\nb")
	if s := f.sent(); s != "a\rb" {
		t.Errorf("sent %q", s)
	}
	f.term.Write([]byte("\x1b[?2004h"))
	v.Paste("x\x1b[201~y")
	if s, want := f.sent(), "\x1b[200~x [201~y\x1b[201~"; s != want {
		t.Errorf("sent %q, want %q", s, want)
	}
}

// Key table (README "Using tickmux"): prefix `[`: scroll mode search and copy.
func TestScrollModeSearchAndCopy(t *testing.T) {
	f := newFakeBackend(12, 3)
	v := newTestView(t, f)
	var copied []string
	v.opts.Clipboard = func(s string) { copied = append(copied, s) }
	drawView(t, v, 12, 3)
	f.term.Write([]byte("alpha one\r\nbeta two\r\ngamma three\r\ndelta four\r\n$ "))
	v.StartScroll()
	v.ScrollAction(keymap.SearchBackward)
	for _, r := range "beta" {
		v.ScrollKey(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
	v.ScrollKey(tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone))
	_, got := drawView(t, v, 12, 3)
	want := termPicture(`
		|beta tw[1/2]|
		|gamma three |
		|delta four  |`)
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	v.ScrollAction(keymap.StartSelection)
	v.ScrollAction(keymap.ScrollDown)
	for i := 0; i < 4; i++ {
		v.ScrollAction(keymap.CursorRight)
	}
	v.ScrollAction(keymap.Copy)
	if len(copied) != 1 || copied[0] != "beta two\ngamma" {
		t.Errorf("copied %q, want [\"beta two\\ngamma\"]", copied)
	}
	if v.Scrolling() {
		t.Error("copy did not leave scroll mode")
	}
}

// docs/reference.md CONFIGURATION: `clipboard = "on"` lets a program set the clipboard (OSC 52).
func TestProgramClipboardReachesTheClipboard(t *testing.T) {
	f := newFakeBackend(10, 3)
	v := newTestView(t, f)
	var copied []string
	v.opts.Clipboard = func(s string) { copied = append(copied, s) }
	v.opts.ProgramClipboard = true
	f.term.Write([]byte("\x1b]52;c;aGVsbG8=\x07"))
	drawView(t, v, 10, 3)
	if len(copied) != 1 || copied[0] != "hello" {
		t.Errorf("copied %q", copied)
	}
}

// By default a program cannot set the person's clipboard (OSC 52), as with tmux's
// set-clipboard external; copy mode still copies.
// docs/reference.md CONFIGURATION: `clipboard` is off by default.
func TestProgramClipboardIsOffByDefault(t *testing.T) {
	f := newFakeBackend(10, 3)
	v := newTestView(t, f)
	var copied []string
	v.opts.Clipboard = func(s string) { copied = append(copied, s) }
	f.term.Write([]byte("\x1b]52;c;aGVsbG8=\x07hi"))
	drawView(t, v, 10, 3)
	if len(copied) != 0 {
		t.Fatalf("a program set the clipboard: %q", copied)
	}
	v.StartScroll()
	v.ScrollAction(keymap.Copy)
	if len(copied) != 1 || copied[0] != "hi" {
		t.Errorf("copy mode copied %q, want [hi]", copied)
	}
}

// TestViewOnARealPTY runs a shell on a PTY behind the view: keys reach it, its output is drawn,
// and the PTY gets the view's size.
func TestViewOnARealPTY(t *testing.T) {
	p, err := host.Launch(host.LaunchSpec{Argv: []string{"sh", "-c", `read line; stty size; echo "got:$line"; sleep 5`}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	draws := make(chan struct{}, 1)
	v := NewTerminalView(p, TerminalOptions{RequestDraw: func() {
		select {
		case draws <- struct{}{}:
		default:
		}
	}})
	defer v.Close()
	sc := tcell.NewSimulationScreen("UTF-8")
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	defer sc.Fini()
	sc.SetSize(30, 5)
	v.SetRect(0, 0, 30, 5)
	v.Draw(sc) // sizes the PTY before the shell asks, which it does after reading the line
	for _, r := range "hi" {
		v.Key(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
	v.Key(tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone))
	deadline := time.Now().Add(20 * time.Second)
	for {
		v.Draw(sc)
		sc.Show()
		got := screenPicture(sc)
		if strings.Contains(got, "got:hi") {
			if !strings.Contains(got, "5 30") {
				t.Errorf("the shell did not see the view's size:\n%s", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell's answer never showed:\n%s", got)
		}
		select {
		case <-draws:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestViewDrawsEachCellAtVTsWidth: tmux (and vt) give ☺ with VS16 one cell and join a space, a
// zero-width joiner and 日 into one narrow cell; tcell measures those as two cells. The view
// draws each cell at vt's width, so the letters after them stay visible and in their columns;
// two regional indicators (one cell each) are drawn as one flag over both.
func TestViewDrawsEachCellAtVTsWidth(t *testing.T) {
	f := newFakeBackend(20, 4)
	v := newTestView(t, f)
	f.term.Write([]byte("\u263a\ufe0fA|\r\nx\u200dy\r\necho 日本語 abc\r\n👨\u200d👩\u200d👧z 🇫🇷y \u1100\u1161\u11a8k"))
	sc, _ := drawView(t, v, 20, 4)
	var s vt.Screen
	f.term.Snapshot(&s)
	for row := 0; row < 4; row++ {
		x := 0
		for x < 20 {
			str, _, w := sc.Get(x, row)
			c := s.Row(row)[x]
			if c.Width == 0 {
				x++
				continue
			}
			if pair := isRegional(c.Rune) && isRegional(s.Row(row)[x+1].Rune); pair && w != 2 || !pair && w != int(c.Width) {
				t.Errorf("cell (%d,%d) %q+%q: drawn %q, %d wide; vt says %d", x, row, c.Rune, string(c.Comb), str, w, c.Width)
			}
			x += max(w, 1)
		}
	}
	for _, want := range []struct {
		x, y int
		s    string
	}{{1, 0, "A"}, {11, 2, "b"}, {2, 3, "z"}, {4, 3, "🇫🇷"}, {6, 3, "y"}, {10, 3, "k"}} {
		if got, _, _ := sc.Get(want.x, want.y); got != want.s {
			t.Errorf("cell (%d,%d) is %q, want %q", want.x, want.y, got, want.s)
		}
	}
}
