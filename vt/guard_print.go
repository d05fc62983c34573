package vt

import (
	"bytes"
	"unicode/utf8"
)

// The print path: how characters become cells, as tmux places them.

// printASCII prints a run of bytes 0x20-0x7E.
func (g *guard) printASCII(b []byte) {
	if g.lm.active {
		if g.lmPrint(b) {
			return
		}
		g.materialize()
	}
	if g.g[g.gl] || g.insert || g.zwj && !g.autowrap {
		// Not tmux's fast path for ASCII: character by character, as tmux then does.
		for _, c := range b {
			g.print(rune(c))
			g.last.ascii = c
		}
		return
	}
	for len(b) > 0 {
		g.sync()
		if g.pending && !g.autowrap {
			return // tmux drops characters until the cursor moves
		}
		if g.overlayOK() {
			n := min(len(b), g.cols-g.cx)
			x0 := g.cx
			// Halves of wide characters the run overwrites are blanked as in the path below.
			left := g.anyWide && x0 > 1 && g.isWideHead(x0-1)
			right := g.anyWide && g.isWideHead(x0+n-1)
			g.printDeferred(b[:n], left, right)
			g.last = lastPrint{valid: true, styleID: g.penID, ascii: b[n-1]}
			b = b[n:]
			continue
		}
		if !g.autowrap && g.cx == g.cols-1 {
			// Everything past the last column lands on it: only the last character stays.
			b = b[len(b)-1:]
		}
		// Halves of wide characters the run overwrites are blanked as tmux does it.
		fresh := g.beginCell()
		n := min(len(b), g.cols-g.cx)
		x0 := g.cx
		right := g.anyWide && !fresh && g.isWideHead(x0+n-1)
		if g.anyWide && !fresh && (x0 > 1 || !g.autowrap) {
			// tmux blanks the left half too, unless it is in the first column and autowrap is on
			// (tmux's fast path for ASCII, which stops short of column 0).
			g.fixLeft(x0)
		}
		g.usePen(g.penID)
		g.put(b[:n]...)
		g.advance(n)
		if right {
			g.blankRight(x0 + n)
		}
		g.last = lastPrint{valid: true, styleID: g.penID, ascii: b[n-1]}
		b = b[n:]
	}
}

const zwj = '\u200d' // zero-width joiner

// print prints one code point other than printable ASCII.
func (g *guard) print(r rune) {
	w := RuneWidth(r)
	switch {
	case w < 0:
		return
	case r == zwj:
		// tmux holds a zero-width joiner back until a character other than ASCII comes, and
		// joins both to the cell before the cursor then; ASCII passes it by.
		g.zwj = true
		return
	case g.lm.active && r >= 0x80 && g.lmPrintRune(r, w):
		return
	}
	g.materialize()
	switch {
	case w == 0:
		if g.zwj {
			g.zwj = false
			g.combine(zwj)
		}
		g.combine(r)
		return
	case g.zwj && (r >= 0x80 || g.insert || g.g[g.gl] || !g.autowrap):
		// Any character tmux does not take its ASCII fast path for.
		g.zwj = false
		g.combine(zwj)
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
	if g.pending && !g.autowrap || w > g.cols {
		g.last = lastPrint{}
		return
	}
	// tmux inserts before it wraps, so a character that wraps after a pending cursor
	// overwrites instead.
	insert := g.insert && !g.pending
	if !insert && cluster == "" && r < clusterBase && g.overlayOK() && g.cx+w <= g.cols {
		g.printCellDeferred(r, w)
		g.last = lastPrint{valid: true, styleID: g.penID}
		return
	}
	if w == 2 && g.cx == g.cols-1 && !g.pending {
		if insert {
			g.insertBlanks(w) // in the last column: blanks it
			insert = false
		}
		if !g.autowrap {
			g.last = lastPrint{}
			return
		}
		// It does not fit: wrap, leaving the last cell as it is.
		g.pending = true
	}
	fresh := g.beginCell()
	x0 := g.cx
	// In insert mode the halves stay as tmux leaves them, shifted apart.
	fix := g.anyWide && !fresh && !insert
	right := fix && g.isWideHead(x0+w-1)
	if fix {
		g.fixLeft(x0)
	}
	if insert {
		g.insertBlanks(w)
	}
	g.usePen(g.penID)
	g.emitCell(r, cluster)
	if w == 2 {
		g.putRune(continuationRune)
		g.anyWide = true
	}
	g.advance(w)
	if right {
		g.blankRight(x0 + w)
	}
	g.last = lastPrint{valid: true, styleID: g.penID}
}

// beginCell prepares vt10x for a character at the guard's cursor: it wraps a pending cursor
// (tmux's cx == sx) and keeps vt10x from wrapping where tmux would not. It reports whether the
// character starts a row the wrap scrolled in, which is blank: tmux, like vt10x, blanks a row
// that a wrap scrolls in with the default background.
func (g *guard) beginCell() (fresh bool) {
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
	// vt10x wraps at the next character and marks the row as wrapped.
	g.setVTWrap(true)
	g.vtWrap = false
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
			g.put(byte(r))
			return
		}
		if r < clusterBase {
			g.putRune(r)
			return
		}
		cluster = string(r)
	}
	g.putRune(g.clusterID(cluster))
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

// isWideHead reports whether cell x of the cursor's row holds the left half of a wide
// character. The overlay is read first and not handed over for this: a pane that once showed a
// wide character keeps the deferred path (a drain per printed run made such a pane's redraws
// 7-10x slower).
func (g *guard) isWideHead(x int) bool {
	if x < 0 || x+1 >= g.cols {
		return false
	}
	head, headHeld := g.ov.at(g.cy, x)
	next, nextHeld := g.ov.at(g.cy, x+1)
	if !headHeld || !nextHeld {
		g.flushScrolls() // the overlay's rows already moved with them; vt10x's grid must too
		g.e.flush()
	}
	if !nextHeld {
		next, _, _ = g.e.glyph(x+1, g.cy)
	}
	if next != continuationRune {
		return false
	}
	if !headHeld {
		head, _, _ = g.e.glyph(x, g.cy)
		if isClusterID(head) {
			head, _ = utf8.DecodeRuneInString(g.clusters.text(head))
		}
	}
	return RuneWidth(head) == 2
}

// fixLeft blanks the left half of a wide character whose right half is about to be overwritten
// at x, as tmux does. The cursor is at x with no wrap pending.
func (g *guard) fixLeft(x int) {
	if !g.isWideHead(x - 1) {
		return
	}
	g.usePen(0) // tmux blanks with the default cell
	g.putString("\b ")
}

// blankRight blanks the right half, at x, of a wide character whose left half was just
// overwritten. The cursor is at x.
func (g *guard) blankRight(x int) {
	if x >= g.cols {
		return
	}
	g.usePen(0) // tmux blanks with the default cell
	g.put(' ')
	if x < g.cols-1 {
		g.put('\b')
	} else {
		g.emitCSI(g.cols, 'G')
	}
}

// combine joins a zero-width code point to the cell before the cursor, as tmux does, by
// printing that cell again with the mark.
func (g *guard) combine(m rune) {
	g.sync()
	x := g.cx - 1
	if g.pending {
		x = g.cols - 1
	}
	if x < 0 {
		return
	}
	g.flush()
	ch, st, _ := g.e.glyph(x, g.cy)
	if ch == continuationRune && x > 0 {
		x--
		ch, st, _ = g.e.glyph(x, g.cy)
	}
	w := 1
	if x+1 < g.cols {
		if next, _, _ := g.e.glyph(x+1, g.cy); next == continuationRune {
			w = 2
		}
	}
	var text string
	switch {
	case ch == 0:
		text = " "
	case isClusterID(ch):
		text = g.clusters.text(ch)
	default:
		text = string(ch)
	}
	if len(text)+utf8.RuneLen(m) > maxClusterBytes {
		return
	}
	cx, cy, pending := g.cx, g.cy, g.pending
	g.moveTo(x, cy)
	g.usePen(st)
	g.emitCell(0, text+string(m))
	if w == 2 {
		g.putRune(continuationRune)
	}
	// Put vt10x's cursor back where the guard's was.
	if x+w == cx && !pending || x+w == g.cols && pending {
		g.cx, g.cy, g.pending, g.vtWrap = cx, cy, pending, x+w == g.cols
	} else {
		g.moveTo(cx, cy)
		if pending {
			g.setVTWrap(true)
			g.pending = true
		}
	}
	g.last.valid = false
}

// repeat prints the last character n more times (REP). As in tmux, only an ASCII character
// repeats, and no further than the end of the line.
func (g *guard) repeat(n int) {
	l := g.last
	if !l.valid || l.ascii == 0 {
		return
	}
	g.sync()
	room := g.cols - g.cx
	if g.pending {
		room = 0
	}
	if n = min(n, room); n <= 0 {
		return
	}
	g.printASCII(bytes.Repeat([]byte{l.ascii}, n))
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
