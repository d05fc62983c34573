package vt

import (
	"encoding/binary"
	"hash/maphash"
	"unicode/utf8"
)

// rowSeed keys rowHash: a program cannot choose text whose row hashes as another's.
var rowSeed = maphash.MakeSeed()

// rowHash is a keyed 64-bit hash of what row y shows, as readRow reads it (each cell's character
// or cluster id and style id, the wrap of the last column) but without making cells of it; gen
// stands for what the ids mean (it changes when an id is given again). Two rows that show
// differently hash differently but for a chance of 2^-64. enc is scratch, returned grown.
func (g *guard) rowHash(y int, gen [3]uint64, enc []byte) (uint64, []byte) {
	enc = enc[:0]
	for _, n := range gen {
		enc = binary.LittleEndian.AppendUint64(enc, n)
	}
	ov := g.waitingRow(y)
	for x := 0; x < g.cols; x++ {
		ch, st, w := g.glyph(ov, x, y)
		v := uint64(uint32(ch))<<32 | uint64(st)
		if w && x == g.cols-1 {
			v |= 1 << 63 // no character has bit 31
		}
		enc = binary.LittleEndian.AppendUint64(enc, v)
	}
	return maphash.Bytes(rowSeed, enc), enc
}

// Reading vt10x's grid back, sweeping unused ids, resizing.

// readRow decodes screen row y into row; it reports whether the row wrapped onto the next. The
// caller has flushed, or nothing but the overlay's cells waits (onlyCells): they are read over
// vt10x's.
func (g *guard) readRow(y int, row []Cell) (wrapped bool) {
	ov := g.waitingRow(y)
	for x := 0; x < g.cols; x++ {
		ch, st, w := g.glyph(ov, x, y)
		if x == g.cols-1 {
			wrapped = w
		}
		c := Cell{Rune: ch, Width: 1, Style: g.styles.get(st)}
		switch {
		case ch == 0:
			c.Rune = ' '
		case ch == continuationRune:
			c.Rune, c.Width = 0, 0
			if x > 0 && row[x-1].Width == 1 && RuneWidth(row[x-1].Rune) == 2 {
				row[x-1].Width = 2
			} else {
				// A right half whose left half is gone: drawn blank, left out of text (as tmux
				// leaves its padding cells out).
				c.Rune = ' '
			}
		case isClusterID(ch):
			text := g.clusters.text(ch)
			r, size := utf8.DecodeRuneInString(text)
			c.Rune = r
			if size < len(text) {
				c.Comb = []rune(text[size:])
			}
		}
		row[x] = c
	}
	return wrapped
}

// collect sweeps style and cluster ids that nothing uses any more.
func (g *guard) collect() {
	g.flush()
	liveS := make([]bool, len(g.styles.styles))
	liveC := make([]bool, len(g.clusters.texts))
	markS := func(id uint32) {
		if int(id) < len(liveS) {
			liveS[id] = true
		}
	}
	markC := func(r rune) {
		if i := int(r - clusterBase); i >= 0 && i < len(liveC) {
			liveC[i] = true
		}
	}
	for _, id := range []uint32{g.penID, g.eraseID, g.engPen, g.wantPen, g.saved.penID, g.last.styleID} {
		markS(id)
	}
	for id := range g.hiddenStyles {
		markS(id)
	}
	g.markLineMode(markS, markC)
	for r := range g.hiddenClusters {
		markC(r)
	}
	for y := 0; y < g.rows; y++ {
		for x := 0; x < g.cols; x++ {
			ch, st, _ := g.e.glyph(x, y)
			markS(st)
			markC(ch)
		}
	}
	g.styles.sweep(liveS)
	g.clusters.sweep(liveC)
}

// resize changes the screen size. Rows that leave the top go to the scrollback, as in tmux.
func (g *guard) resize(cols, rows int) {
	if cols < 1 || rows < 1 || cols == g.cols && rows == g.rows {
		return
	}
	if !g.modes.AltScreen && !g.noReflow {
		g.reflow(cols, rows)
		return
	}
	g.settle()
	g.sync()
	if slide := g.cy - rows + 1; slide > 0 {
		// vt10x drops the rows above the cursor that no longer fit.
		g.top = 0
		g.capture(slide)
	}
	g.usePen(0) // vt10x fills new cells from its pen
	g.prep()
	g.e.resize(cols, rows)
	g.touched.reset(rows)
	g.ov.reset(rows, &g.touched)
	g.cols, g.rows = cols, rows
	g.top, g.bottom = 0, rows-1
	g.vtTop, g.vtBottom = 0, rows-1
	g.tabs = defaultTabs(g.tabs, cols)
	g.row = make([]Cell, cols)
	// The hidden screen lost cells and gained default ones: its remembered ids still cover it.
	g.forget()
}
