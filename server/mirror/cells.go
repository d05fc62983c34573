package mirror

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/uniseg"
)

// The Mirror's cells: what the App draws (drawn, under Mirror.dmu) and the frame last shown to
// the views (Mirror.cells, under Mirror.mu), 8 bytes a cell each. A tcell CellBuffer takes about
// 190 bytes a cell (two strings and two 72-byte styles), and the Mirror used to hold one and a
// copy of its cells (88 bytes a cell): 3.4 MB at 200x60, 190 KB now.
//
// A cell's text and style are indices into tables shared by both: a screen shows few styles and
// few texts beyond ASCII. The tables only grow between compactions (compactTables), so a copier
// may keep reading the slices it took under Mirror.mu after letting go of it.

// mcell is one compact cell: 8 bytes.
type mcell struct {
	// Bits 0-23 are the text's code: below 128, an ASCII character xor 0x20 (0 is a space); else
	// 128 + its index in texts (maxTexts at most). Bits 24-25 are the columns the text takes (0
	// on a cell never drawn, which reads as 1); bits 26-28 the flags.
	bits  uint32
	style uint32 // index in styles; 0 is tcell.StyleDefault
}

const (
	cellLocked  uint8 = 1 << iota // LockRegion: never copied to the views until unlocked
	cellForced                    // copied at the next Show even if it looks as the frame shown
	cellCovered                   // the right half of a wide character shown: never drawn
)

const (
	textBits  = 24
	textMask  = 1<<textBits - 1
	widthMask = 3 << textBits
	flagShift = textBits + 2
	// maxTexts bounds the texts table: a code must fit in textBits. A screen names at most two
	// of its cells' worth of texts (drawn and shown), so only a screen of millions of cells,
	// each with a text of its own beyond ASCII, could reach it; past it a text reads as '?'.
	maxTexts = textMask + 1 - 128
)

// textsBound is maxTexts; a test lowers it.
var textsBound = maxTexts

func (c mcell) text() uint32        { return c.bits & textMask }
func (c mcell) width() uint8        { return uint8(c.bits & widthMask >> textBits) }
func (c mcell) flags() uint8        { return uint8(c.bits >> flagShift) }
func (c *mcell) setFlags(f uint8)   { c.bits |= uint32(f) << flagShift }
func (c *mcell) clearFlags(f uint8) { c.bits &^= uint32(f) << flagShift }

// cellOf is a cell of text code text, style and width (0 to 3), with no flag.
func cellOf(text, style uint32, width int) mcell {
	return mcell{bits: text&textMask | uint32(width&3)<<textBits, style: style}
}

// cellTables are the texts and styles the cells name. Appended under both of the Mirror's locks;
// the maps are the drawing side's (Mirror.dmu).
type cellTables struct {
	texts   []string
	styles  []tcell.Style
	textIx  map[string]uint32
	styleIx map[tcell.Style]uint32
	// The tables are compacted when they reach these lengths.
	textLimit, styleLimit int
	// The last style interned: draws come in runs of one style.
	lastStyle   tcell.Style
	lastStyleIx uint32
}

// minTableLimit is the table length below which a table is never compacted.
const minTableLimit = 1024

// asciiChars holds every ASCII character once: a cell's text is a slice of it, never a new string.
var asciiChars = func() string {
	var b [128]byte
	for i := range b {
		b[i] = byte(i)
	}
	return string(b[:])
}()

// textOf is the string of text code t in texts.
func textOf(texts []string, t uint32) string {
	if t < 128 {
		c := t ^ 0x20
		return asciiChars[c : c+1]
	}
	return texts[t-128]
}

// maybeCompact compacts the tables when one reached its limit: before a cell's text and style
// are interned, never between (a compaction renumbers them). Under dmu.
func (m *Mirror) maybeCompact() {
	if len(m.tab.texts) >= m.tab.textLimit || len(m.tab.styles) >= m.tab.styleLimit {
		m.compactTables()
	}
}

// internText is the code of text s. Under dmu.
func (m *Mirror) internText(s string) uint32 {
	if len(s) == 1 && s[0] < 128 {
		return uint32(s[0]) ^ 0x20
	}
	if i, ok := m.tab.textIx[s]; ok {
		return i
	}
	if len(m.tab.texts) >= textsBound {
		return '?' ^ 0x20
	}
	i := uint32(len(m.tab.texts)) + 128
	s = strings.Clone(s) // not the caller's whole string
	if m.tab.textIx == nil {
		m.tab.textIx = map[string]uint32{}
	}
	m.tab.textIx[s] = i
	m.mu.Lock()
	m.tab.texts = append(m.tab.texts, s)
	m.mu.Unlock()
	return i
}

// internStyle is the index of st. Under dmu.
func (m *Mirror) internStyle(st tcell.Style) uint32 {
	if st == m.tab.lastStyle {
		return m.tab.lastStyleIx
	}
	i, ok := m.tab.styleIx[st]
	if !ok {
		i = uint32(len(m.tab.styles))
		if m.tab.styleIx == nil {
			m.tab.styleIx = map[tcell.Style]uint32{}
		}
		m.tab.styleIx[st] = i
		m.mu.Lock()
		m.tab.styles = append(m.tab.styles, st)
		m.mu.Unlock()
	}
	m.tab.lastStyle, m.tab.lastStyleIx = st, i
	return i
}

// compactTables drops the texts and styles no cell names any more, in new slices (a copier may
// still read the old ones). Under dmu; takes mu. Each table then may grow to twice what is live
// before the next compaction, so compacting costs O(1) a new entry.
func (m *Mirror) compactTables() {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &m.tab
	textTo := make([]uint32, len(t.texts))   // old index → 1 + new index; 0: unused
	styleTo := make([]uint32, len(t.styles)) // the same, for styles
	texts := make([]string, 0, len(t.texts)/2+1)
	styles := append(make([]tcell.Style, 0, len(t.styles)/2+1), tcell.StyleDefault)
	styleTo[0] = 1
	remap := func(cs []mcell) {
		for i := range cs {
			c := &cs[i]
			if code := c.text(); code >= 128 {
				o := code - 128
				if textTo[o] == 0 {
					texts = append(texts, t.texts[o])
					textTo[o] = uint32(len(texts))
				}
				c.bits = c.bits&^textMask | (textTo[o] - 1 + 128)
			}
			if styleTo[c.style] == 0 {
				styles = append(styles, t.styles[c.style])
				styleTo[c.style] = uint32(len(styles))
			}
			c.style = styleTo[c.style] - 1
		}
	}
	remap(m.drawn)
	remap(m.cells)
	t.texts, t.styles = texts, styles
	t.textIx = make(map[string]uint32, len(texts))
	for i, s := range texts {
		t.textIx[s] = uint32(i) + 128
	}
	t.styleIx = make(map[tcell.Style]uint32, len(styles))
	for i, st := range styles {
		t.styleIx[st] = uint32(i)
	}
	t.textLimit = min(max(minTableLimit, 2*len(texts)), maxTexts)
	t.styleLimit = max(minTableLimit, 2*len(styles))
	t.lastStyle, t.lastStyleIx = tcell.StyleDefault, 0
}

// resizeDrawn sizes the drawn cells w x h, keeping what fits (as tcell's CellBuffer.Resize: the
// locks go). Under dmu.
func (m *Mirror) resizeDrawn(w, h int) {
	if w == m.dw && h == m.dh {
		return
	}
	cells := make([]mcell, w*h)
	for y := 0; y < h && y < m.dh; y++ {
		for x := 0; x < w && x < m.dw; x++ {
			c := m.drawn[y*m.dw+x]
			c.clearFlags(cellLocked | cellForced | cellCovered)
			cells[y*w+x] = c
		}
	}
	m.drawn, m.dw, m.dh = cells, w, h
}

// put draws the first grapheme of str at x, y, as tcell's CellBuffer.Put does, and returns the
// rest of str and the grapheme's width (0: nothing drawn, or only zero-width text). Under dmu.
func (m *Mirror) put(x, y int, str string, st tcell.Style) (string, int) {
	if x < 0 || y < 0 || x >= m.dw || y >= m.dh {
		return str, 0
	}
	var cl string
	width := 0
	if len(str) > 0 && str[0] >= ' ' && str[0] < 0x7f && (len(str) == 1 || str[1] < 0x80) {
		// Printable ASCII followed by ASCII: a grapheme of its own, one column.
		cl, str, width = str[:1], str[1:], 1
	} else {
		state := -1
		for width == 0 && str != "" {
			var g string
			g, str, width, state = uniseg.FirstGraphemeClusterInString(str, state)
			cl += g
			if g == "" {
				break
			}
		}
	}
	i := y*m.dw + x
	m.maybeCompact()
	text := uint32(0) // a cell with no text, or only zero-width text, reads as a space
	if width > 0 && cl != "" {
		text = m.internText(cl)
	}
	if fg, bg, _ := st.Decompose(); fg == tcell.ColorNone || bg == tcell.ColorNone {
		ofg, obg, _ := m.tab.styles[m.drawn[i].style].Decompose()
		if fg == tcell.ColorNone {
			st = st.Foreground(ofg)
		}
		if bg == tcell.ColorNone {
			st = st.Background(obg)
		}
	}
	style := m.internStyle(st)
	c := &m.drawn[i]
	if width > 0 && text != c.text() {
		// The columns a wide grapheme covers are drawn again when it goes.
		for j := 1; j < width && x+j < m.dw; j++ {
			m.drawn[i+j].setFlags(cellForced)
		}
	}
	*c = mcell{bits: cellOf(text, style, max(width, 1)).bits | c.bits&^(textMask|widthMask), style: style}
	return str, width
}

// get is what cell x, y shows, as tcell's CellBuffer.Get. Under dmu.
func (m *Mirror) get(x, y int) (string, tcell.Style, int) {
	if x < 0 || y < 0 || x >= m.dw || y >= m.dh {
		return "", tcell.StyleDefault, 0
	}
	c := m.drawn[y*m.dw+x]
	return textOf(m.tab.texts, c.text()), m.tab.styles[c.style], int(max(c.width(), 1))
}

// fill sets every cell to r in st, one column wide, as tcell's CellBuffer.Fill. Under dmu.
func (m *Mirror) fill(r rune, st tcell.Style) {
	s := string(r)
	fg, bg, _ := st.Decompose()
	keep := fg == tcell.ColorNone || bg == tcell.ColorNone
	for i := range m.drawn {
		c := &m.drawn[i]
		m.maybeCompact()
		text := m.internText(s)
		style := uint32(0)
		if keep {
			ofg, obg, _ := m.tab.styles[c.style].Decompose()
			cs := st
			if fg == tcell.ColorNone {
				cs = cs.Foreground(ofg)
			}
			if bg == tcell.ColorNone {
				cs = cs.Background(obg)
			}
			style = m.internStyle(cs)
		} else {
			style = m.internStyle(st)
		}
		*c = mcell{bits: cellOf(text, style, 1).bits | c.bits&^(textMask|widthMask), style: style}
	}
}

// lockRegion locks or unlocks the cells of a rectangle, as tcell's LockRegion. Under dmu.
func (m *Mirror) lockRegion(x, y, w, h int, lock bool) {
	for j := y; j < y+h; j++ {
		for i := x; i < x+w; i++ {
			if i < 0 || j < 0 || i >= m.dw || j >= m.dh {
				continue
			}
			c := &m.drawn[j*m.dw+i]
			if lock {
				c.setFlags(cellLocked)
			} else {
				c.clearFlags(cellLocked)
				c.setFlags(cellForced)
			}
		}
	}
}
