package views

import (
	"bytes"
	"io"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"

	"tickmux/vt"
)

// recTty is a terminal that records what a screen writes to it and never types.
type recTty struct {
	mu     sync.Mutex
	out    bytes.Buffer
	closed chan struct{}
	once   sync.Once
}

func newRecTty() *recTty { return &recTty{closed: make(chan struct{})} }

func (t *recTty) Start() error        { return nil }
func (t *recTty) Stop() error         { return nil }
func (t *recTty) Drain() error        { return t.Close() } // the screen stops reading
func (t *recTty) NotifyResize(func()) {}
func (t *recTty) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: 40, Height: 10}, nil
}
func (t *recTty) Read([]byte) (int, error) { <-t.closed; return 0, io.EOF }
func (t *recTty) Close() error             { t.once.Do(func() { close(t.closed) }); return nil }
func (t *recTty) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Write(b)
}

// newRecScreen is a tcell screen for terminal ti, initialized, drawing on a recTty.
func newRecScreen(tb testing.TB, ti *terminfo.Terminfo) (tcell.Screen, *recTty) {
	tb.Helper()
	tty := newRecTty()
	sc, err := tcell.NewTerminfoScreenFromTtyTerminfo(tty, ti)
	if err != nil {
		tb.Fatal(err)
	}
	if err := sc.Init(); err != nil {
		tb.Fatal(err)
	}
	return sc, tty
}

func (t *recTty) take() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.out.String()
	t.out.Reset()
	return s
}

// A view's terminal given styles fitted by the Mirror shows what it shows when given the RGB
// styles and fits them itself: the shortcut changes no colour a person sees.
func TestPaletteFitAsTcell(t *testing.T) {
	for _, term := range []string{"xterm-256color", "xterm-88color", "xterm", "linux"} {
		ti, err := terminfo.LookupTerminfo(term)
		if err != nil {
			t.Fatalf("%s: %v", term, err)
		}
		t.Run(term, func(t *testing.T) {
			t.Setenv("COLORTERM", "")
			t.Setenv("NO_COLOR", "")
			screen := func() (tcell.Screen, *recTty) {
				sc, tty := newRecScreen(t, ti)
				t.Cleanup(func() { sc.Fini(); tty.Close() })
				tty.take()
				return sc, tty
			}
			raw, rawOut := screen()
			fitted, fitOut := screen()
			n := paletteSize(fitted)
			if n != ti.Colors {
				t.Fatalf("palette size %d, want the terminfo's %d", n, ti.Colors)
			}
			rng := rand.New(rand.NewSource(int64(len(term))))
			rgb := func() tcell.Color { return tcell.NewRGBColor(rng.Int31n(256), rng.Int31n(256), rng.Int31n(256)) }
			var styles []tcell.Style
			for i := 0; i < 200; i++ {
				st := tcell.StyleDefault.Foreground(rgb()).Background(rgb())
				switch i % 4 {
				case 1:
					st = st.Underline(tcell.UnderlineStyleCurly, rgb())
				case 2:
					st = st.Foreground(tcell.PaletteColor(rng.Intn(ti.Colors))).Bold(true)
				case 3:
					st = st.Background(tcell.ColorDefault)
				}
				styles = append(styles, st)
			}
			vs := viewStyles{n: n}
			// What each terminal shows: the same colours in every cell, whatever bytes drew them
			// (a style whose colours fit to the same palette colours needs no new SGR).
			rawVT, fitVT := vt.New(40, 10, nil), vt.New(40, 10, nil)
			for frame := 0; frame < 3; frame++ {
				for i := range 40 * 10 {
					ix := rng.Intn(len(styles))
					raw.Put(i%40, i/40, "x", styles[ix])
					fitted.Put(i%40, i/40, "x", vs.style(styles, uint32(ix)))
				}
				raw.Show()
				fitted.Show()
				rawVT.Write([]byte(rawOut.take()))
				fitVT.Write([]byte(fitOut.take()))
				var a, b vt.Screen
				rawVT.Snapshot(&a)
				fitVT.Snapshot(&b)
				for i := range a.Cells {
					if a.Cells[i].Rune != b.Cells[i].Rune || a.Cells[i].Style != b.Cells[i].Style {
						t.Fatalf("frame %d, cell %d,%d: tcell fitting shows %q %+v, the Mirror's %q %+v", frame,
							i%a.Cols, i/a.Cols, a.Cells[i].Rune, a.Cells[i].Style, b.Cells[i].Rune, b.Cells[i].Style)
					}
				}
				if a.Cells[0].Rune != 'x' || a.Cells[0].Style == (vt.Style{}) {
					t.Fatalf("frame %d drew nothing the terminal shows: %q %+v", frame, a.Cells[0].Rune, a.Cells[0].Style)
				}
			}
		})
	}
}

// A terminal with true colour is given the RGB colours as they are.
func TestPaletteFitLeavesTrueColour(t *testing.T) {
	vs := viewStyles{n: 0}
	st := tcell.StyleDefault.Foreground(tcell.NewRGBColor(1, 2, 3))
	if got := vs.style([]tcell.Style{st}, 0); got != st {
		t.Fatalf("style changed for a true-colour terminal: %v", got)
	}
}

// The process's cache of fitted colours is bounded: a program printing every RGB colour does
// not grow it past maxFitColors.
func TestPaletteFitCacheBounded(t *testing.T) {
	for i := 0; i < 3*maxFitColors; i++ {
		fitColor(tcell.NewRGBColor(int32(i&0xff), int32(i>>8&0xff), 7), 256)
	}
	paletteFits.mu.Lock()
	n := len(paletteFits.m)
	paletteFits.mu.Unlock()
	if n > maxFitColors {
		t.Fatalf("cache holds %d colours, bound %d", n, maxFitColors)
	}
}

// A style table made anew (compacted) is fitted anew: an index names another style there.
func TestPaletteFitFollowsNewTable(t *testing.T) {
	vs := viewStyles{n: 256}
	red := tcell.StyleDefault.Foreground(tcell.NewRGBColor(255, 0, 0))
	blue := tcell.StyleDefault.Foreground(tcell.NewRGBColor(0, 0, 255))
	a := vs.style([]tcell.Style{red}, 0)
	b := vs.style([]tcell.Style{blue}, 0)
	if a == b {
		t.Fatalf("index 0 of a new table kept the old table's fitted style %v", a)
	}
	if fg, _, _ := b.Decompose(); fg != tcell.FindColor(tcell.NewRGBColor(0, 0, 255), palette(256)) {
		t.Fatalf("blue fitted to %v", fg)
	}
}

func palette(n int) []tcell.Color {
	p := make([]tcell.Color, n)
	for i := range p {
		p[i] = tcell.PaletteColor(i)
	}
	return p
}

// putRecorder is a view's screen of 256 colours that records the styles it is given.
type putRecorder struct {
	*lockedScreen
	mu     sync.Mutex
	styles []tcell.Style
}

func (s *putRecorder) Colors() int { return 256 }
func (s *putRecorder) Put(x, y int, str string, st tcell.Style) (string, int) {
	s.mu.Lock()
	s.styles = append(s.styles, st)
	s.mu.Unlock()
	return s.lockedScreen.Put(x, y, str, st)
}

// The Mirror gives a view's terminal of 256 colours palette colours, never RGB ones its screen
// would fit anew.
func TestMirrorGivesViewsPaletteColours(t *testing.T) {
	m := NewMirror()
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	sc := &putRecorder{lockedScreen: &lockedScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}}
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	sc.SetSize(20, 4)
	if err := m.Attach("a", sc, nil); err != nil {
		t.Fatal(err)
	}
	orange := tcell.NewRGBColor(255, 135, 0) // palette colour 208
	m.SetContent(0, 0, 'o', nil, tcell.StyleDefault.Foreground(orange).Background(tcell.NewRGBColor(0, 0, 135)))
	m.Show()
	var got []tcell.Style
	for deadline := time.Now().Add(20 * time.Second); len(got) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard, not a timing
			t.Fatal("the view was given no cell")
		}
		sc.mu.Lock()
		got = append(got, sc.styles...)
		sc.mu.Unlock()
	}
	for _, st := range got {
		if fg, bg, _ := st.Decompose(); fg.IsRGB() || bg.IsRGB() {
			t.Fatalf("the view was given an RGB style %v", st)
		}
	}
	if fg, bg, _ := got[0].Decompose(); fg != tcell.PaletteColor(208) || bg != tcell.PaletteColor(18) {
		t.Fatalf("the view was given fg %v bg %v, want palette 208 and 18", fg, bg)
	}
}

// The first frame on a new view's screen of 256 colours (what every attach draws), with the
// distinct RGB colours of a theme and a colourful pane: tcell fitting them anew against the
// Mirror's fitted styles. go test -run XXX -bench FirstFrameColours ./views
func BenchmarkFirstFrameColours(b *testing.B) {
	ti, err := terminfo.LookupTerminfo("xterm-256color")
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("COLORTERM", "")
	b.Setenv("NO_COLOR", "")
	var styles []tcell.Style
	for i := 0; i < 24; i++ { // distinct RGB colours
		styles = append(styles, tcell.StyleDefault.Foreground(tcell.NewRGBColor(int32(i*10), 200-int32(i*7), 90)).Background(tcell.NewRGBColor(20, int32(i*5), 40)))
	}
	for _, mode := range []string{"tcell", "mirror"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				sc, _ := newRecScreen(b, ti)
				vs := viewStyles{n: paletteSize(sc)}
				w, h := sc.Size()
				for i := 0; i < w*h; i++ {
					ix := (i / 7) % len(styles)
					st := styles[ix]
					if mode == "mirror" {
						st = vs.style(styles, uint32(ix))
					}
					sc.Put(i%w, i/w, "x", st)
				}
				sc.Show()
				sc.Fini()
			}
		})
	}
}
