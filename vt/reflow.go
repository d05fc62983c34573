package vt

import "unicode/utf8"

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
			cells := make([]Cell, len(l.cells), max(sx, len(l.cells))) // room for what the join brings
			copy(cells, l.cells)
			out = append(out, rline{cells: cells, wrapped: true})
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
	// Each row's cells are allocated once, for as many as can fit.
	cur := rline{cells: make([]Cell, 0, min(sx, len(l.cells))), wrapped: true}
	width := 0
	for i, c := range l.cells {
		if width+int(c.Width) > sx {
			out = append(out, cur)
			cur = rline{cells: make([]Cell, 0, min(sx, len(l.cells)-i)), wrapped: true}
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

// reflow resizes the main screen to cols x rows, rewrapping every line. The scrollback is
// rewrapped one logical line at a time (a row and the rows it wrapped onto), so only that line
// is ever held as cells: the rest stays in the scrollback's compact form, and a line that needs
// no rewrapping is moved over as it is. Resizing a pane with 10,000 lines of history needs
// about that history's memory again, not the tens of megabytes of it as cells.
func (g *guard) reflow(cols, rows int) {
	g.settle()
	g.sync()
	oldCols, oldRows := g.cols, g.rows
	hlen := g.hist.len()
	row := make([]Cell, oldCols)
	cx := g.cx
	if g.pending {
		cx = oldCols
	}
	screen := make([]rline, 0, max(rows, oldRows))
	for y := 0; y < oldRows; y++ {
		wrapped := g.readRow(y, row)
		x := -1
		if y == g.cy {
			x = cx
		}
		screen = append(screen, rline{cells: usedCells(row, wrapped, x), wrapped: wrapped})
	}
	trimWideGaps(screen)

	// The height first (tmux's screen_resize_y).
	hsize, cy := hlen, g.cy
	if rows < oldRows {
		needed := oldRows - rows
		if avail := min(oldRows-1-cy, needed); avail > 0 {
			screen = screen[:len(screen)-avail]
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
			screen = append(screen, rline{})
		}
	}

	// Rewrap the scrollback then the screen, one logical line at a time, noting where the
	// cursor is in its unwrapped line (tmux's grid_wrap_position).
	py := hsize + cy
	wx, wy := 0, 0
	out := reflowed{cols: cols, rows: rows}
	var group []rline // the logical line being gathered
	first := 0        // the index of group[0]
	flush := func() {
		for i := range group {
			switch yy := first + i; {
			case yy < py && group[i].wrapped:
				wx += len(group[i].cells)
			case yy < py:
				wx, wy = 0, wy+1
			case yy == py && cx >= len(group[i].cells):
				wx = -1 // the end of the line
			case yy == py:
				wx += cx
			}
		}
		for _, l := range reflowLines(group, cols) {
			out.add(l)
		}
		group = group[:0]
	}
	total := hlen + len(screen)
	for i := 0; i < total; i++ {
		if len(group) == 0 {
			first = i
		}
		var l rline
		if i < hlen {
			h := g.hist.line(i)
			// A line that did not wrap and fits as it is stays as it is (py is on the screen).
			n := utf8.RuneCount(h.text)
			if len(group) == 0 && !h.wrapped && n <= oldCols && n <= cols {
				if i < py {
					wx, wy = 0, wy+1
				}
				out.addStored(*h, n)
				continue
			}
			if h.wrapped {
				n = oldCols // usedCells keeps all of a wrapped row
			}
			l = rline{cells: make([]Cell, min(n, oldCols)), wrapped: h.wrapped}
			h.cells(l.cells) // as usedCells would trim it: the scrollback trims default blanks

		} else {
			l = screen[i-hlen]
		}
		if n := len(group); n > 0 && first+n-1 < hlen {
			trimWideGap(&group[n-1], l) // the screen's rows are trimmed already
		}
		group = append(group, l)
		if !l.wrapped {
			flush()
		}
	}
	if len(group) > 0 {
		flush()
	}
	for len(out.lines) < rows {
		out.add(rline{})
	}
	lines := out.lines
	newH := len(lines) - rows

	// Back to a row and column (tmux's grid_unwrap_position).
	yy := 0
	for ay := 0; yy < len(lines)-1; yy++ {
		if ay == wy {
			break
		}
		if !lines[yy].wrapped {
			ay++
		}
	}
	if wx < 0 {
		for yy < len(lines)-1 && lines[yy].wrapped {
			yy++
		}
		wx = lines[yy].n
	} else {
		for yy < len(lines)-1 && lines[yy].wrapped && wx >= lines[yy].n {
			wx -= lines[yy].n
			yy++
		}
	}
	ncx, ncy := wx, yy-newH
	if ncy < 0 {
		ncx, ncy = 0, 0
	}

	// The scrollback.
	kept := lines[max(0, newH-g.hist.max):newH]
	hist := make([]histLine, len(kept))
	for i := range kept {
		hist[i] = kept[i].stored
	}
	g.hist.replace(hist)

	// The screen: vt10x wraps a row onto the next itself, which marks it wrapped.
	g.usePen(0)
	g.prep()
	g.e.resize(cols, rows)
	g.touched.reset(rows)
	g.cols, g.rows = cols, rows
	g.top, g.bottom = 0, rows-1
	g.vtTop, g.vtBottom = 0, rows-1
	g.tabs = defaultTabs(g.tabs, cols)
	g.row = make([]Cell, cols)
	g.ov.reset(rows, &g.touched)
	g.putString("\x1b[2J")
	if !g.autowrap {
		g.putString("\x1b[?7h")
	}
	screen = screen[:0]
	for _, l := range lines[newH:] {
		screen = append(screen, l.rline())
	}
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

// trimWideGaps drops the last cell of a wrapped row left blank because a wide character did
// not fit (it starts the next row): tmux never wrote that cell, so it is not part of the line.
func trimWideGaps(lines []rline) {
	for i := 0; i+1 < len(lines); i++ {
		trimWideGap(&lines[i], lines[i+1])
	}
}

func trimWideGap(l *rline, next rline) {
	if n := len(l.cells); l.wrapped && n > 0 && len(next.cells) > 0 && next.cells[0].Width == 2 && isBlank(l.cells[n-1]) {
		l.cells = l.cells[:n-1]
	}
}

// reflowed gathers the rewrapped lines. Only the last rows of them, which become the screen,
// stay as cells; a line further up is stored as the scrollback stores it.
type reflowed struct {
	lines      []outLine
	cols, rows int
}

type outLine struct {
	cells    []Cell   // nil once stored
	stored   histLine // the line as the scrollback keeps it, once it is further up than rows
	isStored bool
	n        int // how many cells the line has
	wrapped  bool
}

func (r *reflowed) add(l rline) {
	r.push(outLine{cells: l.cells, n: len(l.cells), wrapped: l.wrapped})
}

// addStored adds a line of the scrollback that needs no rewrapping, n cells long.
func (r *reflowed) addStored(h histLine, n int) {
	r.push(outLine{stored: h, isStored: true, n: n, wrapped: h.wrapped})
}

func (r *reflowed) push(o outLine) {
	r.lines = append(r.lines, o)
	if k := len(r.lines) - 1 - r.rows; k >= 0 {
		r.lines[k].store(r.cols)
	}
}

// store keeps o as the scrollback does, cut at cols cells.
func (o *outLine) store(cols int) {
	if !o.isStored {
		o.stored.set(o.cells[:min(len(o.cells), cols)], o.wrapped)
		o.cells, o.isStored = nil, true
	}
}

// rline is o as cells again, for the screen.
func (o *outLine) rline() rline {
	if !o.isStored {
		return rline{cells: o.cells, wrapped: o.wrapped}
	}
	row := make([]Cell, o.n)
	o.stored.cells(row)
	return rline{cells: row, wrapped: o.wrapped}
}

func isBlank(c Cell) bool {
	return c.Rune == ' ' && c.Width == 1 && c.Style == (Style{}) && c.Comb == nil
}
