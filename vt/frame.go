package vt

import (
	"strconv"
	"unicode/utf8"
)

// A Framer renders a Terminal as terminal output for another terminal of the same size (issue
// 40: a pane on another host shown in the local tickmux). Written to a fresh terminal, the first
// frame makes it show what t shows: every row, the cursor, the modes that change how input is
// encoded (DECSET for cursor keys, bracketed paste, mouse tracking and encoding, focus events;
// DECKPAM), the alternate screen and the title (OSC 2), and up to FirstHistory lines of the
// scrollback pushed into the receiver's scrollback first. Each later frame carries only what
// changed since: the rows whose hash changed (RowHashes), the cursor, the modes and title that
// changed, and the lines that scrolled off meanwhile, oldest first, at most a screen's rows of
// them in one frame (a frame that carries history repaints every row, the receiver's having
// scrolled). Lines beyond that wait for the next frames (Pending), in order, unless more than
// framerBacklog lines are behind: under a flood the receiver's scrollback keeps the newest.
//
// Only what the Framer builds from cells goes out: characters (control characters, which no
// cell should hold, are sent as spaces), SGR from each cell's style, cursor moves, CR, LF, EL,
// and the fixed mode sequences above. Nothing the program wrote passes through as bytes, so no escape
// sequence in its output can reach the receiver. A Framer follows one Terminal; it is not safe
// for concurrent use.
type Framer struct {
	// FirstHistory is how many lines of the scrollback the first frame carries.
	FirstHistory int

	started    bool
	cols, rows int
	resets     uint64
	rh         RowHashes
	snap       Screen
	changed    []bool
	modes      Modes
	title      string
	cursor     Cursor
	hist       []histKey // the last scrollback lines the receiver has, oldest first
	next       int       // the index after them in the scrollback, as of the last frame
	pending    bool      // lines that scrolled off wait for the next frame
	line       []Cell
}

// histKey identifies a scrollback line well enough to find it again after more lines came.
type histKey struct {
	text    string
	wrapped bool
}

// framerKeep is how many of the lines it sent last a Framer remembers to find its place.
const framerKeep = 4

// framerBacklog is how far behind the newest line the lines still to send may be: beyond, the
// Framer skips to the newest.
const framerBacklog = 2000

// Pending reports whether lines that scrolled off wait for the next frame, even if nothing else
// changes.
func (f *Framer) Pending() bool { return f.pending }

// Size is the size of the terminal as the last frame showed it.
func (f *Framer) Size() (cols, rows int) { return f.cols, f.rows }

// Frame appends to dst the output that brings a terminal showing the last frame up to what t
// shows now, and returns it; dst comes back as it was when nothing changed.
func (f *Framer) Frame(t *Terminal, dst []byte) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(dst)
	out := dst
	t.guarded(func() { out = f.frame(t, dst[:n]) })
	return out
}

func (f *Framer) frame(t *Terminal, b []byte) []byte {
	g := t.g
	g.settle()
	start := len(b)
	full := !f.started || g.cols != f.cols || g.rows != f.rows || t.resets != f.resets
	alt := g.modes.AltScreen
	altChanged := f.started && alt != f.modes.AltScreen
	if full || altChanged {
		b = append(b, modeSeq(1049, alt)...)
	}
	// Lines that scrolled off since the last frame go first, each written on the top row and
	// scrolled off the receiver's screen into its scrollback.
	pushed := 0
	if !alt && !altChanged && (!f.started || !full) {
		limit := g.rows
		if !f.started {
			limit = f.FirstHistory
		}
		from, n := f.newHistory(g, limit)
		if cap(f.line) < g.cols {
			f.line = make([]Cell, g.cols)
		}
		f.line = f.line[:g.cols]
		// A screen's rows of lines at a time: written from the top row down, then as many line
		// feeds on the bottom row scroll them off, in order.
		for at := from; at < from+n; at += g.rows {
			k := min(g.rows, from+n-at)
			b = append(b, "\x1b[H"...)
			for i := at; i < at+k; i++ {
				g.hist.line(i).cells(f.line)
				b = appendRow(b, f.line, false, false)
				if i < at+k-1 {
					b = append(b, "\r\n"...)
				}
			}
			b = append(b, "\x1b["...)
			b = strconv.AppendInt(b, int64(g.rows), 10)
			b = append(b, 'H')
			for range k {
				b = append(b, '\n')
			}
		}
		pushed = n
		f.cover(g, from+n)
	} else {
		f.cover(g, g.hist.len())
	}
	if full || pushed > 0 || altChanged {
		f.rh.Forget()
	}
	f.changed = t.snapshotChanged(&f.snap, &f.rh, f.changed)
	s := &f.snap
	for y := 0; y < s.Rows; y++ {
		if !f.changed[y] {
			continue
		}
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(y+1), 10)
		b = append(b, 'H')
		// A row that continues on the next is written to its last column and the next follows
		// without a move, so that the receiver marks it wrapped too.
		wraps := s.Wrapped[y] && y+1 < s.Rows
		b = appendRow(b, s.Row(y), wraps, false)
		for wraps {
			y++
			f.changed[y] = false
			wraps = s.Wrapped[y] && y+1 < s.Rows
			b = appendRow(b, s.Row(y), wraps, true)
		}
	}
	b = f.appendModes(b, s.Modes, full)
	if full || s.Title != f.title {
		b = append(b, "\x1b]2;"...)
		b = appendClean(b, s.Title)
		b = append(b, '\a')
	}
	c := s.Cursor
	if full || c.Shape != f.cursor.Shape {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(c.Shape), 10)
		b = append(b, " q"...)
	}
	if full || c.Visible != f.cursor.Visible {
		b = append(b, modeSeq(25, c.Visible)...)
	}
	if len(b) > start || c.X != f.cursor.X || c.Y != f.cursor.Y {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(c.Y+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(c.X+1), 10)
		b = append(b, 'H')
	}
	f.started, f.cols, f.rows, f.resets = true, g.cols, g.rows, t.resets
	f.modes, f.title, f.cursor = s.Modes, s.Title, c
	return b
}

// newHistory is the lines to send now: from the one after the last the receiver has, at most
// limit of them.
func (f *Framer) newHistory(g *guard, limit int) (from, n int) {
	hlen := g.hist.len()
	if limit <= 0 || hlen == 0 {
		return hlen, 0
	}
	if !f.started {
		n = min(hlen, limit)
		return hlen - n, n
	}
	next := -1
	switch {
	case len(f.hist) == 0:
		next = 0 // the scrollback was empty: every line is new
	case f.next <= hlen && f.histAt(g, f.next-1):
		// Where it was (lines were only added): checked first, since a run of equal lines
		// (`yes`) would match anywhere.
		next = f.next
	default:
		for j := hlen - 1; j >= max(0, hlen-1-framerBacklog); j-- {
			if f.histAt(g, j) {
				next = j + 1
				break
			}
		}
	}
	switch {
	case next < 0 && hlen <= framerBacklog:
		// Its place is gone from a scrollback searched whole: cleared (ED 3), reflowed, or
		// scrolled out of a small ring: every line is new.
		next = 0
	case next < 0 || hlen-next > framerBacklog:
		next = max(0, hlen-limit) // a flood: the newest lines
	}
	return next, min(hlen-next, limit)
}

// histAt reports whether the remembered lines end at scrollback line j.
func (f *Framer) histAt(g *guard, j int) bool {
	for k := len(f.hist) - 1; k >= 0; k-- { // the last first: most places fail there
		i := j - (len(f.hist) - 1 - k)
		if i < 0 || i >= g.hist.len() {
			return false
		}
		l := g.hist.line(i)
		if l.wrapped != f.hist[k].wrapped || string(l.text) != f.hist[k].text {
			return false
		}
	}
	return true
}

// cover remembers that the receiver has the scrollback's lines up to next-1.
func (f *Framer) cover(g *guard, next int) {
	f.hist, f.next = f.hist[:0], next
	f.pending = next < g.hist.len()
	for i := max(0, next-framerKeep); i < next; i++ {
		l := g.hist.line(i)
		f.hist = append(f.hist, histKey{text: string(l.text), wrapped: l.wrapped})
	}
}

// appendModes appends what sets the input modes that differ from the last frame's (all of
// them in a full frame).
func (f *Framer) appendModes(b []byte, m Modes, full bool) []byte {
	o := f.modes
	flag := func(mode int, now, was bool) {
		if full || now != was {
			b = append(b, modeSeq(mode, now)...)
		}
	}
	flag(1, m.AppCursor, o.AppCursor)
	flag(2004, m.BracketedPaste, o.BracketedPaste)
	flag(1004, m.FocusEvents, o.FocusEvents)
	if full || m.AppKeypad != o.AppKeypad {
		if m.AppKeypad {
			b = append(b, "\x1b="...)
		} else {
			b = append(b, "\x1b>"...)
		}
	}
	if full || m.Mouse != o.Mouse {
		switch m.Mouse {
		case MouseX10:
			b = append(b, modeSeq(9, true)...)
		case MouseNormal:
			b = append(b, modeSeq(1000, true)...)
		case MouseButton:
			b = append(b, modeSeq(1002, true)...)
		case MouseAny:
			b = append(b, modeSeq(1003, true)...)
		default:
			b = append(b, modeSeq(1000, false)...)
		}
	}
	if full || m.MouseEncoding != o.MouseEncoding {
		switch m.MouseEncoding {
		case MouseEncodingUTF8:
			b = append(b, modeSeq(1005, true)...)
		case MouseEncodingSGR:
			b = append(b, modeSeq(1006, true)...)
		case MouseEncodingURXVT:
			b = append(b, modeSeq(1015, true)...)
		default:
			b = append(b, "\x1b[?1005l\x1b[?1006l\x1b[?1015l"...)
		}
	}
	return b
}

// appendRow appends the cells of row from the cursor on, in their styles, from the default style
// (every row the receiver was sent ended in it) back to it. Unless whole is set, the default blanks at its end are left out and erased (EL); a row
// that continues the one before (wrapped onto it) starts with its first cell whatever it is, the
// character that makes the receiver wrap.
func appendRow(b []byte, row []Cell, whole, wrapped bool) []byte {
	end := len(row)
	if !whole {
		for end > 0 && row[end-1].Rune == ' ' && row[end-1].Style == (Style{}) && row[end-1].Comb == nil {
			end--
		}
	}
	if wrapped {
		end = max(end, min(len(row), 2)) // a wide character's two cells
	}
	cur := Style{}
	wide := false // the cell before was the left half of a wide character
	for _, c := range row[:end] {
		if c.Width == 0 && wide {
			wide = false
			continue
		}
		wide = c.Width == 2
		if c.Style != cur {
			b = append(b, sgrFor(c.Style)...)
			cur = c.Style
		}
		r, marks := c.Rune, c.Width != 0
		switch {
		case c.Width == 0 || r == 0:
			r = ' ' // a right half whose left half is gone: a blank
		case c.Width == 1 && RuneWidth(r) == 2:
			// A wide character's left half alone (its right half was written over): no output
			// makes that cell, and a view draws it as U+FFFD.
			r, marks = '\uFFFD', false
		}
		b = appendChar(b, r)
		if marks {
			for _, m := range c.Comb {
				if !isControl(m) {
					b = utf8.AppendRune(b, m)
				}
			}
		}
	}
	if cur != (Style{}) {
		b = append(b, "\x1b[0m"...)
	}
	if end < len(row) {
		b = append(b, "\x1b[K"...)
	}
	return b
}

// appendChar appends r, a space for a control character.
func appendChar(b []byte, r rune) []byte {
	if isControl(r) || !utf8.ValidRune(r) {
		r = ' '
	}
	return utf8.AppendRune(b, r)
}

// appendClean appends s without its control characters (the title of an OSC).
func appendClean(b []byte, s string) []byte {
	for _, r := range s {
		if !isControl(r) && r != utf8.RuneError {
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }
