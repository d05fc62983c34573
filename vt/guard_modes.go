package vt

// Modes, screens and saved cursors.

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
		g.putString(modeSeq(7, set))
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
		// 1048 (save or restore the cursor alone) is ignored, as tmux 3.3a does.
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
			g.altSaved = altCursor{valid: true, x: g.cx, y: g.cy, pen: g.pen}
		}
		g.putString("\x1b[?1047h")
		g.modes.AltScreen = true
		return
	}
	// tmux brings a pending cursor back on screen.
	if g.sync(); g.pending {
		g.pending = false
		g.setVTWrap(false)
	}
	// vt10x blanks the alternate screen from its pen as it leaves: make that the default.
	g.usePen(0)
	g.putString("\x1b[?1047l")
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
	g.putString("\x1b7")
	g.vtSavedHome = false
	g.saveState()
}

func (g *guard) saveState() {
	g.saved = savedCursor{valid: true, pen: g.pen, penID: g.penID, g: g.g, gl: g.gl, origin: g.origin}
}

// restoreCursor is DECRC.
func (g *guard) restoreCursor() {
	g.putString("\x1b8")
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
	g.engPen, g.wantPen = s.penID, s.penID
}

// rememberHidden records the ids the main screen uses before it is hidden, so that sweeps keep
// them.
func (g *guard) rememberHidden() {
	g.flush()
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
