package vt

import "unicode/utf8"

// DefaultScrollback is how many lines a pane keeps above its screen unless told otherwise.
const DefaultScrollback = 10000

// histLine is a line that scrolled off the top, stored compactly: its characters as UTF-8 up to
// the last cell that is not a default blank (one code point per cell, NUL for the right half of
// a wide character), and only when the line has them, its styles as runs and its marks.
type histLine struct {
	text    []byte
	extra   *lineExtra // nil for text in the default style without marks
	wrapped bool       // the line continues on the next one (autowrap)
}

type lineExtra struct {
	runs  []styleRun // where the style changes, from the default at column 0
	marks []cellMarks
}

type styleRun struct {
	col   int32
	style Style
}

type cellMarks struct {
	col   int32
	marks []rune
}

// scrollback is a ring of the most recent lines; it reuses the storage of the lines it drops,
// so a flood of output costs no memory beyond the limit.
type scrollback struct {
	lines []histLine
	start int // index of the oldest line once the ring is full
	max   int
}

func (s *scrollback) len() int { return len(s.lines) }

// next returns the slot for a new line, emptied but keeping its storage.
func (s *scrollback) next() *histLine {
	if s.max <= 0 {
		return nil
	}
	var l *histLine
	if len(s.lines) < s.max {
		if len(s.lines) == cap(s.lines) {
			// Grow by a quarter, not Go's double: the ring is most of a pane's memory.
			grown := make([]histLine, len(s.lines), min(s.max, max(64, len(s.lines)+len(s.lines)/4)))
			copy(grown, s.lines)
			s.lines = grown
		}
		s.lines = append(s.lines, histLine{})
		l = &s.lines[len(s.lines)-1]
	} else {
		l = &s.lines[s.start]
		s.start = (s.start + 1) % len(s.lines)
	}
	l.text, l.wrapped = l.text[:0], false
	if l.extra != nil {
		l.extra.runs, l.extra.marks = l.extra.runs[:0], l.extra.marks[:0]
	}
	return l
}

// line i, 0 being the oldest.
func (s *scrollback) line(i int) *histLine {
	return &s.lines[(s.start+i)%len(s.lines)]
}

func (s *scrollback) clear() {
	s.lines, s.start = nil, 0
}

// replace makes lines (oldest first) the scrollback.
func (s *scrollback) replace(lines []histLine) {
	s.lines, s.start = lines, 0
}

// reserve makes room for n bytes of text, exactly: a line's storage is sized to its text.
func (l *histLine) reserve(n int) {
	if cap(l.text) < n {
		l.text = make([]byte, 0, n)
	}
}

func (l *histLine) ext() *lineExtra {
	if l.extra == nil {
		l.extra = &lineExtra{}
	}
	return l.extra
}

// addStyle records that the style at column x is st, cur being the style before it.
func (l *histLine) addStyle(x int, st, cur Style) {
	if st != cur {
		e := l.ext()
		e.runs = append(e.runs, styleRun{col: int32(x), style: st})
	}
}

// set stores row (a screen row) in l, trimming default blanks at its end.
func (l *histLine) set(row []Cell, wrapped bool) {
	end := len(row)
	for end > 0 && row[end-1].Rune == ' ' && row[end-1].Style == (Style{}) && row[end-1].Comb == nil {
		end--
	}
	l.wrapped = wrapped
	n := 0
	for _, c := range row[:end] {
		n += max(utf8.RuneLen(c.Rune), 1)
	}
	l.reserve(n)
	var cur Style
	for x := 0; x < end; x++ {
		c := &row[x]
		r := c.Rune
		if c.Width == 0 {
			r = 0
		}
		l.text = utf8.AppendRune(l.text, r)
		l.addStyle(x, c.Style, cur)
		cur = c.Style
		if c.Comb != nil {
			e := l.ext()
			e.marks = append(e.marks, cellMarks{col: int32(x), marks: append([]rune(nil), c.Comb...)})
		}
	}
}

// cells writes l into dst (cols wide), padding with blanks.
func (l *histLine) cells(dst []Cell) {
	var runs []styleRun
	var marks []cellMarks
	if l.extra != nil {
		runs, marks = l.extra.runs, l.extra.marks
	}
	run, mark := 0, 0
	var st Style
	text := l.text
	for x := range dst {
		if len(text) == 0 {
			dst[x] = blankCell
			continue
		}
		r, size := utf8.DecodeRune(text)
		text = text[size:]
		for run < len(runs) && int(runs[run].col) <= x {
			st = runs[run].style
			run++
		}
		c := Cell{Rune: r, Width: 1, Style: st}
		if c.Rune == 0 {
			c.Width = 0
		} else if len(text) > 0 && text[0] == 0 {
			c.Width = 2
		}
		for mark < len(marks) && int(marks[mark].col) < x {
			mark++
		}
		if mark < len(marks) && int(marks[mark].col) == x {
			c.Comb = marks[mark].marks
		}
		dst[x] = c
	}
}
