package vt

import "unicode/utf8"

// The print path: how characters become cells, as tmux places them.

// printASCII prints a run of bytes 0x20-0x7E.
func (g *guard) printASCII(b []byte) {
	if g.g[g.gl] || g.insert {
		for _, c := range b {
			g.print(rune(c))
		}
		return
	}
	for len(b) > 0 {
		g.sync()
		if !g.autowrap && g.cx == g.cols-1 {
			// Everything past the last column lands on it: only the last character stays.
			b = b[len(b)-1:]
		}
		fresh := g.beginCell(1)
		n := min(len(b), g.cols-g.cx)
		x0 := g.cx
		if g.anyWide && !fresh {
			g.fixLeft(x0)
		}
		g.usePen(g.penID)
		g.e.out = append(g.e.out, b[:n]...)
		g.advance(n)
		if g.anyWide && !fresh {
			g.fixRight(x0 + n)
		}
		g.last = lastPrint{valid: true, x: x0 + n - 1, y: g.cy, w: 1, r: rune(b[n-1]), styleID: g.penID}
		b = b[n:]
	}
}

// print prints one code point other than printable ASCII.
func (g *guard) print(r rune) {
	w := RuneWidth(r)
	switch {
	case w < 0:
		return
	case w == 0:
		g.combine(r)
		return
	}
	if r < 0x7f && g.g[g.gl] {
		r = decGraphics(r)
	}
	g.printCell(r, "", w)
}

// printCell prints a character (or, when cluster is not "", a character with its marks) of
// width w.
func (g *guard) printCell(r rune, cluster string, w int) {
	g.sync()
	if w == 2 && g.cx == g.cols-1 && !g.pending {
		if !g.autowrap {
			g.last.valid = false
			return
		}
		// It does not fit: wrap, leaving the last cell as it is.
		g.pending = true
	}
	fresh := g.beginCell(w)
	x0 := g.cx
	if g.anyWide && !fresh {
		g.fixLeft(x0)
	}
	if g.insert {
		g.usePen(g.eraseID)
		g.emitCSI(w, '@')
	}
	g.usePen(g.penID)
	g.emitCell(r, cluster)
	if w == 2 {
		g.e.out = utf8.AppendRune(g.e.out, continuationRune)
		g.anyWide = true
	}
	g.advance(w)
	if g.anyWide && !fresh {
		g.fixRight(x0 + w)
	}
	g.last = lastPrint{valid: true, x: x0, y: g.cy, w: w, r: r, cluster: cluster, styleID: g.penID}
}

// beginCell prepares vt10x for a character of width w at the guard's cursor: it wraps a pending
// cursor (tmux's cx == sx) and keeps vt10x from wrapping where tmux would not. It reports
// whether the character starts a row the wrap scrolled in, which is blank.
func (g *guard) beginCell(w int) (fresh bool) {
	if !g.pending {
		if g.vtWrap && g.autowrap {
			g.setVTWrap(false)
		}
		return false
	}
	scroll := g.cy == g.bottom
	if scroll {
		g.capture(1)
	}
	if g.insert || (scroll && g.eraseID != 0) {
		// vt10x's own wrap would blank the new row with default colours, or come after the
		// insertion: wrap by hand (the row is then not marked as wrapped).
		if scroll {
			g.usePen(g.eraseID)
		}
		g.e.emitString("\x1bD\r")
		g.vtWrap = false
	} else {
		// vt10x wraps at the next character and marks the row as wrapped.
		g.setVTWrap(true)
		g.vtWrap = false
	}
	if !scroll && g.cy < g.rows-1 {
		g.cy++
	}
	g.cx, g.pending = 0, false
	return scroll
}

// advance moves the cursor past n cells just printed.
func (g *guard) advance(n int) {
	g.cx += n
	g.vtWrap = false
	if g.cx >= g.cols {
		g.cx = g.cols - 1
		g.vtWrap = true
		g.pending = g.autowrap
	}
}

// emitCell queues one cell's content for vt10x.
func (g *guard) emitCell(r rune, cluster string) {
	if cluster == "" {
		if r < 0x80 {
			g.e.out = append(g.e.out, byte(r))
			return
		}
		if r < clusterBase {
			g.e.out = utf8.AppendRune(g.e.out, r)
			return
		}
		cluster = string(r)
	}
	g.e.out = utf8.AppendRune(g.e.out, g.clusterID(cluster))
}

func (g *guard) clusterID(s string) rune {
	if id, ok := g.clusters.lookup(s); ok {
		return id
	}
	if g.clusters.full() {
		g.collect()
	}
	if id, ok := g.clusters.add(s); ok {
		return id
	}
	r, _ := utf8.DecodeRuneInString(s)
	if r >= clusterBase {
		return utf8.RuneError
	}
	return r
}

// fixLeft blanks the left half of a wide character whose right half is about to be overwritten
// at x, as tmux does. The cursor is at x with no wrap pending.
func (g *guard) fixLeft(x int) {
	if x == 0 {
		return
	}
	g.e.flush()
	if ch, _, _ := g.e.glyph(x, g.cy); ch != continuationRune {
		return
	}
	_, st, _ := g.e.glyph(x-1, g.cy)
	g.usePen(st)
	g.e.emitString("\b ")
}

// fixRight blanks the right half, at x, of a wide character whose left half was just
// overwritten. The cursor is at x.
func (g *guard) fixRight(x int) {
	if x >= g.cols {
		return
	}
	g.e.flush()
	ch, st, _ := g.e.glyph(x, g.cy)
	if ch != continuationRune {
		return
	}
	g.usePen(st)
	g.e.out = append(g.e.out, ' ')
	if x < g.cols-1 {
		g.e.out = append(g.e.out, '\b')
	} else {
		g.emitCSI(g.cols, 'G')
	}
}

// combine joins a zero-width code point to the character printed just before it, by printing
// that cell again with the mark.
func (g *guard) combine(m rune) {
	l := &g.last
	if !l.valid {
		return
	}
	base := l.cluster
	if base == "" {
		base = string(l.r)
	}
	if len(base)+utf8.RuneLen(m) > maxClusterBytes {
		return
	}
	cluster := base + string(m)
	cx, cy, pending := g.cx, g.cy, g.pending
	g.moveTo(l.x, l.y)
	g.usePen(l.styleID)
	g.emitCell(0, cluster)
	if l.w == 2 {
		g.e.out = utf8.AppendRune(g.e.out, continuationRune)
	}
	g.cx, g.cy, g.pending = cx, cy, pending
	g.vtWrap = l.x+l.w >= g.cols
	l.cluster = cluster
}

// repeat prints the last character n more times (REP).
func (g *guard) repeat(n int) {
	l := g.last
	if !l.valid {
		return
	}
	n = clamp(n, 1, g.cols*g.rows)
	if l.cluster == "" && l.r >= 0x20 && l.r < 0x7f && !g.g[g.gl] {
		buf := make([]byte, n)
		for i := range buf {
			buf[i] = byte(l.r)
		}
		g.printASCII(buf)
		return
	}
	for i := 0; i < n; i++ {
		g.printCell(l.r, l.cluster, l.w)
	}
}

// decGraphics maps a character in the DEC Special Graphics set to Unicode, as tmux does.
func decGraphics(r rune) rune {
	if r >= '+' && r <= '~' {
		if m := decTable[r-'+']; m != 0 {
			return m
		}
	}
	return r
}

var decTable = [...]rune{
	'+' - '+': '→', ',' - '+': '←', '-' - '+': '↑', '.' - '+': '↓', '0' - '+': '█',
	'`' - '+': '◆', 'a' - '+': '▒', 'b' - '+': '␉', 'c' - '+': '␌', 'd' - '+': '␍',
	'e' - '+': '␊', 'f' - '+': '°', 'g' - '+': '±', 'h' - '+': '␤', 'i' - '+': '␋',
	'j' - '+': '┘', 'k' - '+': '┐', 'l' - '+': '┌', 'm' - '+': '└', 'n' - '+': '┼',
	'o' - '+': '⎺', 'p' - '+': '⎻', 'q' - '+': '─', 'r' - '+': '⎼', 's' - '+': '⎽',
	't' - '+': '├', 'u' - '+': '┤', 'v' - '+': '┴', 'w' - '+': '┬', 'x' - '+': '│',
	'y' - '+': '≤', 'z' - '+': '≥', '{' - '+': 'π', '|' - '+': '≠', '}' - '+': '£',
	'~' - '+': '·',
}
