package vt

import (
	"strings"
	"unicode/utf8"
)

// execute performs a C0 control.
func (g *guard) execute(c byte) {
	if g.lm.active {
		if g.lmExecute(c) {
			return
		}
		g.materialize()
	}
	g.last = lastPrint{}
	switch c {
	case '\b':
		g.backspace()
	case '\t':
		g.tab()
	case '\n', '\v', '\f':
		g.lineFeed()
	case '\r':
		g.e.out = append(g.e.out, '\r')
		g.cx, g.pending, g.vtWrap = 0, false, false
		g.last = lastPrint{}
	case 0x0e: // SO
		g.gl = 1
	case 0x0f: // SI
		g.gl = 0
	}
}

// tmuxKnows reports whether tmux 3.3a acts on a control sequence.
func tmuxKnows(c *csiSeq) bool {
	switch c.prefix {
	case 0:
		return c.final != 'b' && strings.IndexByte("@ABCDEFGHJKLMPSTXZ`cdfghlmnqrstu", c.final) >= 0
	case '?':
		return c.final == 'h' || c.final == 'l'
	case '>':
		return c.final == 'c' || c.final == 'm' || c.final == 'q'
	}
	return false
}

// backspace moves left; at the first column it goes back over an autowrap, as tmux does.
func (g *guard) backspace() {
	g.sync()
	g.last = lastPrint{}
	switch {
	case g.pending:
		g.pending = false
		g.setVTWrap(false)
	case g.cx > 0:
		g.e.out = append(g.e.out, '\b')
		g.cx--
		g.vtWrap = false
	case g.cy > 0:
		g.e.flush()
		if _, _, wrapped := g.e.glyph(g.cols-1, g.cy-1); wrapped {
			g.moveTo(g.cols-1, g.cy-1)
		}
	}
}

// tab moves to the next tab stop, or the last column.
func (g *guard) tab() {
	g.sync()
	g.last = lastPrint{}
	if g.pending || g.cx >= g.cols-1 {
		return
	}
	x := g.cx + 1
	for x < g.cols-1 && !g.tabs[x] {
		x++
	}
	g.emitCSI(x-g.cx, 'C')
	g.cx, g.vtWrap = x, false
}

// csiDispatch acts on a control sequence. vt10x sees only the sequences it handles correctly,
// with parameters clamped; everything else is done here or dropped.
func (g *guard) csiDispatch(c *csiSeq) {
	if g.lm.active && !(c.final == 'm' && c.prefix == 0 && c.inter == 0) {
		g.materialize()
	}
	if tmuxKnows(c) {
		// tmux forgets the character REP repeats after any sequence it knows but REP.
		g.last = lastPrint{}
	}
	switch c.prefix {
	case '?':
		if c.inter == 0 && (c.final == 'h' || c.final == 'l') {
			for i := 0; i < c.n; i++ {
				g.privateMode(int(c.params[i]), c.final == 'h')
			}
		}
		return
	case '>':
		if c.final == 'c' && c.inter == 0 && c.arg(0, 0) == 0 {
			g.reply("\x1b[>84;0;0c") // DA2, as tmux answers
		}
		return
	case 0:
	default:
		return
	}
	switch c.inter {
	case 0:
	case ' ':
		if c.final == 'q' { // DECSCUSR
			if s := c.arg(0, 0); s <= int(CursorBar) {
				g.shape = CursorShape(s)
			}
		}
		return
	case '!':
		if c.final == 'p' {
			g.softReset()
		}
		return
	default:
		return
	}
	rows, cols := g.rows, g.cols
	switch c.final {
	case '@': // ICH; from a pending cursor (past the last column) it does nothing, as in tmux
		if g.sync(); !g.pending {
			g.insertBlanks(c.arg(0, 1))
		}
	case 'A': // CUU
		g.sync()
		n := c.arg(0, 1)
		if g.cy < g.top {
			n = min(n, g.cy)
		} else {
			n = min(n, g.cy-g.top)
		}
		g.moveTo(g.cx, g.cy-n)
	case 'B': // CUD (tmux 3.3a has no VPR)
		g.sync()
		n := c.arg(0, 1)
		if g.cy > g.bottom {
			n = min(n, rows-1-g.cy)
		} else {
			n = min(n, g.bottom-g.cy)
		}
		g.moveTo(g.cx, g.cy+n)
	case 'C': // CUF (tmux 3.3a has no HPR)
		g.sync()
		g.moveTo(min(g.cx+c.arg(0, 1), cols-1), g.cy)
	case 'D': // CUB
		g.sync()
		x := g.cx
		if g.pending {
			x = cols // tmux counts from one past the last column
		}
		g.moveTo(max(x-c.arg(0, 1), 0), g.cy)
	case 'E': // CNL
		g.csiDispatch(&csiSeq{final: 'B', n: 1, params: [maxParams]int32{int32(c.arg(0, 1))}})
		g.moveTo(0, g.cy)
	case 'F': // CPL
		g.csiDispatch(&csiSeq{final: 'A', n: 1, params: [maxParams]int32{int32(c.arg(0, 1))}})
		g.moveTo(0, g.cy)
	case 'G', '`': // CHA, HPA
		g.sync()
		g.moveTo(c.arg(0, 1)-1, g.cy)
	case 'H', 'f': // CUP, HVP
		g.moveTo(c.arg(1, 1)-1, g.originRow(c.arg(0, 1)-1))
	case 'd': // VPA; tmux keeps a pending cursor pending
		g.sync()
		pending := g.pending
		g.moveTo(g.cx, g.originRow(c.arg(0, 1)-1))
		if pending {
			g.setVTWrap(true)
			g.pending = true
		}
	case 'I': // CHT: tmux 3.3a ignores it, and so do we (terminfo never sends it)
	case 'Z': // CBT
		g.sync()
		x := g.cx
		for n := clamp(c.arg(0, 1), 1, cols); n > 0 && x > 0; n-- {
			x--
			for x > 0 && !g.tabs[x] {
				x--
			}
		}
		g.moveTo(x, g.cy)
	case 'J': // ED
		g.eraseDisplay(c.arg(0, 0))
	case 'K': // EL
		g.sync()
		if m := c.arg(0, 0); m <= 2 && !(m == 0 && g.pending) {
			g.usePen(g.eraseID)
			g.emitCSI(m, 'K')
		}
	case 'L', 'M': // IL, DL
		g.insertDeleteLines(clamp(c.arg(0, 1), 1, rows), c.final)
	case 'P', 'X': // DCH, ECH
		if g.sync(); !g.pending {
			g.usePen(g.eraseID)
			g.emitCSI(clamp(c.arg(0, 1), 1, cols), c.final)
		}
	case 'S': // SU
		if c.n <= 1 {
			n := clamp(c.arg(0, 1), 1, rows)
			g.capture(n)
			g.usePen(g.eraseID)
			g.emitCSI(n, 'S')
		}
	case 'T': // SD; with more parameters it is xterm's mouse highlighting
		if c.n <= 1 {
			g.usePen(g.eraseID)
			g.emitCSI(clamp(c.arg(0, 1), 1, rows), 'T')
		}
	case 'b': // REP
		g.repeat(c.arg(0, 1))
	case 'c': // DA1
		if c.arg(0, 0) == 0 {
			g.reply("\x1b[?1;2c") // as tmux answers
		}
	case 'g': // TBC
		switch c.arg(0, 0) {
		case 0:
			g.sync()
			g.tabs[g.cx] = false
		case 3:
			clear(g.tabs)
		}
	case 'h', 'l': // SM, RM
		for i := 0; i < c.n; i++ {
			if c.params[i] == 4 { // IRM
				g.insert = c.final == 'h'
			}
		}
	case 'm':
		g.sgr(c)
	case 'n': // DSR
		switch c.arg(0, 0) {
		case 5:
			g.reply("\x1b[0n")
		case 6:
			g.sync()
			g.reply("\x1b[" + itoa(g.cy+1) + ";" + itoa(g.cx+1) + "R") // as tmux: not origin-relative
		}
	case 'r': // DECSTBM
		// As tmux reads them: an omitted bottom is the last row, a zero one the first.
		top := c.arg(0, 1) - 1
		bottom := rows - 1
		if c.raw(1) >= 0 {
			bottom = min(c.arg(1, 1), rows) - 1
		}
		top = min(top, rows-1)
		if top >= bottom {
			return
		}
		g.top, g.bottom = top, bottom
		g.e.emitString("\x1b[" + itoa(top+1) + ";" + itoa(bottom+1) + "r")
		// vt10x homes the cursor; tmux homes it to the top left whatever the origin mode.
		g.cx, g.cy, g.pending, g.vtWrap, g.known = 0, 0, false, false, true
	case 's': // SCOSC; with parameters it is something else
		if c.n == 0 {
			g.saveCursor()
		}
	case 'u': // SCORC
		if c.n == 0 {
			g.restoreCursor()
		}
	}
}

// insertBlanks is ICH at the cursor, as tmux does it: it shifts the rest of the row right by n
// and blanks only as many cells as it shifted, so with n over half the room left some cells keep
// what they had (tmux's grid_move_cells). vt10x blanks all n; the guard puts the others back.
func (g *guard) insertBlanks(n int) {
	g.sync()
	px := g.cx
	n = clamp(n, 1, g.cols-px)
	moved := g.cols - px - n
	type kept struct {
		ch rune
		st uint32
	}
	var keep []kept
	if moved < n && px < g.cols-1 { // in the last column tmux just blanks the cell
		g.e.flush()
		for x := px + moved; x < px+n; x++ {
			ch, st, _ := g.e.glyph(x, g.cy)
			if ch == 0 {
				ch = ' '
			}
			keep = append(keep, kept{ch, st})
		}
	}
	g.usePen(g.eraseID)
	g.emitCSI(n, '@')
	if keep == nil {
		return
	}
	g.moveTo(px+moved, g.cy)
	for _, k := range keep {
		g.usePen(k.st)
		g.e.out = utf8.AppendRune(g.e.out, k.ch)
	}
	g.moveTo(px, g.cy)
}

// insertDeleteLines is IL or DL. Outside the scrolling region tmux acts on the rows from the
// cursor to the bottom of the screen, where vt10x would do nothing: the guard lifts the region
// for the while.
func (g *guard) insertDeleteLines(n int, final byte) {
	g.sync()
	g.unwrapAbove()
	g.usePen(g.eraseID)
	if g.cy >= g.top && g.cy <= g.bottom {
		g.emitCSI(n, final)
		return
	}
	cx, cy, pending := g.cx, g.cy, g.pending
	// tmux's IL there blanks only as many rows as it moved (grid_move_lines); the others keep
	// what they had.
	n = min(n, g.rows-cy)
	moved := g.rows - cy - n
	var keep [][]Cell
	if final == 'L' && moved < n {
		g.e.flush()
		for y := cy + moved; y < cy+n; y++ {
			row := make([]Cell, g.cols)
			g.readRow(y, row)
			keep = append(keep, row)
		}
	}
	g.e.emitString("\x1b[r")
	g.moveTo(cx, cy)
	g.emitCSI(n, final)
	for i, row := range keep {
		g.moveTo(0, cy+moved+i)
		g.writeRow(row)
	}
	g.e.emitString("\x1b[" + itoa(g.top+1) + ";" + itoa(g.bottom+1) + "r")
	g.moveTo(cx, cy)
	if pending {
		g.setVTWrap(true)
		g.pending = true
	}
}

// unwrapAbove clears the wrap mark of the row above the cursor, as tmux's grid_move_lines does
// when lines move under it: vt10x keeps the mark in the last cell, so that cell is written again.
func (g *guard) unwrapAbove() {
	if g.cy == 0 {
		return
	}
	g.e.flush()
	ch, st, wrapped := g.e.glyph(g.cols-1, g.cy-1)
	if !wrapped {
		return
	}
	if ch == 0 {
		ch = ' '
	}
	cx, cy, pending := g.cx, g.cy, g.pending
	g.moveTo(g.cols-1, cy-1)
	g.usePen(st)
	g.e.out = utf8.AppendRune(g.e.out, ch)
	g.moveTo(cx, cy)
	if pending {
		g.setVTWrap(true)
		g.pending = true
	}
}

// writeRow writes back a row read by readRow, from the cursor at its start. The caller moves
// the cursor afterwards, which vt10x may leave waiting to wrap.
func (g *guard) writeRow(row []Cell) {
	for x := 0; x < len(row); x++ {
		c := row[x]
		if c.Width == 0 {
			continue
		}
		g.usePen(g.intern(c.Style))
		text := string(c.Rune) + string(c.Comb)
		if c.Comb == nil && c.Rune < clusterBase {
			g.emitCell(c.Rune, "")
		} else {
			g.emitCell(0, text)
		}
		if c.Width == 2 {
			g.e.out = utf8.AppendRune(g.e.out, continuationRune)
			x++
		}
	}
}

// eraseDisplay is ED. vt10x leaves row 0 alone for ED 1 on row 1, so that case is done by rows.
func (g *guard) eraseDisplay(mode int) {
	switch mode {
	case 0:
		g.sync()
		g.usePen(g.eraseID)
		if !g.pending {
			g.emitCSI(0, 'J')
			return
		}
		// From a pending cursor the row keeps its last cell, as in tmux.
		if g.cy < g.rows-1 {
			cy := g.cy
			g.moveTo(0, cy+1)
			g.emitCSI(0, 'J')
			g.moveTo(g.cols-1, cy)
			g.setVTWrap(true)
			g.pending = true
		}
	case 2:
		g.usePen(g.eraseID)
		g.emitCSI(2, 'J')
	case 1:
		g.sync()
		g.usePen(g.eraseID)
		if g.cy != 1 {
			g.emitCSI(1, 'J')
			return
		}
		cx, pending, vtWrap := g.cx, g.pending, g.vtWrap
		g.moveTo(0, 0)
		g.emitCSI(2, 'K')
		g.moveTo(cx, 1)
		g.emitCSI(1, 'K')
		g.pending = pending
		g.setVTWrap(vtWrap)
	case 3:
		g.hist.clear()
	}
}

// privateMode sets or resets a DEC private mode.
func (g *guard) privateMode(m int, set bool) {
	switch m {
	case 1:
		g.modes.AppCursor = set
	case 6: // DECOM, kept from vt10x: the guard applies it
		g.origin = set
		g.moveTo(0, g.originRow(0))
	case 7: // DECAWM
		// A pending cursor stays pending: tmux then drops characters until it moves.
		g.autowrap = set
		g.e.emitString(modeSeq(7, set))
	case 9:
		g.setMouse(MouseX10, set)
	case 1000:
		g.setMouse(MouseNormal, set)
	case 1002:
		g.setMouse(MouseButton, set)
	case 1003:
		g.setMouse(MouseAny, set)
	case 1004:
		g.modes.FocusEvents = set
	case 1005:
		g.setMouseEncoding(MouseEncodingUTF8, set)
	case 1006:
		g.setMouseEncoding(MouseEncodingSGR, set)
	case 1015:
		g.setMouseEncoding(MouseEncodingURXVT, set)
	case 25:
		g.cursorVisible = set
	case 2004:
		g.modes.BracketedPaste = set
	case 47, 1047, 1049:
		g.altScreen(m, set)
	case 1048:
		if set {
			g.saveCursor()
		} else {
			g.restoreCursor()
		}
	}
}

func (g *guard) setMouse(m MouseTracking, set bool) {
	if set {
		g.modes.Mouse = m
	} else {
		g.modes.Mouse = MouseNone
	}
}

func (g *guard) setMouseEncoding(e MouseEncoding, set bool) {
	if set {
		g.modes.MouseEncoding = e
	} else if g.modes.MouseEncoding == e {
		g.modes.MouseEncoding = MouseEncodingX10
	}
}

// altScreen switches screens. vt10x swaps even when already on the asked screen and keeps one
// saved cursor for DECSC and 1049 together, so it only ever sees 1047 (swap, and blank the
// alternate screen on the way out); the guard keeps the 1049 cursor apart, as tmux does.
func (g *guard) altScreen(m int, set bool) {
	if !set && !g.modes.AltScreen {
		// tmux still restores a cursor 1049 saved, or brings a pending one back on screen.
		if s := g.altSaved; m == 1049 && s.valid {
			g.setPen(s.pen)
			g.moveTo(s.x, s.y)
		} else if g.sync(); g.pending {
			g.pending = false
			g.setVTWrap(false)
		}
		return
	}
	if set == g.modes.AltScreen {
		return
	}
	g.last = lastPrint{}
	if set {
		g.rememberHidden()
		if m == 1049 {
			g.sync()
			g.altSaved = altCursor{valid: true, x: g.cx, y: g.cy, pen: g.pen, g: g.g, gl: g.gl}
		}
		g.e.emitString("\x1b[?1047h")
		g.modes.AltScreen = true
		return
	}
	// vt10x blanks the alternate screen from its pen as it leaves: make that the default.
	g.usePen(0)
	g.e.emitString("\x1b[?1047l")
	g.modes.AltScreen = false
	g.hiddenStyles, g.hiddenClusters = nil, nil
	if s := g.altSaved; m == 1049 && s.valid {
		g.setPen(s.pen)    // tmux restores the pen but not the character sets
		g.moveTo(s.x, s.y) // tmux keeps it for a later 1049l
	}
}

// saveCursor is DECSC: vt10x saves the position and pen, the guard the rest.
func (g *guard) saveCursor() {
	g.usePen(g.penID)
	g.e.emitString("\x1b7")
	g.saveState()
}

func (g *guard) saveState() {
	g.saved = savedCursor{valid: true, pen: g.pen, penID: g.penID, g: g.g, gl: g.gl, origin: g.origin}
}

// restoreCursor is DECRC.
func (g *guard) restoreCursor() {
	g.e.emitString("\x1b8")
	g.restoreCursorState()
	g.forget()
}

// restoreCursorState restores what saveCursor kept beside vt10x's cursor, which vt10x has just
// restored.
func (g *guard) restoreCursorState() {
	s := g.saved
	if !s.valid {
		s = savedCursor{}
	}
	g.pen, g.penID, g.g, g.gl, g.origin = s.pen, s.penID, s.g, s.gl, s.origin
	g.eraseID = g.intern(Style{BG: g.pen.BG})
	g.engPen = s.penID
}

// softReset is DECSTR.
func (g *guard) softReset() {
	g.sync()
	cx, cy := g.cx, g.cy
	g.insert = false
	g.modes.AppCursor, g.modes.AppKeypad = false, false
	g.cursorVisible = true
	g.g, g.gl = [4]bool{}, 0
	g.setPen(Style{})
	g.e.emitString("\x1b[?7h\x1b[r")
	g.origin, g.autowrap = false, true
	g.top, g.bottom = 0, g.rows-1
	g.saved = savedCursor{}
	g.moveTo(cx, cy)
}

// rememberHidden records the ids the main screen uses before it is hidden, so that sweeps keep
// them.
func (g *guard) rememberHidden() {
	g.e.flush()
	g.hiddenStyles, g.hiddenClusters = map[uint32]bool{}, map[rune]bool{}
	for y := 0; y < g.rows; y++ {
		for x := 0; x < g.cols; x++ {
			ch, st, _ := g.e.glyph(x, y)
			if st != 0 {
				g.hiddenStyles[st] = true
			}
			if isClusterID(ch) {
				g.hiddenClusters[ch] = true
			}
		}
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func modeSeq(m int, set bool) string {
	if set {
		return "\x1b[?" + itoa(m) + "h"
	}
	return "\x1b[?" + itoa(m) + "l"
}
