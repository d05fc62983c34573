package viewterm

import (
	"sync"

	"github.com/gdamore/tcell/v2"
)

// A terminal without true colour shows an RGB colour (a theme's, or one a program in a pane
// chose) as the nearest colour of its palette, found as tcell finds it (FindColor: a distance in
// Lab to each palette colour). The search is paid once per process for each colour, not once
// per view: every attach is a new view, and a theme's colours would be fitted again each time.

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

// fitColor is the colour of a palette of n colours nearest to colour c.
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
		p = make([]tcell.Color, n)
		for i := range p {
			p[i] = tcell.PaletteColor(i)
		}
		f.palettes[n] = p
	}
	v := tcell.FindColor(c, p)
	f.m[k] = v
	return v
}
