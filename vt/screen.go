package vt

import (
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Screen is a copy of what a terminal shows, taken under its lock and then drawn at leisure.
type Screen struct {
	Cols, Rows int
	// Cells holds Rows rows of Cols cells.
	Cells []Cell
	// Wrapped[y] is true when row y continues on row y+1 (autowrap).
	Wrapped []bool
	Cursor  Cursor
	Modes   Modes
	Title   string
	// Scroll is how many lines the view is scrolled back into the scrollback; 0 is live.
	Scroll int
	// ScrollbackLen is how many lines the scrollback holds.
	ScrollbackLen int
}

// Row returns row y.
func (s *Screen) Row(y int) []Cell { return s.Cells[y*s.Cols : (y+1)*s.Cols] }

// newCells makes n cells with their pages already mapped. A copy is made after a server's quiet
// spell, when its free heap went back to the system: writing a fresh whole screen took a page
// fault per 4 KB (47 at 160x45, 3-4 ms of the first draw after the quiet on this VM), one madvise
// maps them in well under a millisecond.
func newCells(n int) []Cell {
	cells := make([]Cell, n)
	if n > 0 {
		populate(unsafe.Pointer(&cells[0]), uintptr(n)*unsafe.Sizeof(cells[0]))
	}
	return cells
}

// populate maps the whole pages of [p, p+n) writable now (MADV_POPULATE_WRITE, Linux 5.14; an
// older kernel refuses, and the pages come at their first write as usual). The memory must be
// the caller's, allocated and not yet written: mapping a page changes nothing in it.
func populate(p unsafe.Pointer, n uintptr) error {
	page := uintptr(os.Getpagesize())
	start := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + n) &^ (page - 1)
	if end <= start {
		return nil
	}
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_POPULATE_WRITE); e != 0 {
		return e
	}
	return nil
}

func (s *Screen) setSize(cols, rows int) {
	s.Cols, s.Rows = cols, rows
	if cap(s.Cells) < cols*rows {
		s.Cells = newCells(cols * rows)
	}
	s.Cells = s.Cells[:cols*rows]
	if cap(s.Wrapped) < rows {
		s.Wrapped = make([]bool, rows)
	}
	s.Wrapped = s.Wrapped[:rows]
}

// Text is the screen as plain text: one line per row, trailing spaces trimmed, trailing empty
// rows dropped, each wide character once.
func (s *Screen) Text() string {
	lines := make([]string, s.Rows)
	for y := range lines {
		lines[y] = rowText(s.Row(y))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

func rowText(row []Cell) string {
	var b strings.Builder
	for _, c := range row {
		if c.Width == 0 {
			continue
		}
		b.WriteRune(c.Rune)
		for _, m := range c.Comb {
			b.WriteRune(m)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// ANSI is Text with colours and attributes as SGR sequences; every line starts from the
// default style and returns to it.
func (s *Screen) ANSI() string {
	lines := make([]string, s.Rows)
	last := -1
	for y := 0; y < s.Rows; y++ {
		row := s.Row(y)
		end := len(row)
		for end > 0 && row[end-1].Rune == ' ' && row[end-1].Style == (Style{}) {
			end--
		}
		var b strings.Builder
		cur := Style{}
		for _, c := range row[:end] {
			if c.Width == 0 {
				continue
			}
			if c.Style != cur {
				b.WriteString(sgrFor(c.Style))
				cur = c.Style
			}
			b.WriteRune(c.Rune)
			for _, m := range c.Comb {
				b.WriteRune(m)
			}
		}
		if cur != (Style{}) {
			b.WriteString("\x1b[0m")
		}
		lines[y] = b.String()
		if end > 0 {
			last = y
		}
	}
	return strings.Join(lines[:last+1], "\n")
}

// sgrFor is the SGR sequence that sets st from the default style.
func sgrFor(st Style) string {
	p := []string{"0"}
	attrs := []struct {
		a Attr
		p string
	}{
		{AttrBold, "1"}, {AttrDim, "2"}, {AttrItalic, "3"}, {AttrUnderline, "4"},
		{AttrDoubleUnderline, "4:2"}, {AttrCurlyUnderline, "4:3"}, {AttrDottedUnderline, "4:4"},
		{AttrDashedUnderline, "4:5"}, {AttrBlink, "5"}, {AttrReverse, "7"}, {AttrInvisible, "8"},
		{AttrStrike, "9"}, {AttrOverline, "53"},
	}
	for _, a := range attrs {
		if st.Attrs&a.a != 0 {
			p = append(p, a.p)
		}
	}
	p = appendColor(p, st.FG, 30, 90, "38")
	p = appendColor(p, st.BG, 40, 100, "48")
	if !st.UL.IsDefault() {
		p = appendColor(p, st.UL, -1, -1, "58")
	}
	return "\x1b[" + strings.Join(p, ";") + "m"
}

func appendColor(p []string, c Color, base, bright int, ext string) []string {
	if i, ok := c.Palette(); ok {
		switch {
		case i < 8 && base >= 0:
			return append(p, strconv.Itoa(base+int(i)))
		case i < 16 && bright >= 0:
			return append(p, strconv.Itoa(bright+int(i)-8))
		}
		return append(p, ext+";5;"+strconv.Itoa(int(i)))
	}
	if r, g, b, ok := c.RGB(); ok {
		return append(p, ext+";2;"+strconv.Itoa(int(r))+";"+strconv.Itoa(int(g))+";"+strconv.Itoa(int(b)))
	}
	return p
}
