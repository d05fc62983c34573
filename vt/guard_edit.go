package vt

// Editing sequences whose vt10x versions differ from tmux: erase, insert and delete.

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
		g.flush()
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
		g.putRune(k.ch)
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
		g.flush()
		for y := cy + moved; y < cy+n; y++ {
			row := make([]Cell, g.cols)
			g.readRow(y, row)
			keep = append(keep, row)
		}
	}
	top, bottom := g.top, g.bottom
	g.top, g.bottom = 0, g.rows-1
	g.moveTo(cx, cy)
	g.emitCSI(n, final)
	for i, row := range keep {
		g.moveTo(0, cy+moved+i)
		g.writeRow(row)
	}
	g.top, g.bottom = top, bottom
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
	g.flush()
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
	g.putRune(ch)
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
			g.putRune(continuationRune)
			x++
		}
	}
}

// eraseDisplay is ED. vt10x leaves row 0 alone for ED 1 on row 1, so that case is done by rows.
func (g *guard) eraseDisplay(mode int) {
	if g.sync(); mode <= 2 && g.eraseOK() && !(mode == 0 && g.pending) {
		switch mode {
		case 0:
			g.eraseDeferred(g.cx, g.cy, g.cols, g.cy+1)
			g.eraseDeferred(0, g.cy+1, g.cols, g.rows)
		case 1:
			g.eraseDeferred(0, 0, g.cols, g.cy)
			g.eraseDeferred(0, g.cy, g.cx+1, g.cy+1)
		case 2:
			g.eraseDeferred(0, 0, g.cols, g.rows)
		}
		return
	}
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
