package vt

// Reflow: when the width of the main screen changes, lines that wrapped are wrapped again at the
// new width, the scrollback included, as tmux 3.3a does (its grid_reflow): a line too long for
// the new width is split, a wrapped line that now has room takes back what wrapped onto the
// next. The height changes first, as in tmux: rows below the cursor go first, then rows above
// it go to the scrollback; growing brings lines back from the scrollback. The alternate screen
// is cut and padded, not reflowed (tmux neither).

// rline is one line of the grid being reflowed: its cells up to the last one written (trailing
// default blanks left out) and whether it continues on the next line.
type rline struct {
	cells   []Cell
	wrapped bool
	dead    bool // joined into the line before
}

// width is the number of cells the line's characters take.
func (l *rline) width() int {
	w := 0
	for _, c := range l.cells {
		w += int(c.Width)
	}
	return w
}

// usedCells trims row to the cells tmux would count as written: all of a wrapped row (less a
// last cell left blank when a wide character did not fit), else up to the last cell other
// than a default blank, and at least up to the cursor column cx (-1 if not on this row).
func usedCells(row []Cell, wrapped bool, cx int) []Cell {
	end := len(row)
	if !wrapped {
		for end > 0 && isBlank(row[end-1]) {
			end--
		}
		end = max(end, min(cx, len(row)))
	}
	return append([]Cell(nil), row[:end]...)
}

// reflowLines wraps src at width sx as tmux's grid_reflow does.
func reflowLines(src []rline, sx int) []rline {
	var out []rline
	for yy := range src {
		l := &src[yy]
		if l.dead {
			continue
		}
		width := l.width()
		switch {
		case width == sx:
			out = append(out, rline{cells: l.cells, wrapped: l.wrapped})
		case width > sx:
			out = splitLine(out, src, sx, yy)
		case l.wrapped:
			out = append(out, rline{cells: append([]Cell(nil), l.cells...), wrapped: true})
			out = joinLines(out, src, sx, yy, width)
		default:
			out = append(out, rline{cells: l.cells})
		}
	}
	return out
}

// splitLine cuts src[yy], wider than sx, into rows of out.
func splitLine(out []rline, src []rline, sx, yy int) []rline {
	l := &src[yy]
	cur := rline{wrapped: true}
	width := 0
	for _, c := range l.cells {
		if width+int(c.Width) > sx {
			out = append(out, cur)
			cur = rline{wrapped: true}
			width = 0
		}
		width += int(c.Width)
		cur.cells = append(cur.cells, c)
	}
	cur.wrapped = l.wrapped
	out = append(out, cur)
	l.dead = true
	if l.wrapped {
		out = joinLines(out, src, sx, yy, width)
	}
	return out
}

// joinLines fills the last line of out (width cells used, taken from src[yy]) with what follows
// src[yy], as far as it fits.
func joinLines(out []rline, src []rline, sx, yy, width int) []rline {
	to := &out[len(out)-1]
	lines := 0
	wrapped := true
	var from *rline // the last line taken from
	want := 0
	for {
		line := yy + 1 + lines
		if line >= len(src) {
			break
		}
		next := &src[line]
		if !next.wrapped {
			wrapped = false
		}
		if len(next.cells) == 0 {
			if !wrapped {
				break
			}
			lines++
			continue
		}
		if width+int(next.cells[0].Width) > sx {
			break
		}
		from = next
		for want = 0; want < len(from.cells); want++ {
			w := int(from.cells[want].Width)
			if width+w > sx {
				break
			}
			width += w
			to.cells = append(to.cells, from.cells[want])
		}
		lines++
		if !wrapped || want != len(from.cells) || width == sx {
			break
		}
	}
	if lines == 0 {
		return out
	}
	left := 0
	if from != nil {
		left = len(from.cells) - want
	}
	if left != 0 {
		from.cells = from.cells[want:]
		lines--
	} else if !wrapped {
		to.wrapped = false
	}
	for i := yy + 1; i < yy+1+lines; i++ {
		src[i].dead = true
	}
	return out
}

// reflow resizes the main screen to cols x rows, rewrapping every line.
func (g *guard) reflow(cols, rows int) {
	g.settle()
	g.sync()
	oldCols, oldRows := g.cols, g.rows
	hlen := g.hist.len()
	lines := make([]rline, 0, hlen+oldRows)
	row := make([]Cell, oldCols)
	for i := 0; i < hlen; i++ {
		l := g.hist.line(i)
		l.cells(row)
		lines = append(lines, rline{cells: usedCells(row, l.wrapped, -1), wrapped: l.wrapped})
	}
	cx := g.cx
	if g.pending {
		cx = oldCols
	}
	for y := 0; y < oldRows; y++ {
		wrapped := g.readRow(y, row)
		x := -1
		if y == g.cy {
			x = cx
		}
		lines = append(lines, rline{cells: usedCells(row, wrapped, x), wrapped: wrapped})
	}

	// A wrapped row whose last cell stayed blank because a wide character did not fit: tmux
	// never wrote that cell, so it is not part of the line.
	for i := 0; i+1 < len(lines); i++ {
		l, next := &lines[i], &lines[i+1]
		if n := len(l.cells); l.wrapped && n > 0 && len(next.cells) > 0 && next.cells[0].Width == 2 && isBlank(l.cells[n-1]) {
			l.cells = l.cells[:n-1]
		}
	}

	// The height first (tmux's screen_resize_y).
	hsize, cy := hlen, g.cy
	if rows < oldRows {
		needed := oldRows - rows
		if avail := min(oldRows-1-cy, needed); avail > 0 {
			lines = lines[:len(lines)-avail]
			needed -= avail
		}
		hsize += needed
		cy -= needed
	} else if rows > oldRows {
		needed := rows - oldRows
		avail := min(hsize, needed)
		hsize -= avail
		cy += avail
		for i := avail; i < needed; i++ {
			lines = append(lines, rline{})
		}
	}

	// Where the cursor is in its unwrapped line (tmux's grid_wrap_position).
	py := hsize + cy
	wx, wy := 0, 0
	for yy := 0; yy < py; yy++ {
		if lines[yy].wrapped {
			wx += len(lines[yy].cells)
		} else {
			wx, wy = 0, wy+1
		}
	}
	if cx >= len(lines[py].cells) {
		wx = -1 // the end of the line
	} else {
		wx += cx
	}

	out := reflowLines(lines, cols)
	for len(out) < rows {
		out = append(out, rline{})
	}
	newH := len(out) - rows

	// Back to a row and column (tmux's grid_unwrap_position).
	yy := 0
	for ay := 0; yy < len(out)-1; yy++ {
		if ay == wy {
			break
		}
		if !out[yy].wrapped {
			ay++
		}
	}
	if wx < 0 {
		for yy < len(out)-1 && out[yy].wrapped {
			yy++
		}
		wx = len(out[yy].cells)
	} else {
		for yy < len(out)-1 && out[yy].wrapped && wx >= len(out[yy].cells) {
			wx -= len(out[yy].cells)
			yy++
		}
	}
	ncx, ncy := wx, yy-newH
	if ncy < 0 {
		ncx, ncy = 0, 0
	}

	// The scrollback.
	g.hist.clear()
	for _, l := range out[max(0, newH-g.hist.max):newH] {
		row := make([]Cell, cols)
		copy(row, l.cells)
		for x := len(l.cells); x < cols; x++ {
			row[x] = blankCell
		}
		if h := g.hist.next(); h != nil {
			h.set(row, l.wrapped)
		}
	}

	// The screen: vt10x wraps a row onto the next itself, which marks it wrapped.
	g.usePen(0)
	g.prep()
	g.e.resize(cols, rows)
	g.cols, g.rows = cols, rows
	g.top, g.bottom = 0, rows-1
	g.vtTop, g.vtBottom = 0, rows-1
	g.tabs = defaultTabs(g.tabs, cols)
	g.row = make([]Cell, cols)
	g.ov.reset(rows)
	g.putString("\x1b[2J")
	if !g.autowrap {
		g.putString("\x1b[?7h")
	}
	screen := out[newH:]
	for y, l := range screen {
		if y == 0 || !screen[y-1].wrapped {
			g.moveTo(0, y)
		}
		cells := l.cells
		if l.wrapped && y+1 < len(screen) {
			for len(cells) < cols {
				cells = append(cells, blankCell)
			}
			if len(screen[y+1].cells) == 0 {
				screen[y+1].cells = []Cell{blankCell}
			}
		}
		g.writeRow(cells)
	}
	if !g.autowrap {
		g.putString("\x1b[?7l")
	}
	g.last = lastPrint{}
	pending := ncx >= cols
	g.moveTo(min(ncx, cols-1), ncy)
	if pending && g.autowrap {
		g.setVTWrap(true)
		g.pending = true
	}
}

func isBlank(c Cell) bool {
	return c.Rune == ' ' && c.Width == 1 && c.Style == (Style{}) && c.Comb == nil
}
