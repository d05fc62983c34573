package views

import (
	"sync"

	"github.com/gdamore/tcell/v2"
)

// A view's terminal without true colour shows an RGB colour (a theme's, or one a program in a
// pane chose) as the nearest colour of its palette. tcell finds that colour itself, but per
// screen: 256 Lab distances for each colour, anew on each screen, and a view's screen is new at
// every attach (2-3 ms of an attach's CPU went there). The Mirror hands such a view styles whose
// RGB colours are already the palette's, found once for the process with tcell's own FindColor,
// so the view's screen finds them in its identity map and the colours shown are those tcell would
// have chosen.

// maxFitColors bounds the process's cache: a program can print any number of RGB colours, and
// a full cache starts again.
const maxFitColors = 4096

type fitKey struct {
	c tcell.Color
	n int
}

var paletteFits struct {
	mu       sync.Mutex
	m        map[fitKey]tcell.Color
	palettes map[int][]tcell.Color
}

// fitColor is the colour of a palette of n colours nearest to RGB colour c, as tcell finds it.
func fitColor(c tcell.Color, n int) tcell.Color {
	f := &paletteFits
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fitKey{c, n}
	if v, ok := f.m[k]; ok {
		return v
	}
	if f.m == nil || len(f.m) >= maxFitColors {
		f.m = make(map[fitKey]tcell.Color)
	}
	if f.palettes == nil {
		f.palettes = make(map[int][]tcell.Color)
	}
	p := f.palettes[n]
	if p == nil {
		p = make([]tcell.Color, n) // as tcell's screen builds it
		for i := range p {
			p[i] = tcell.PaletteColor(i)
		}
		f.palettes[n] = p
	}
	v := tcell.FindColor(c, p)
	f.m[k] = v
	return v
}

// fitStyle is st with its RGB foreground and background fitted to a palette of n colours.
func fitStyle(st tcell.Style, n int) tcell.Style {
	fg, bg, _ := st.Decompose()
	if fg.IsRGB() {
		st = st.Foreground(fitColor(fg, n))
	}
	if bg.IsRGB() {
		st = st.Background(fitColor(bg, n))
	}
	return st // the underline colour: tcell sends it as RGB whatever the palette
}

// viewStyles is a view's copy of the Mirror's style table fitted to its terminal's palette,
// filled as cells need it. copyLoop only.
type viewStyles struct {
	n     int           // the palette's size; 0: the terminal takes RGB (or no colour), no fitting
	base  *tcell.Style  // the table the copy is of (&styles[0]): a table made anew starts it again
	fit   []tcell.Style // fitted styles by index
	ready []bool        // which are filled
}

// style is the style of index ix in styles as the view's terminal is to be given it.
func (vs *viewStyles) style(styles []tcell.Style, ix uint32) tcell.Style {
	if vs.n == 0 {
		return styles[ix]
	}
	if vs.base != &styles[0] {
		vs.base = &styles[0]
		vs.fit, vs.ready = vs.fit[:0], vs.ready[:0]
	}
	if int(ix) >= len(vs.fit) {
		vs.fit = append(vs.fit, make([]tcell.Style, len(styles)-len(vs.fit))...)
		vs.ready = append(vs.ready, make([]bool, len(styles)-len(vs.ready))...)
	}
	if !vs.ready[ix] {
		vs.fit[ix], vs.ready[ix] = fitStyle(styles[ix], vs.n), true
	}
	return vs.fit[ix]
}

// paletteSize is how many palette colours the view's screen sc fits RGB colours to (0: none,
// it shows RGB, or no colour at all).
func paletteSize(sc tcell.Screen) int {
	if n := sc.Colors(); n > 0 && n <= 256 {
		return n
	}
	return 0
}
