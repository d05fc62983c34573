package vt

import "unicode/utf8"

// Line mode is the guard's fast path for text that scrolls the whole screen, as `cat` of a big
// file does: vt10x costs far more per character than the guard, and most such lines leave the
// screen before anyone sees them. Once a line feed scrolls the full-screen region of the main
// screen, the guard keeps the rows that follow itself (ASCII text, CR, LF, BS, HT and SGR) and
// moves the rows that leave the top straight to the scrollback. vt10x catches up in one step
// (materialize) when anything else comes or someone reads the screen: it scrolls by the number
// of rows that left and gets the rows still on screen drawn in.
//
// While line mode is on, the guard's cursor (cx, pending; cy is the bottom row) is in cur, and
// vt10x still holds the screen as it was when line mode began: its rows dropped to dropped are
// gone, the rest sit above the rows in done.
type lineMode struct {
	active  bool
	dropped int     // rows of vt10x's screen that have left the top
	done    []*lrow // rows finished since, oldest first; at most rows-1
	cur     *lrow   // the bottom row, being written
	free    []*lrow
	starts  int // times line mode began, for tests
}

// lrow is a row the guard builds: a character and a style id per cell up to n; the cells from
// n on are blanks of style bg.
type lrow struct {
	r       []rune // as vt10x gets them: a rune, a cluster id or continuationRune
	st      []uint32
	n       int
	bg      uint32
	wide    bool // a wide character is in r
	wrapped bool
}

// at returns cell x.
func (l *lrow) at(x int) (rune, uint32) {
	if x < l.n {
		return l.r[x], l.st[x]
	}
	return ' ', l.bg
}

func (g *guard) newLrow(bgID uint32) *lrow {
	lm := &g.lm
	var l *lrow
	if n := len(lm.free); n > 0 && len(lm.free[n-1].r) == g.cols {
		l = lm.free[n-1]
		lm.free = lm.free[:n-1]
	} else {
		lm.free = lm.free[:0] // rows of another width, from before a resize
		l = &lrow{r: make([]rune, g.cols), st: make([]uint32, g.cols)}
	}
	l.n, l.bg, l.wide, l.wrapped = 0, bgID, false, false
	return l
}

// lineModeOK reports whether a line feed at the cursor may start line mode.
func (g *guard) lineModeOK() bool {
	return !g.noLineMode && g.known && g.cy == g.rows-1 && g.bottom == g.rows-1 && g.top == 0 && !g.modes.AltScreen &&
		g.autowrap && !g.insert && g.hist.max > 0
}

// startLineMode is the line feed that begins line mode: vt10x's top row leaves.
func (g *guard) startLineMode() {
	g.flush()
	lm := &g.lm
	lm.active = true
	lm.starts++
	lm.dropped = 0
	lm.done = lm.done[:0]
	g.dropTop()
	lm.cur = g.newLrow(g.eraseID)
}

// dropTop moves the top row of the screen, as line mode sees it, to the scrollback.
func (g *guard) dropTop() {
	lm := &g.lm
	if lm.dropped < g.rows {
		wrapped := g.readRow(lm.dropped, g.row)
		if l := g.hist.next(); l != nil {
			l.set(g.row, wrapped)
		}
		lm.dropped++
		return
	}
	top := lm.done[0]
	lm.done = lm.done[1:]
	if l := g.hist.next(); l != nil {
		l.setLrow(top, g.cols, &g.styles, &g.clusters)
	}
	lm.free = append(lm.free, top)
}

// setLrow stores a row line mode built, as set does a screen row.
func (l *histLine) setLrow(r *lrow, cols int, styles *styleTable, clusters *clusterTable) {
	end := cols
	if r.bg == 0 {
		end = r.n
		for end > 0 && r.r[end-1] == ' ' && r.st[end-1] == 0 {
			end--
		}
	}
	l.wrapped = r.wrapped
	n := min(end, r.n)
	size := end - n // blanks past n
	for _, c := range r.r[:n] {
		size += utf8.RuneLen(c) // cluster ids take 4, more than their first code point needs
	}
	l.reserve(size)
	var cur Style
	prev := uint32(0)
	for x := 0; x < n; x++ {
		c := r.r[x]
		switch {
		case c == continuationRune:
			c = 0
		case isClusterID(c):
			text := clusters.text(c)
			first, size := utf8.DecodeRuneInString(text)
			c = first
			if size < len(text) {
				e := l.ext()
				e.marks = append(e.marks, cellMarks{col: int32(x), marks: []rune(text[size:])})
			}
		}
		l.text = utf8.AppendRune(l.text, c)
		if id := r.st[x]; id != prev {
			st := styles.get(id)
			l.addStyle(x, st, cur)
			cur, prev = st, id
		}
	}
	for x := n; x < end; x++ {
		l.text = append(l.text, ' ')
		if x == n && r.bg != prev {
			l.addStyle(x, styles.get(r.bg), cur)
		}
	}
}

// lmNewline finishes the bottom row and starts a new one below it.
func (g *guard) lmNewline(wrapped bool) {
	lm := &g.lm
	lm.cur.wrapped = wrapped
	lm.done = append(lm.done, lm.cur)
	bg := g.eraseID
	if wrapped {
		bg = 0 // tmux blanks a row a wrap scrolls in with the default background
	}
	lm.cur = g.newLrow(bg)
	g.dropTop()
}

// lmPrint writes printable ASCII to the bottom row; false when line mode cannot (a character
// set is active).
func (g *guard) lmPrint(b []byte) bool {
	if g.g[g.gl] {
		return false
	}
	lm := &g.lm
	for len(b) > 0 {
		if g.pending {
			g.lmNewline(true)
			g.cx, g.pending = 0, false
		}
		n := min(len(b), g.cols-g.cx)
		cur := lm.cur
		if cur.wide && g.cx < cur.n {
			// Overwriting halves of wide characters: the slow path knows how tmux does it.
			g.materialize()
			g.printASCII(b)
			return true
		}
		for ; cur.n < g.cx; cur.n++ {
			cur.r[cur.n], cur.st[cur.n] = ' ', cur.bg
		}
		r, st, id := cur.r[g.cx:g.cx+n], cur.st[g.cx:g.cx+n], g.penID
		for i, c := range b[:n] {
			r[i], st[i] = rune(c), id
		}
		g.cx += n
		cur.n = max(cur.n, g.cx)
		if g.cx >= g.cols {
			g.cx, g.pending = g.cols-1, true
		}
		g.last = lastPrint{valid: true, styleID: g.penID, ascii: b[n-1]}
		b = b[n:]
	}
	return true
}

// lmPrintRune writes a character other than ASCII, or joins a mark to the cell before the
// cursor; false when line mode leaves it to the slow path (overwriting a row that holds wide
// characters).
func (g *guard) lmPrintRune(r rune, w int) bool {
	cur := g.lm.cur
	if w == 0 || g.zwj {
		x := g.cx - 1
		if g.pending {
			x = g.cols - 1
		}
		if x < 0 {
			g.zwj = false
			return true // nothing to join: tmux drops it
		}
		if x < cur.n && cur.r[x] == continuationRune && x > 0 {
			x--
		}
		g.lmFill(x + 1)
		text := string(cur.r[x])
		if isClusterID(cur.r[x]) {
			text = g.clusters.text(cur.r[x])
		}
		if g.zwj {
			g.zwj = false
			text += string(zwj)
		}
		if text += string(r); len(text) <= maxClusterBytes {
			cur.r[x] = g.clusterID(text)
		}
		g.last = lastPrint{}
		return true
	}
	if cur.wide && g.cx < cur.n {
		return false
	}
	if w > g.cols {
		return true // it fits nowhere: dropped, as on the slow path
	}
	if w == 2 && g.cx == g.cols-1 && !g.pending {
		g.pending = true // it does not fit: wrap, leaving the last cell
	}
	if g.pending {
		g.lmNewline(true)
		g.cx, g.pending = 0, false
		cur = g.lm.cur
	}
	g.lmFill(g.cx)
	enc := r
	if r >= clusterBase {
		enc = g.clusterID(string(r))
	}
	cur.r[g.cx], cur.st[g.cx] = enc, g.penID
	if w == 2 {
		cur.r[g.cx+1], cur.st[g.cx+1] = continuationRune, g.penID
		cur.wide, g.anyWide = true, true
	}
	g.cx += w
	cur.n = max(cur.n, g.cx)
	if g.cx >= g.cols {
		g.cx, g.pending = g.cols-1, true
	}
	g.last = lastPrint{valid: true, styleID: g.penID}
	return true
}

// lmFill makes the bottom row's cells up to x written blanks.
func (g *guard) lmFill(x int) {
	cur := g.lm.cur
	for ; cur.n < x; cur.n++ {
		cur.r[cur.n], cur.st[cur.n] = ' ', cur.bg
	}
}

// lmExecute performs CR, LF and HT in line mode; false for any other control.
func (g *guard) lmExecute(c byte) bool {
	switch c {
	case '\r':
		g.cx, g.pending = 0, false
	case '\n', '\v', '\f':
		g.lmNewline(false)
	case '\t':
		if !g.pending && g.cx < g.cols-1 {
			x := g.cx + 1
			for x < g.cols-1 && !g.tabs[x] {
				x++
			}
			g.cx = x
		}
	case '\b':
		if g.pending {
			g.pending = false
		} else if g.cx > 0 {
			g.cx--
		} else {
			return false // going back over a wrap needs vt10x's rows
		}
	default:
		return false
	}
	g.last = lastPrint{}
	return true
}

// materialize brings vt10x up to date with line mode and leaves it.
func (g *guard) materialize() {
	lm := &g.lm
	if !lm.active {
		return
	}
	lm.active = false
	cx, pending := g.cx, g.pending
	g.usePen(0)
	if lm.dropped > 0 {
		g.emitCSI(lm.dropped, 'S')
	}
	rows := append(lm.done, lm.cur)
	y := g.rows - len(rows)
	for i, l := range rows {
		if i == 0 || !rows[i-1].wrapped {
			g.emitCUP(0, y+i)
		}
		end := g.cols
		if !l.wrapped && l.bg == 0 {
			end = l.n
			for end > 0 && l.r[end-1] == ' ' && l.st[end-1] == 0 {
				end--
			}
		}
		// A wrapped row is drawn to its last cell and the next follows without a move, so
		// that vt10x wraps and marks it.
		for x := 0; x < end; x++ {
			r, st := l.at(x)
			g.usePen(st)
			if r < 0x80 {
				g.put(byte(r))
			} else {
				g.putRune(r)
			}
		}
		if l != lm.cur {
			lm.free = append(lm.free, l)
		}
	}
	lm.free = append(lm.free, lm.cur)
	lm.done, lm.cur = lm.done[:0], nil
	g.moveTo(cx, g.rows-1)
	if pending {
		g.setVTWrap(true)
		g.pending = true
	}
}

// markLineMode marks the style and cluster ids line mode rows use, for a sweep.
func (g *guard) markLineMode(mark func(uint32), markCluster func(rune)) {
	if !g.lm.active {
		return
	}
	for _, l := range append(g.lm.done, g.lm.cur) {
		mark(l.bg)
		for x, id := range l.st[:l.n] {
			mark(id)
			markCluster(l.r[x])
		}
	}
}
