package views

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/uniseg"

	"tickmux/host"
)

// seg is a run of text in one style. Text that came from a Tick or an agent goes through
// host.Printable before it becomes a seg (H-SEC2); drawText draws nothing else.
type seg struct {
	text  string
	style tcell.Style
}

// line is one row of styled text.
type line []seg

// plain makes a one-seg line.
func plain(text string, style tcell.Style) line { return line{{text, style}} }

// untrusted makes a seg of text a Tick or an agent sent: control characters escaped.
func untrusted(text string, style tcell.Style) seg {
	return seg{host.Printable(text, false), style}
}

// width is how many cells s takes.
func width(s string) int { return uniseg.StringWidth(s) }

// drawText draws l at (x, y) clipped to w cells, filling the rest with fill. It returns the cells
// used. Wide characters that do not fit whole are not drawn.
func drawText(screen tcell.Screen, x, y, w int, l line, fill tcell.Style) int {
	col := 0
	for _, s := range l {
		g := uniseg.NewGraphemes(s.text)
		for g.Next() {
			runes := g.Runes()
			cw := g.Width()
			if cw == 0 {
				continue
			}
			if col+cw > w {
				if col < w && w >= 1 {
					screen.SetContent(x+w-1, y, '…', nil, s.style)
					col = w
				}
				goto done
			}
			screen.SetContent(x+col, y, runes[0], runes[1:], s.style)
			for i := 1; i < cw; i++ {
				screen.SetContent(x+col+i, y, 0, nil, s.style) // continuation of a wide cell
			}
			col += cw
		}
	}
done:
	for i := col; i < w; i++ {
		screen.SetContent(x+i, y, ' ', nil, fill)
	}
	return col
}

// wrapWords breaks text into lines of at most w cells, at spaces where it can; a word longer
// than a line is cut. It runs in time linear in len(text), whatever the words.
func wrapWords(text string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for para := range strings.SplitSeq(text, "\n") {
		var cur strings.Builder
		curW := 0
		flush := func() {
			out = append(out, cur.String())
			cur.Reset()
			curW = 0
		}
		for word := range strings.FieldsSeq(para) {
			ww := width(word)
			if ww > w { // cut the long word in one pass over its graphemes
				if curW > 0 {
					flush()
				}
				state := -1
				rest := word
				for len(rest) > 0 {
					var cluster string
					var gw int
					cluster, rest, gw, state = uniseg.FirstGraphemeClusterInString(rest, state)
					if curW+gw > w && curW > 0 {
						flush()
					}
					cur.WriteString(cluster)
					curW += gw
				}
				continue
			}
			switch {
			case curW == 0 && cur.Len() == 0:
			case curW+1+ww <= w:
				cur.WriteByte(' ')
				curW++
			default:
				flush()
			}
			cur.WriteString(word)
			curW += ww
		}
		flush()
	}
	return out
}

// wrapLine breaks a styled line into rows of at most w cells without dropping or adding a cell:
// what an approval card shows must be exactly what will be sent. Linear in the line's length.
func wrapLine(l line, w int) []line {
	if w <= 0 {
		return nil
	}
	var out []line
	var cur line
	col := 0
	for _, s := range l {
		var b strings.Builder
		state := -1
		rest := s.text
		for len(rest) > 0 {
			var cluster string
			var gw int
			cluster, rest, gw, state = uniseg.FirstGraphemeClusterInString(rest, state)
			if col+gw > w && col > 0 {
				if b.Len() > 0 {
					cur = append(cur, seg{b.String(), s.style})
					b.Reset()
				}
				out = append(out, cur)
				cur, col = nil, 0
			}
			b.WriteString(cluster)
			col += gw
		}
		if b.Len() > 0 {
			cur = append(cur, seg{b.String(), s.style})
		}
	}
	return append(out, cur)
}

// wrapItems lays items out on lines of w cells, sep between two on a line, breaking only between
// items ("Esc later" never becomes "Esc lat" / "er"); an item wider than a line is hard-wrapped.
func wrapItems(items []line, w int, sep seg) []line {
	var out []line
	var cur line
	col := 0
	for _, it := range items {
		iw := lineWidth(it)
		if col > 0 && col+width(sep.text)+iw > w {
			out = append(out, cur)
			cur, col = nil, 0
		}
		if col > 0 {
			cur = append(cur, sep)
			col += width(sep.text)
		}
		if iw > w {
			wrapped := wrapLine(it, w)
			out = append(out, append(cur, wrapped[0]...))
			out = append(out, wrapped[1:len(wrapped)-1]...)
			cur, col = wrapped[len(wrapped)-1], lineWidth(wrapped[len(wrapped)-1])
			continue
		}
		cur = append(cur, it...)
		col += iw
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// maxTickField caps what the UI draws of one text field a Tick sent (a description, a title): a
// Tick may send 400,000 characters; nobody reads them in a panel, and laying them out each frame
// would slow every key.
const maxTickField = 2000

// capText keeps the first n characters of s and says how many more there were.
func capText(s string, n int) string { return host.Cap(s, n) }

// visibleLines shows untrusted text so that every character in it can be seen: printable text as
// it is, and in the mark style runs of spaces counted ("⟨150 spaces⟩"; a lone space only at either
// end), tabs and newlines as \t and \n (a newline also ends the row), control characters, invalid
// bytes and invisible characters (zero-width, bidi, tags, unusual spaces) as escapes.
func visibleLines(s string, st, mark tcell.Style) []line {
	var out []line
	var cur line
	var b strings.Builder
	emit := func(text string, style tcell.Style) {
		if b.Len() > 0 {
			cur = append(cur, seg{b.String(), st})
			b.Reset()
		}
		if text != "" {
			cur = append(cur, seg{text, style})
		}
	}
	marks := 0 // combining marks on the current character so far
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Me) {
			marks++
		} else {
			marks = 0
		}
		switch {
		case marks > maxMarks: // stacked by the thousand they smear over the rows around
			emit(markEscape(r), mark)
		case r == ' ':
			n := 0
			for i+n < len(s) && s[i+n] == ' ' {
				n++
			}
			switch {
			case n == 1 && i > 0 && i+1 < len(s):
				b.WriteByte(' ')
			case n == 1:
				emit("⟨space⟩", mark)
			default:
				emit("⟨"+strconv.Itoa(n)+" spaces⟩", mark)
			}
			i += n
			continue
		case r == '\n':
			emit(`\n`, mark)
			out = append(out, cur)
			cur = nil
		case r == '\t':
			emit(`\t`, mark)
		case r == utf8.RuneError && size == 1:
			emit(`\x`+hex2(s[i]), mark)
		case host.Invisible(r) || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			emit(host.Printable(string(r), false), mark)
		case unicode.Is(unicode.Zs, r): // a space that is not U+0020: looks like one, is not
			emit(`\u`+hex2(byte(r>>8))+hex2(byte(r)), mark)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	emit("", st)
	return append(out, cur)
}

// maxMarks is how many combining marks one character keeps on a card, as host.Printable does.
const maxMarks = 2

// markEscape writes a combining mark as \uXXXX (\UXXXXXXXX past the basic plane).
func markEscape(r rune) string {
	if r > 0xffff {
		return `\U` + hex2(byte(r>>24)) + hex2(byte(r>>16)) + hex2(byte(r>>8)) + hex2(byte(r))
	}
	return `\u` + hex2(byte(r>>8)) + hex2(byte(r))
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// drawBox draws a box over r: its border in border (double lines: an overlay's edge is never
// taken for a pane's), title on its top edge, and its inside filled with fill; it returns the
// inside. A rectangle too small for a border with a row and two columns inside is only filled,
// and is its own inside.
func drawBox(screen tcell.Screen, r Rect, border, fill tcell.Style, title line) Rect {
	for j := r.Y; j < r.Y+r.H; j++ {
		for i := r.X; i < r.X+r.W; i++ {
			screen.SetContent(i, j, ' ', nil, fill)
		}
	}
	if r.W < 4 || r.H < 3 {
		return r
	}
	right, bottom := r.X+r.W-1, r.Y+r.H-1
	for i := r.X + 1; i < right; i++ {
		screen.SetContent(i, r.Y, '═', nil, border)
		screen.SetContent(i, bottom, '═', nil, border)
	}
	for j := r.Y + 1; j < bottom; j++ {
		screen.SetContent(r.X, j, '║', nil, border)
		screen.SetContent(right, j, '║', nil, border)
	}
	screen.SetContent(r.X, r.Y, '╔', nil, border)
	screen.SetContent(right, r.Y, '╗', nil, border)
	screen.SetContent(r.X, bottom, '╚', nil, border)
	screen.SetContent(right, bottom, '╝', nil, border)
	if tw := min(lineWidth(title), r.W-4); tw > 0 {
		drawText(screen, r.X+2, r.Y, tw, title, border)
	}
	return Rect{r.X + 1, r.Y + 1, r.W - 2, r.H - 2}
}
