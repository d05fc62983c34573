package vt

// DefaultScrollback is how many lines a pane keeps above its screen unless told otherwise.
const DefaultScrollback = 10000

// histLine is a line that scrolled off the top, stored compactly: one rune per cell up to the
// last cell that is not a default blank, the styles as runs, marks apart.
type histLine struct {
	runes   []rune // 0 for the right half of a wide character
	runs    []styleRun
	marks   []cellMarks
	wrapped bool // the line continues on the next one (autowrap)
}

type styleRun struct {
	col   int
	style Style
}

type cellMarks struct {
	col   int
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
		s.lines = append(s.lines, histLine{})
		l = &s.lines[len(s.lines)-1]
	} else {
		l = &s.lines[s.start]
		s.start = (s.start + 1) % len(s.lines)
	}
	l.runes, l.runs, l.marks, l.wrapped = l.runes[:0], l.runs[:0], l.marks[:0], false
	return l
}

// line i, 0 being the oldest.
func (s *scrollback) line(i int) *histLine {
	return &s.lines[(s.start+i)%len(s.lines)]
}

func (s *scrollback) clear() {
	s.lines, s.start = nil, 0
}

// set stores row (a screen row) in l, trimming default blanks at its end.
func (l *histLine) set(row []Cell, wrapped bool) {
	end := len(row)
	for end > 0 && row[end-1].Rune == ' ' && row[end-1].Style == (Style{}) && row[end-1].Comb == nil {
		end--
	}
	l.wrapped = wrapped
	for x := 0; x < end; x++ {
		c := &row[x]
		r := c.Rune
		if c.Width == 0 {
			r = 0
		}
		l.runes = append(l.runes, r)
		if n := len(l.runs); n == 0 || l.runs[n-1].style != c.Style {
			l.runs = append(l.runs, styleRun{col: x, style: c.Style})
		}
		if c.Comb != nil {
			l.marks = append(l.marks, cellMarks{col: x, marks: append([]rune(nil), c.Comb...)})
		}
	}
}

// cells writes l into dst (cols wide), padding with blanks.
func (l *histLine) cells(dst []Cell) {
	run, mark := 0, 0
	var st Style
	for x := range dst {
		if x >= len(l.runes) {
			dst[x] = blankCell
			continue
		}
		for run < len(l.runs) && l.runs[run].col <= x {
			st = l.runs[run].style
			run++
		}
		c := Cell{Rune: l.runes[x], Width: 1, Style: st}
		if c.Rune == 0 {
			c.Width = 0
		} else if x+1 < len(l.runes) && l.runes[x+1] == 0 {
			c.Width = 2
		}
		for mark < len(l.marks) && l.marks[mark].col < x {
			mark++
		}
		if mark < len(l.marks) && l.marks[mark].col == x {
			c.Comb = l.marks[mark].marks
		}
		dst[x] = c
	}
}
