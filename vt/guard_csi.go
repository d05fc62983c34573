package vt

// execute performs a C0 control.
func (g *guard) execute(c byte) {
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
		g.last.valid = false
	case 0x0e: // SO
		g.gl = 1
	case 0x0f: // SI
		g.gl = 0
	}
}

// backspace moves left; at the first column it goes back over an autowrap, as tmux does.
func (g *guard) backspace() {
	g.sync()
	g.last.valid = false
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
	g.last.valid = false
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
	g.last.valid = g.last.valid && c.final == 'b' && c.prefix == 0
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
	case '@': // ICH
		g.usePen(g.eraseID)
		g.emitCSI(clamp(c.arg(0, 1), 1, cols), '@')
	case 'A': // CUU
		g.sync()
		n := c.arg(0, 1)
		if g.cy < g.top {
			n = min(n, g.cy)
		} else {
			n = min(n, g.cy-g.top)
		}
		g.moveTo(g.cx, g.cy-n)
	case 'B', 'e': // CUD, VPR
		g.sync()
		n := c.arg(0, 1)
		if g.cy > g.bottom {
			n = min(n, rows-1-g.cy)
		} else {
			n = min(n, g.bottom-g.cy)
		}
		g.moveTo(g.cx, g.cy+n)
	case 'C', 'a': // CUF, HPR
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
		row := c.arg(0, 1) - 1
		if g.origin {
			row += g.top
		}
		g.moveTo(c.arg(1, 1)-1, row)
	case 'd': // VPA
		g.sync()
		row := c.arg(0, 1) - 1
		if g.origin {
			row += g.top
		}
		g.moveTo(g.cx, row)
	case 'I': // CHT
		for n := clamp(c.arg(0, 1), 1, cols); n > 0; n-- {
			g.tab()
		}
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
		if m := c.arg(0, 0); m <= 2 {
			g.usePen(g.eraseID)
			g.emitCSI(m, 'K')
		}
	case 'L', 'M': // IL, DL
		g.usePen(g.eraseID)
		g.emitCSI(clamp(c.arg(0, 1), 1, rows), c.final)
	case 'P', 'X': // DCH, ECH
		g.usePen(g.eraseID)
		g.emitCSI(clamp(c.arg(0, 1), 1, cols), c.final)
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
			row := g.cy + 1
			if g.origin {
				row -= g.top
			}
			g.reply("\x1b[" + itoa(row) + ";" + itoa(g.cx+1) + "R")
		}
	case 'r': // DECSTBM
		top := c.arg(0, 1) - 1
		bottom := rows - 1
		if c.raw(1) > 0 {
			bottom = min(c.arg(1, rows), rows) - 1
		}
		top = min(top, rows-1)
		if top >= bottom {
			return
		}
		g.top, g.bottom = top, bottom
		g.e.emitString("\x1b[" + itoa(top+1) + ";" + itoa(bottom+1) + "r")
		// vt10x homes the cursor, as tmux does.
		g.cx, g.pending, g.vtWrap, g.known = 0, false, false, true
		g.cy = 0
		if g.origin {
			g.cy = top
		}
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

// eraseDisplay is ED. vt10x leaves row 0 alone for ED 1 on row 1, so that case is done by rows.
func (g *guard) eraseDisplay(mode int) {
	switch mode {
	case 0, 2:
		g.usePen(g.eraseID)
		g.emitCSI(mode, 'J')
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
	case 6: // DECOM: vt10x homes the cursor
		g.origin = set
		g.e.emitString(modeSeq(6, set))
		g.cx, g.pending, g.vtWrap, g.known = 0, false, false, true
		g.cy = 0
		if set {
			g.cy = g.top
		}
	case 7: // DECAWM
		g.autowrap = set
		g.e.emitString(modeSeq(7, set))
		if !set {
			g.pending = false
		}
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

// altScreen switches screens. vt10x swaps even when already on the asked screen, so the guard
// passes only real switches, as tmux ignores the others.
func (g *guard) altScreen(m int, set bool) {
	if set == g.modes.AltScreen {
		return
	}
	seq := modeSeq(m, set)
	g.last.valid = false
	if set {
		g.rememberHidden()
		if m == 1049 {
			// vt10x saves its cursor after swapping, with the pen it has then.
			g.usePen(g.penID)
			g.saveState()
		}
		g.e.emitString(seq)
		g.modes.AltScreen = true
		return
	}
	// vt10x blanks the alternate screen from its pen as it leaves: make that the default.
	g.usePen(0)
	g.e.emitString(seq)
	g.modes.AltScreen = false
	g.hiddenStyles, g.hiddenClusters = nil, nil
	if m == 1049 {
		g.restoreCursorState()
	}
	g.forget()
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
	g.e.emitString("\x1b[?6l\x1b[?7h\x1b[r")
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
