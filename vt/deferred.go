package vt

import (
	"strconv"
	"unicode/utf8"
)

// Deferred writes: most of what a full-screen program sends never needs to reach vt10x byte for
// byte. vt10x costs far more per byte than the guard (it allocates for every character it
// parses), so the guard holds three things back until a byte that depends on them is queued or
// someone reads the screen:
//
//   - the scrolling region, which vt10x needs only to scroll;
//   - the cursor: moves only change cx and cy (lazy); one CUP goes out when a byte needs it;
//   - the pen: usePen only records the style; its SGR goes out before the next byte;
//   - printed text: runs of printable ASCII and single-width or wide characters (not clusters)
//     go into the overlay, one cell per cell, the newest write winning; a wide character holds
//     its cell and continuationRune in the next. When they are handed over (drain), cells that vt10x already holds with the
//     same character and style are left out, and each run of changed cells is one CUP and the
//     characters.
//
// A program that redraws its whole screen many times between two reads costs vt10x one screen;
// a redraw that changes a tenth of the cells costs it a tenth.

// overlay holds printed cells not yet handed to vt10x, by row.
type overlay struct {
	rows []ovRow
	n    int // rows holding cells
	// touched is the guard's record of changed rows: a row is touched as cells wait on it, for
	// a snapshot that reads them with vt10x's grid instead of draining them (onlyCells).
	touched *touched
	drains  int // for tests
	// cancels counts deferred scrolls a scroll back cancelled (deferScroll), for tests.
	cancels int
}

type ovRow struct {
	r      []rune // a character or continuationRune; 0 where nothing waits
	st     []uint32
	lo, hi int // the waiting cells are within [lo, hi)
	// cleared: the whole row is blanked in style clearID before the waiting cells.
	cleared bool
	clearID uint32
}

func (r *ovRow) waiting() bool { return r.cleared || r.lo < r.hi }

func (o *overlay) reset(rows int, t *touched) {
	o.rows, o.n, o.touched = make([]ovRow, rows), 0, t
}

// cells returns the waiting cells x..x+n-1 of row y, to be filled in.
func (o *overlay) cells(y, x, n, cols int) ([]rune, []uint32) {
	row := &o.rows[y]
	if len(row.r) != cols {
		row.r, row.st = make([]rune, cols), make([]uint32, cols)
	}
	if !row.waiting() {
		o.n++
	}
	o.touched.touch(y)
	if row.lo >= row.hi {
		row.lo, row.hi = x, x+n
	} else {
		row.lo, row.hi = min(row.lo, x), max(row.hi, x+n)
	}
	return row.r[x : x+n], row.st[x : x+n]
}

// write puts printable ASCII at column x of row y, in style id.
func (o *overlay) write(y, x, cols int, b []byte, id uint32) {
	r, st := o.cells(y, x, len(b), cols)
	for i, c := range b {
		r[i], st[i] = rune(c), id
	}
}

// put puts one cell, a character or continuationRune, at column x of row y in style id.
func (o *overlay) put(y, x, cols int, c rune, id uint32) {
	r, st := o.cells(y, x, 1, cols)
	r[0], st[0] = c, id
}

// blank blanks cells x..x+n-1 of row y in style id, as an erase does.
func (o *overlay) blank(y, x, n, cols int, id uint32) {
	if x == 0 && n >= cols {
		o.clearRow(y, id)
		return
	}
	r, st := o.cells(y, x, n, cols)
	for i := range r {
		r[i], st[i] = ' ', id
	}
}

// scroll moves the rows top..bottom by n (up when n > 0), as a scroll of that region moves
// the rows under them; the rows it brings in wait for nothing.
func (o *overlay) scroll(top, bottom, n int) {
	o.touched.touchRows(top, bottom)
	for ; n > 0; n-- {
		o.rotate(top, bottom, 1)
	}
	for ; n < 0; n++ {
		o.rotate(top, bottom, -1)
	}
}

func (o *overlay) rotate(top, bottom, dir int) {
	rows := o.rows[top : bottom+1]
	var out ovRow
	if dir > 0 {
		out = rows[0]
		copy(rows, rows[1:])
	} else {
		out = rows[len(rows)-1]
		copy(rows[1:], rows)
	}
	// The row that left: its cells are gone; its storage is reused for the row coming in.
	if out.waiting() {
		o.n--
	}
	clear(out.r[out.lo:out.hi])
	out.lo, out.hi, out.cleared = 0, 0, false
	if dir > 0 {
		rows[len(rows)-1] = out
	} else {
		rows[0] = out
	}
}

// clearRow blanks row y in style id, dropping the cells that waited on it.
func (o *overlay) clearRow(y int, id uint32) {
	row := &o.rows[y]
	if !row.waiting() {
		o.n++
	}
	o.touched.touch(y)
	clear(row.r[row.lo:row.hi])
	row.lo, row.hi = 0, 0
	row.cleared, row.clearID = true, id
}

// glyph is cell x of row, a row of the overlay, as vt10x will hold it once the overlay is drained:
// what waits there (a cell written loses vt10x's wrap mark), else what vt10x has.
func (g *guard) glyph(row *ovRow, x, y int) (ch rune, style uint32, wrapped bool) {
	if row != nil {
		if x >= row.lo && x < row.hi && row.r[x] != 0 {
			return row.r[x], row.st[x], false
		}
		if row.cleared {
			return ' ', row.clearID, false
		}
	}
	return g.e.glyph(x, y)
}

// waitingRow is row y of the overlay if cells wait on it, else nil.
func (g *guard) waitingRow(y int) *ovRow {
	if g.ov.n == 0 || y >= len(g.ov.rows) || !g.ov.rows[y].waiting() {
		return nil
	}
	return &g.ov.rows[y]
}

// onlyCells reports whether all the guard deferred is cells in the overlay: vt10x's grid is
// current under them (no scroll, no line mode, no byte queued for it), so its rows read with the
// overlay's cells over them are the screen, and a snapshot needs no drain. A key's echo is such
// a change: a drain would hand its cells to vt10x's parser (an allocating CSI parse per run of
// cells) on the echo's path.
func (g *guard) onlyCells() bool {
	return !g.lm.active && g.scrolls == 0 && len(g.e.out) == 0
}

// overlayOK reports whether a run of printable ASCII at the cursor may go to the overlay: it
// starts no new row, so it needs nothing of vt10x unless it overwrites half of a wide character
// (the caller asks orphans).
func (g *guard) overlayOK() bool {
	return !g.noOverlay && !g.pending && g.autowrap && g.known
}

// at returns what waits in cell x of row y, if anything does.
func (o *overlay) at(y, x int) (c rune, held bool) {
	row := &o.rows[y]
	if x >= row.lo && x < row.hi && row.r[x] != 0 {
		return row.r[x], true
	}
	if row.cleared {
		return ' ', true
	}
	return 0, false
}

// eraseOK reports whether an erase may go to the overlay.
func (g *guard) eraseOK() bool { return !g.noOverlay && g.known && !g.lm.active }

// eraseDeferred blanks cells x0..x1-1 of rows y0..y1-1 in the erase style.
func (g *guard) eraseDeferred(x0, y0, x1, y1 int) {
	for y := y0; y < y1; y++ {
		if x1 > x0 {
			g.ov.blank(y, x0, x1-x0, g.cols, g.eraseID)
		}
	}
}

// printDeferred prints b (at most the rest of the row) into the overlay, blanking into it the
// halves of wide characters the run leaves behind (see orphans).
func (g *guard) printDeferred(b []byte, left, right bool) {
	x0 := g.cx
	if left {
		g.ov.blank(g.cy, x0-1, 1, g.cols, 0) // tmux blanks with the default cell
	}
	g.ov.write(g.cy, x0, g.cols, b, g.penID)
	if right && x0+len(b) < g.cols {
		g.ov.blank(g.cy, x0+len(b), 1, g.cols, 0)
	}
	g.advance(len(b))
	g.lazy = true
}

// printCellDeferred prints a character of width w that fits in the row into the overlay.
func (g *guard) printCellDeferred(r rune, w int) {
	x0 := g.cx
	left, right := g.anyWide && g.isWideHead(x0-1), g.anyWide && g.isWideHead(x0+w-1)
	if left {
		g.ov.blank(g.cy, x0-1, 1, g.cols, 0)
	}
	g.ov.put(g.cy, x0, g.cols, r, g.penID)
	if w == 2 {
		g.ov.put(g.cy, x0+1, g.cols, continuationRune, g.penID)
		g.anyWide = true
	}
	if right && x0+w < g.cols {
		g.ov.blank(g.cy, x0+w, 1, g.cols, 0)
	}
	g.advance(w)
	g.lazy = true
}

// prep hands vt10x, in order, what the guard deferred: the overlay's cells, then the cursor,
// then the pen. Every byte queued for vt10x is queued after a prep.
func (g *guard) prep() {
	g.flushScrolls()
	if g.ov.n > 0 {
		g.drain()
	}
	g.regionToVT()
	if g.lazy {
		g.lazy = false
		if g.vtWrap {
			// vt10x waits to wrap only after writing the last column: write it again as it is.
			g.e.flush()
			ch, st, _ := g.e.glyph(g.cols-1, g.cy)
			if ch == 0 {
				ch, st = ' ', 0
			}
			g.rawCUP(g.cols-1, g.cy)
			if g.engPen != st {
				g.rawPen(st)
			}
			g.touched.touch(g.cy) // the same cell, but vt10x drops its wrap mark
			g.e.out = utf8.AppendRune(g.e.out, ch)
		} else {
			g.rawCUP(g.cx, g.cy)
		}
	}
	if g.engPen != g.wantPen {
		g.rawPen(g.wantPen)
	}
}

// regionToVT gives vt10x the guard's scrolling region (no cell changes).
func (g *guard) regionToVT() {
	if g.vtTop == g.top && g.vtBottom == g.bottom {
		return
	}
	o := append(g.e.out, 0x1b, '[')
	o = strconv.AppendInt(o, int64(g.top+1), 10)
	o = append(o, ';')
	o = strconv.AppendInt(o, int64(g.bottom+1), 10)
	g.e.out = append(o, 'r')
	g.vtTop, g.vtBottom = g.top, g.bottom
	g.lazy = true // vt10x homed its cursor
}

// flush makes vt10x hold every cell the guard printed, for a reader of its grid. The cursor and
// pen may still be deferred.
func (g *guard) flush() {
	g.flushScrolls()
	if g.ov.n > 0 {
		g.drain()
	}
	g.e.flush()
}

// deferScroll scrolls the region by n rows (up when n > 0, down when n < 0), blanking the new
// rows in the erase style; the cursor stays. Scrolls in one direction in one style add up. The
// overlay's rows scroll with the region at once: its cells are always to be written after the
// deferred scrolls.
//
// A scroll back by as many rows as wait, in the same region and style, cancels them: every row
// is back in its place but those the first scroll pushed out, which come back blank (up then
// down blanks the top rows; down then up, the bottom ones), so vt10x scrolls nothing and those
// rows are cleared in the overlay. A program that scrolls a region back and forth (a log pane
// under a status line, RI then IND) costs vt10x no scroll, which it does a cell at a time.
func (g *guard) deferScroll(n int) {
	same := g.scrollPen == g.eraseID && g.scrollTop == g.top && g.scrollBottom == g.bottom
	if g.scrolls != 0 && g.scrolls == -n && same && -n <= g.bottom-g.top {
		if g.ov.n > 0 {
			g.ov.scroll(g.top, g.bottom, n)
		}
		first, last := g.top, g.top-n-1 // up, then down: the top rows
		if n > 0 {
			first, last = g.bottom-n+1, g.bottom // down, then up: the bottom ones
		}
		for y := first; y <= last; y++ {
			g.ov.clearRow(y, g.scrollPen)
		}
		g.scrolls = 0
		g.ov.cancels++
		return
	}
	if g.scrolls != 0 && ((g.scrolls > 0) != (n > 0) || !same) {
		g.flushScrolls() // scrolls that do not add up go first
	}
	if g.ov.n > 0 {
		g.ov.scroll(g.top, g.bottom, n)
	}
	g.scrolls += n
	g.scrollPen = g.eraseID
	g.scrollTop, g.scrollBottom = g.top, g.bottom
}

// flushScrolls hands vt10x the deferred scrolls, in the region they were made in, before the
// overlay's cells.
func (g *guard) flushScrolls() {
	n := g.scrolls
	if n == 0 {
		return
	}
	g.scrolls = 0
	top, bottom := g.top, g.bottom
	g.top, g.bottom = g.scrollTop, g.scrollBottom
	g.regionToVT()
	g.top, g.bottom = top, bottom
	if g.engPen != g.scrollPen {
		g.rawPen(g.scrollPen)
	}
	g.touched.touchRows(g.scrollTop, g.scrollBottom)
	o := append(g.e.out, 0x1b, '[')
	if n > 0 {
		o = strconv.AppendInt(o, int64(min(n, g.rows)), 10)
		o = append(o, 'S')
	} else {
		o = strconv.AppendInt(o, int64(min(-n, g.rows)), 10)
		o = append(o, 'T')
	}
	g.e.out = o
}

// drain hands the overlay's cells to vt10x, leaving out those it already holds.
func (g *guard) drain() {
	g.e.flush() // the cells are compared with vt10x's grid as everything before them left it
	for y := range g.ov.rows {
		row := &g.ov.rows[y]
		if !row.waiting() {
			continue
		}
		lo, hi := row.lo, row.hi
		if row.cleared {
			lo, hi = 0, g.cols
		}
		at := -1 // the column vt10x's cursor is at on this row, -1 if elsewhere
		for x := lo; x < hi; x++ {
			r, st := rune(' '), row.clearID
			if x < len(row.r) && row.r[x] != 0 {
				r, st = row.r[x], row.st[x]
				row.r[x] = 0
			} else if !row.cleared {
				continue
			}
			// vt10x clears the wrap mark of a cell it writes (a cell that was the last of its row
			// before a resize may still hold one), so a marked cell is written.
			if ch, cst, wrapped := g.e.glyph(x, y); ch == r && cst == st && !wrapped {
				continue
			}
			if at != x {
				g.rawCUP(x, y)
			}
			if g.engPen != st {
				g.rawPen(st)
			}
			// The cell goes where a CUP on this row or the cell before it left vt10x's cursor,
			// never after the last column: vt10x neither wraps nor scrolls. The row was touched
			// when the cell was put in the overlay, and a snapshot since read it there.
			if r < utf8.RuneSelf {
				g.e.out = append(g.e.out, byte(r))
			} else {
				g.e.out = utf8.AppendRune(g.e.out, r)
			}
			at = x + 1
		}
		row.lo, row.hi, row.cleared = 0, 0, false
	}
	g.ov.n = 0
	g.ov.drains++
	g.lazy = true // vt10x's cursor is wherever the last cell left it
}
