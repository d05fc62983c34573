package mirror

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/gdamore/tcell/v2"
)

// TestMirrorCellsAsTcell applies the same random Screen operations to a tcell simulation screen
// and to a Mirror, and compares every cell (and the cells around the screen) after each step:
// wide graphemes, combining marks, zero-width text, styles with URLs and ColorNone, Fill and
// Clear, coordinates off the screen, resizes, locked regions. After each Show, the frame the
// views are copied from must hold every unlocked cell as drawn.
func TestMirrorCellsAsTcell(t *testing.T) {
	pieces := []string{"a", "Z", " ", "", "中", "😀", "e\u0301", "\u0301", "👍🏽", "🇫🇷", "\r\n", "\t",
		"\x00", "\x1b", "ab", "中文x", "\u200b", "x\u0308\u0301y", "ﾊ", "\u00a0", "\xff", "─", "│", "…", "\u0308"}
	runes := []rune{' ', 'x', '中', 0, 'é', '😀', '\u0301', -1}
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		str := func() string {
			var b strings.Builder
			for n := rng.IntN(4); n >= 0; n-- {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			return b.String()
		}
		style := func() tcell.Style {
			st := tcell.StyleDefault
			switch rng.IntN(9) {
			case 0:
				return st
			case 1:
				st = st.Foreground(tcell.ColorRed)
			case 2:
				st = st.Background(tcell.PaletteColor(rng.IntN(256)))
			case 3:
				st = st.Bold(true).Underline(tcell.UnderlineStyleCurly, tcell.ColorGreen)
			case 4:
				st = st.Url(fmt.Sprintf("https://example.com/%d", rng.IntN(3000))).UrlId("id")
			case 5:
				st = st.Foreground(tcell.ColorNone).Reverse(true)
			case 6:
				st = st.Background(tcell.ColorNone).Foreground(tcell.NewRGBColor(1, 2, int32(rng.IntN(256))))
			case 7:
				st = st.Foreground(tcell.ColorNone).Background(tcell.ColorNone)
			case 8:
				st = st.Url(fmt.Sprintf("https://example.com/%d", rng.IntN(3000))).Background(tcell.ColorNone)
			}
			return st
		}

		ref := tcell.NewSimulationScreen("UTF-8")
		if err := ref.Init(); err != nil {
			t.Fatal(err)
		}
		m := NewSized(1+rng.IntN(12), 1+rng.IntN(6))
		if err := m.Init(); err != nil {
			t.Fatal(err)
		}
		w, h := m.Size()
		ref.SetSize(w, h)
		var log []string
		for step := 0; step < 1500; step++ {
			x, y := rng.IntN(w+6)-3, rng.IntN(h+4)-2
			var op string
			switch k := rng.IntN(100); {
			case k < 30:
				s, st := str(), style()
				rs, rw := ref.Put(x, y, s, st)
				ms, mw := m.Put(x, y, s, st)
				op = fmt.Sprintf("Put(%d, %d, %q, %v)", x, y, s, st)
				if rs != ms || rw != mw {
					t.Fatalf("seed %d: %s returned %q %d, tcell's %q %d\n%s", seed, op, ms, mw, rs, rw, strings.Join(log, "\n"))
				}
			case k < 45:
				s, st := str()+str(), style()
				ref.PutStrStyled(x, y, s, st)
				m.PutStrStyled(x, y, s, st)
				op = fmt.Sprintf("PutStrStyled(%d, %d, %q, %v)", x, y, s, st)
			case k < 50:
				s := str()
				ref.PutStr(x, y, s)
				m.PutStr(x, y, s)
				op = fmt.Sprintf("PutStr(%d, %d, %q)", x, y, s)
			case k < 65:
				r, st := runes[rng.IntN(len(runes))], style()
				var comb []rune
				for n := rng.IntN(3); n > 1; n-- {
					comb = append(comb, runes[rng.IntN(len(runes))])
				}
				ref.SetContent(x, y, r, comb, st)
				m.SetContent(x, y, r, comb, st)
				op = fmt.Sprintf("SetContent(%d, %d, %q, %q, %v)", x, y, r, comb, st)
			case k < 72:
				st := style()
				ch := []rune(str())
				ref.SetCell(x, y, st, ch...)
				m.SetCell(x, y, st, ch...)
				op = fmt.Sprintf("SetCell(%d, %d, %v, %q)", x, y, st, ch)
			case k < 75:
				r, st := runes[rng.IntN(len(runes))], style()
				ref.Fill(r, st)
				m.Fill(r, st)
				op = fmt.Sprintf("Fill(%q, %v)", r, st)
			case k < 77:
				ref.Clear()
				m.Clear()
				op = "Clear()"
			case k < 83:
				lw, lh, lock := rng.IntN(5)-1, rng.IntN(4)-1, rng.IntN(3) > 0
				ref.LockRegion(x, y, lw, lh, lock)
				m.LockRegion(x, y, lw, lh, lock)
				op = fmt.Sprintf("LockRegion(%d, %d, %d, %d, %v)", x, y, lw, lh, lock)
			case k < 86:
				w, h = rng.IntN(14), rng.IntN(8)
				ref.SetSize(w, h)
				m.setSize(w, h)
				op = fmt.Sprintf("size %dx%d", w, h)
			default:
				m.Show()
				op = "Show()"
				checkShown(t, m)
			}
			log = append(log, op)
			if rw, rh := ref.Size(); rw != w || rh != h {
				t.Fatalf("seed %d: tcell's size %dx%d, want %dx%d", seed, rw, rh, w, h)
			}
			if mw, mh := m.Size(); mw != w || mh != h {
				t.Fatalf("seed %d: after %s the Mirror is %dx%d, want %dx%d", seed, op, mw, mh, w, h)
			}
			for cy := -1; cy <= h; cy++ {
				for cx := -1; cx <= w; cx++ {
					rs, rst, rw := ref.Get(cx, cy)
					ms, mst, mw := m.Get(cx, cy)
					if rs != ms || rst != mst || rw != mw {
						t.Fatalf("seed %d, step %d: cell %d,%d is %q %v %d, tcell's %q %v %d; the steps:\n%s",
							seed, step, cx, cy, ms, mst, mw, rs, rst, rw, strings.Join(log[max(0, len(log)-30):], "\n"))
					}
					rr, rc, rst2, rw2 := ref.GetContent(cx, cy)
					mr, mc, mst2, mw2 := m.GetContent(cx, cy)
					if rr != mr || !reflect.DeepEqual(rc, mc) || rst2 != mst2 || rw2 != mw2 {
						t.Fatalf("seed %d: GetContent(%d, %d) = %q %q %v %d, tcell's %q %q %v %d", seed, cx, cy, mr, mc, mst2, mw2, rr, rc, rst2, rw2)
					}
				}
			}
		}
		m.Fini()
		ref.Fini()
	}
}

// checkShown: after a Show, the frame the copiers read holds every unlocked cell as drawn (the
// column under a wide grapheme aside).
func checkShown(t *testing.T, m *Mirror) {
	t.Helper()
	m.dmu.Lock()
	defer m.dmu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.w != m.dw || m.h != m.dh {
		t.Fatalf("the frame shown is %dx%d, the screen %dx%d", m.w, m.h, m.dw, m.dh)
	}
	for y := 0; y < m.dh; y++ {
		for x := 0; x < m.dw; x++ {
			i := y*m.dw + x
			d := m.drawn[i]
			if d.flags()&cellLocked == 0 {
				s := m.cells[i]
				if textOf(m.tab.texts, s.text()) != textOf(m.tab.texts, d.text()) || m.tab.styles[s.style] != m.tab.styles[d.style] {
					t.Fatalf("cell %d,%d shown as %q, drawn as %q", x, y, textOf(m.tab.texts, s.text()), textOf(m.tab.texts, d.text()))
				}
			}
			if d.width() > 1 {
				x++
			}
		}
	}
}

// TestMirrorTablesStayBounded: a screen drawn over and over with new styles and texts keeps
// tables bounded by what its cells name, and keeps showing what was drawn.
func TestMirrorTablesStayBounded(t *testing.T) {
	m := NewSized(20, 5)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	var drawnAt [100]int // which i drew each cell
	for c := range drawnAt {
		drawnAt[c] = -1
	}
	check := func() {
		t.Helper()
		for c, i := range drawnAt {
			if i < 0 {
				continue
			}
			s, st, _ := m.Get(c%20, c/20)
			want := tcell.StyleDefault.Url(fmt.Sprintf("https://example.com/%d", i))
			if s != string(rune(0x4e00+i)) || st != want {
				t.Fatalf("cell %d: %q %v, want %q %v", c, s, st, string(rune(0x4e00+i)), want)
			}
		}
	}
	for i := 0; i < 20000; i++ {
		st := tcell.StyleDefault.Url(fmt.Sprintf("https://example.com/%d", i))
		c := (i * 7) % 100 // wide graphemes on even columns, every cell redrawn in turn
		m.Put(c%20, c/20, string(rune(0x4e00+i)), st)
		drawnAt[c] = i
		if i%137 == 0 {
			check()
			m.Show()
			checkShown(t, m)
		}
	}
	m.Show()
	check()
	// Compactions while one cell is drawn again and again: the frame shown keeps what the other
	// rows show (Show looks at the rows drawn on only).
	for i := 0; i < 3000; i++ {
		m.Put(0, 0, "x", tcell.StyleDefault.Url(fmt.Sprintf("https://example.com/x%d", i)))
	}
	drawnAt[0] = -1
	m.Show()
	checkShown(t, m)
	check()
	m.dmu.Lock()
	nt, ns := len(m.tab.texts), len(m.tab.styles)
	m.dmu.Unlock()
	if nt > 2*minTableLimit || ns > 2*minTableLimit {
		t.Fatalf("tables of %d texts and %d styles for 100 cells", nt, ns)
	}
	checkShown(t, m)
}

// BenchmarkMirrorMemory reports the heap a Mirror holds for a 200x60 screen drawn whole and shown
// (B/screen; the time per op is meaningless).
func BenchmarkMirrorMemory(b *testing.B) {
	var per float64
	for i := 0; i < b.N; i++ {
		const n = 5
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ms := make([]*Mirror, n)
		for j := range ms {
			m := NewSized(200, 60)
			if err := m.Init(); err != nil {
				b.Fatal(err)
			}
			for y := 0; y < 60; y++ {
				m.PutStrStyled(0, y, strings.Repeat(fmt.Sprintf("line %d │ text ", y), 20), tcell.StyleDefault.Foreground(tcell.PaletteColor(y%8)))
			}
			m.Show()
			ms[j] = m
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(ms)
		for _, m := range ms {
			m.Fini()
		}
	}
	b.ReportMetric(per, "B/screen")
}

// The cells a whole frame copies to a view (an attach, a resize): a 200x60 screen of panes,
// borders and a status bar, mostly spaces in a few styles. go test -run XXX -bench NonBlank ./views
func BenchmarkNonBlankCells(b *testing.B) {
	m := New()
	if err := m.Init(); err != nil {
		b.Fatal(err)
	}
	defer m.Fini()
	m.SetSize(200, 60)
	styles := []tcell.Style{
		tcell.StyleDefault,
		tcell.StyleDefault.Foreground(tcell.NewRGBColor(200, 200, 200)),
		tcell.StyleDefault.Background(tcell.NewRGBColor(38, 38, 38)),
		tcell.StyleDefault.Foreground(tcell.ColorGreen).Bold(true),
	}
	for y := 0; y < 60; y++ {
		for x := 0; x < 200; x++ {
			r := ' '
			if (x+y)%7 == 0 {
				r = 'x'
			}
			m.SetContent(x, y, r, nil, styles[(x/13+y)%len(styles)])
		}
	}
	m.Show()
	m.mu.Lock()
	defer m.mu.Unlock()
	for b.Loop() {
		m.nonBlankCells()
	}
}

// A cell is 8 bytes, and its parts do not spill into each other.
func TestCompactCell(t *testing.T) {
	if n := unsafe.Sizeof(mcell{}); n != 8 {
		t.Errorf("a cell takes %d bytes, want 8", n)
	}
	c := cellOf(textMask, 7, 2)
	c.setFlags(cellLocked | cellCovered)
	if c.text() != textMask || c.width() != 2 || c.flags() != cellLocked|cellCovered || c.style != 7 {
		t.Errorf("cell read back as text %#x width %d flags %b style %d", c.text(), c.width(), c.flags(), c.style)
	}
	c.clearFlags(cellLocked)
	if c.flags() != cellCovered || c.text() != textMask || c.width() != 2 {
		t.Errorf("after clearing a flag: text %#x width %d flags %b", c.text(), c.width(), c.flags())
	}
}

// Past the bound of the texts table, a new text reads as '?' instead of taking a code that
// would not fit in a cell; texts already in the table keep theirs.
func TestTextTableBound(t *testing.T) {
	defer func(n int) { textsBound = n }(textsBound)
	textsBound = 2
	m := New()
	m.dmu.Lock()
	defer m.dmu.Unlock()
	a, b := m.internText("é"), m.internText("ü")
	if got := textOf(m.tab.texts, m.internText("ö")); got != "?" {
		t.Errorf("a text past the bound reads as %q", got)
	}
	if textOf(m.tab.texts, a) != "é" || textOf(m.tab.texts, b) != "ü" || m.internText("é") != a {
		t.Errorf("the texts in the table changed: %q %q", textOf(m.tab.texts, a), textOf(m.tab.texts, b))
	}
	if maxTexts+128-1 > textMask {
		t.Errorf("the last code, %#x, does not fit in %d bits", maxTexts+128-1, textBits)
	}
}
