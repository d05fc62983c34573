package vt

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"unicode/utf8"
)

// escDispatch acts on an escape sequence.
func (g *guard) escDispatch(inter, final byte) {
	g.materialize()
	g.last = lastPrint{}
	switch inter {
	case 0:
	case '(', ')', '*', '+': // designate G0-G3
		g.g[inter-'('] = final == '0'
		return
	case '#':
		if final == '8' { // DECALN: tmux also resets the region and homes the cursor
			g.usePen(0)
			g.e.emitString("\x1b#8\x1b[r")
			g.top, g.bottom = 0, g.rows-1
			g.moveTo(0, 0)
		}
		return
	default:
		return
	}
	switch final {
	case '7':
		g.saveCursor()
	case '8':
		g.restoreCursor()
	case 'D': // IND
		g.lineFeed()
	case 'E': // NEL
		g.execute('\r')
		g.lineFeed()
	case 'M': // RI
		g.reverseIndex()
	case 'H': // HTS
		g.sync()
		g.tabs[g.cx] = true
	case 'c': // RIS
		g.resetAll()
	case '=':
		g.modes.AppKeypad = true
	case '>':
		g.modes.AppKeypad = false
	}
}

// resetAll is RIS: a fresh vt10x and power-on state; the scrollback and title stay, as in tmux.
func (g *guard) resetAll() {
	g.settle()
	g.init(g.cols, g.rows)
}

// oscDispatch acts on an operating system command: OSC Ps ; Pt.
func (g *guard) oscDispatch(data []byte) {
	g.materialize()
	g.last = lastPrint{}
	num, text, _ := bytes.Cut(data, []byte{';'})
	ps, err := strconv.Atoi(string(num))
	if err != nil {
		return
	}
	switch ps {
	case 0, 2:
		g.title = sanitizeTitle(text)
	case 10, 11:
		if string(text) != "?" {
			return
		}
		c := g.opts.Foreground
		if ps == 11 {
			c = g.opts.Background
		}
		if r, gr, b, ok := c.RGB(); ok {
			g.reply("\x1b]" + itoa(ps) + ";rgb:" + hex2(r) + "/" + hex2(gr) + "/" + hex2(b) + "\x1b\\")
		}
	case 52:
		_, payload, ok := bytes.Cut(text, []byte{';'})
		if !ok || string(payload) == "?" {
			return // reading the clipboard is never allowed
		}
		dec, err := base64.StdEncoding.DecodeString(string(payload))
		if err != nil {
			return
		}
		g.clip, g.clipSet = dec, true
	}
}

func hex2(v uint8) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[v>>4], digits[v&15], digits[v>>4], digits[v&15]})
}

// sanitizeTitle keeps printable text only, at most 256 characters.
func sanitizeTitle(b []byte) string {
	var out []rune
	for len(b) > 0 && len(out) < 256 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r == utf8.RuneError && size == 1 || RuneWidth(r) < 0 {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// reply queues an answer for the program.
func (g *guard) reply(s string) {
	if len(g.replies)+len(s) <= maxReplyBytes {
		g.replies = append(g.replies, s...)
	}
}

// maxReplyBytes bounds answers queued by one write: a program asking without reading gets no
// more.
const maxReplyBytes = 4096

// sgr applies Select Graphic Rendition, with both ; and : forms of extended colours.
func (g *guard) sgr(c *csiSeq) {
	s := g.pen
	if c.n == 0 {
		s = Style{}
	}
	for i := 0; i < c.n; i++ {
		p := int(c.params[i])
		// The sub-parameters given with ':' after this one.
		j := i + 1
		for j < c.n && c.colon[j] {
			j++
		}
		subs := c.params[i+1 : j]
		switch {
		case p <= 0:
			s = Style{}
		case p == 1:
			s.Attrs |= AttrBold
		case p == 2:
			s.Attrs |= AttrDim
		case p == 3:
			s.Attrs |= AttrItalic
		case p == 4:
			s.Attrs &^= AttrAnyUnderline
			u := 1
			if len(subs) > 0 {
				u = int(subs[0])
			}
			switch u {
			case 1:
				s.Attrs |= AttrUnderline
			case 2:
				s.Attrs |= AttrDoubleUnderline
			case 3:
				s.Attrs |= AttrCurlyUnderline
			case 4:
				s.Attrs |= AttrDottedUnderline
			case 5:
				s.Attrs |= AttrDashedUnderline
			}
		case p == 5 || p == 6:
			s.Attrs |= AttrBlink
		case p == 7:
			s.Attrs |= AttrReverse
		case p == 8:
			s.Attrs |= AttrInvisible
		case p == 9:
			s.Attrs |= AttrStrike
		case p == 21:
			s.Attrs = s.Attrs&^AttrAnyUnderline | AttrDoubleUnderline
		case p == 22:
			s.Attrs &^= AttrBold | AttrDim
		case p == 23:
			s.Attrs &^= AttrItalic
		case p == 24:
			s.Attrs &^= AttrAnyUnderline
		case p == 25:
			s.Attrs &^= AttrBlink
		case p == 27:
			s.Attrs &^= AttrReverse
		case p == 28:
			s.Attrs &^= AttrInvisible
		case p == 29:
			s.Attrs &^= AttrStrike
		case p >= 30 && p <= 37:
			s.FG = PaletteColor(uint8(p - 30))
		case p == 39:
			s.FG = DefaultColor
		case p >= 40 && p <= 47:
			s.BG = PaletteColor(uint8(p - 40))
		case p == 49:
			s.BG = DefaultColor
		case p == 53:
			s.Attrs |= AttrOverline
		case p == 55:
			s.Attrs &^= AttrOverline
		case p == 59:
			s.UL = DefaultColor
		case p >= 90 && p <= 97:
			s.FG = PaletteColor(uint8(p - 90 + 8))
		case p >= 100 && p <= 107:
			s.BG = PaletteColor(uint8(p - 100 + 8))
		case p == 38 || p == 48 || p == 58:
			var col Color
			var ok bool
			if len(subs) > 0 {
				col, ok = colonColor(subs)
			} else {
				var used int
				col, used, ok = semicolonColor(c.params[i+1 : c.n])
				j = i + 1 + used
			}
			if ok {
				switch p {
				case 38:
					s.FG = col
				case 48:
					s.BG = col
				default:
					s.UL = col
				}
			}
		}
		i = j - 1
	}
	if s != g.pen {
		g.setPen(s)
	}
}

// colonColor reads 5:n or 2:[colourspace:]r:g:b.
func colonColor(subs []int32) (Color, bool) {
	switch subs[0] {
	case 5:
		if len(subs) >= 2 && subs[1] >= 0 && subs[1] <= 255 {
			return PaletteColor(uint8(subs[1])), true
		}
	case 2:
		rgb := subs[1:]
		if len(rgb) >= 4 {
			rgb = rgb[1:] // a colourspace id, usually empty
		}
		if len(rgb) >= 3 {
			return rgbColor(rgb[0], rgb[1], rgb[2])
		}
	}
	return 0, false
}

// semicolonColor reads 5;n or 2;r;g;b from the parameters after 38/48/58, and how many it used.
func semicolonColor(rest []int32) (Color, int, bool) {
	if len(rest) == 0 {
		return 0, 0, false
	}
	switch rest[0] {
	case 5:
		if len(rest) < 2 {
			return 0, len(rest), false
		}
		if rest[1] < 0 || rest[1] > 255 {
			return 0, 2, false
		}
		return PaletteColor(uint8(rest[1])), 2, true
	case 2:
		if len(rest) < 4 {
			return 0, len(rest), false
		}
		c, ok := rgbColor(rest[1], rest[2], rest[3])
		return c, 4, ok
	}
	return 0, 1, false
}

func rgbColor(r, g, b int32) (Color, bool) {
	r, g, b = max(r, 0), max(g, 0), max(b, 0)
	if r > 255 || g > 255 || b > 255 {
		return 0, false
	}
	return RGBColor(uint8(r), uint8(g), uint8(b)), true
}

// readRow decodes screen row y into row; it reports whether the row wrapped onto the next. The
// caller has flushed.
func (g *guard) readRow(y int, row []Cell) (wrapped bool) {
	for x := 0; x < g.cols; x++ {
		ch, st, w := g.e.glyph(x, y)
		if x == g.cols-1 {
			wrapped = w
		}
		c := Cell{Rune: ch, Width: 1, Style: g.styles.get(st)}
		switch {
		case ch == 0:
			c.Rune = ' '
		case ch == continuationRune:
			c.Rune, c.Width = 0, 0
			if x > 0 && row[x-1].Width == 1 && RuneWidth(row[x-1].Rune) == 2 {
				row[x-1].Width = 2
			} else {
				// A right half whose left half is gone: drawn blank, left out of text (as tmux
				// leaves its padding cells out).
				c.Rune = ' '
			}
		case isClusterID(ch):
			text := g.clusters.text(ch)
			r, size := utf8.DecodeRuneInString(text)
			c.Rune = r
			if size < len(text) {
				c.Comb = []rune(text[size:])
			}
		}
		row[x] = c
	}
	return wrapped
}

// collect sweeps style and cluster ids that nothing uses any more.
func (g *guard) collect() {
	g.e.flush()
	liveS := make([]bool, len(g.styles.styles))
	liveC := make([]bool, len(g.clusters.texts))
	markS := func(id uint32) {
		if int(id) < len(liveS) {
			liveS[id] = true
		}
	}
	markC := func(r rune) {
		if i := int(r - clusterBase); i >= 0 && i < len(liveC) {
			liveC[i] = true
		}
	}
	for _, id := range []uint32{g.penID, g.eraseID, g.engPen, g.saved.penID, g.last.styleID} {
		markS(id)
	}
	for id := range g.hiddenStyles {
		markS(id)
	}
	g.markLineMode(markS)
	for r := range g.hiddenClusters {
		markC(r)
	}
	for y := 0; y < g.rows; y++ {
		for x := 0; x < g.cols; x++ {
			ch, st, _ := g.e.glyph(x, y)
			markS(st)
			markC(ch)
		}
	}
	g.styles.sweep(liveS)
	g.clusters.sweep(liveC)
}

// resize changes the screen size. Rows that leave the top go to the scrollback, as in tmux.
func (g *guard) resize(cols, rows int) {
	if cols < 1 || rows < 1 || cols == g.cols && rows == g.rows {
		return
	}
	g.settle()
	g.sync()
	if slide := g.cy - rows + 1; slide > 0 {
		// vt10x drops the rows above the cursor that no longer fit.
		g.top = 0
		g.capture(slide)
	}
	g.usePen(0) // vt10x fills new cells from its pen
	g.e.resize(cols, rows)
	g.cols, g.rows = cols, rows
	g.top, g.bottom = 0, rows-1
	g.tabs = defaultTabs(g.tabs, cols)
	g.row = make([]Cell, cols)
	// The hidden screen lost cells and gained default ones: its remembered ids still cover it.
	g.forget()
}
