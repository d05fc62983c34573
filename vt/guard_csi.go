package vt

import (
	"strconv"
	"strings"
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
		if g.known {
			g.moveTo(0, g.cy)
		} else {
			g.put('\r')
			g.cx, g.pending, g.vtWrap = 0, false, false
		}
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
		g.moveTo(g.cx-1, g.cy)
	case g.cy > 0:
		g.flush()
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
	pending := g.pending
	g.moveTo(x, g.cy)
	g.pending = pending
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
		return // DECSTR: tmux 3.3a ignores it, and so do we
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
			if g.eraseOK() {
				x0, x1 := 0, g.cols
				switch m {
				case 0:
					x0 = g.cx
				case 1:
					x1 = g.cx + 1
				}
				g.eraseDeferred(x0, g.cy, x1, g.cy+1)
				break
			}
			g.usePen(g.eraseID)
			g.emitCSI(m, 'K')
		}
	case 'L', 'M': // IL, DL
		g.insertDeleteLines(clamp(c.arg(0, 1), 1, rows), c.final)
	case 'P', 'X': // DCH, ECH
		if g.sync(); !g.pending {
			if n := clamp(c.arg(0, 1), 1, cols); c.final == 'X' && g.eraseOK() {
				g.eraseDeferred(g.cx, g.cy, min(g.cx+n, cols), g.cy+1)
			} else {
				g.usePen(g.eraseID)
				g.emitCSI(n, c.final)
			}
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
			g.reply("\x1b[" + strconv.Itoa(g.cy+1) + ";" + strconv.Itoa(g.cx+1) + "R") // as tmux: not origin-relative
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
		// tmux homes the cursor to the top left whatever the origin mode.
		g.moveTo(0, 0)
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

func modeSeq(m int, set bool) string {
	if set {
		return "\x1b[?" + strconv.Itoa(m) + "h"
	}
	return "\x1b[?" + strconv.Itoa(m) + "l"
}
