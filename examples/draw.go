package examples

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// The examples' colour roles, one place for all of them.
var (
	styleNormal = tcell.StyleDefault
	styleBar    = tcell.StyleDefault.Reverse(true)
	styleDim    = tcell.StyleDefault.Dim(true)
	styleBold   = tcell.StyleDefault.Bold(true)
	styleSelect = tcell.StyleDefault.Reverse(true)
	styleError  = tcell.StyleDefault.Foreground(tcell.ColorRed).Bold(true)
	styleWarn   = tcell.StyleDefault.Foreground(tcell.ColorYellow)
	styleGood   = tcell.StyleDefault.Foreground(tcell.ColorGreen)
	styleInfo   = tcell.StyleDefault.Foreground(tcell.ColorTeal)
)

// text draws s from column x on row y, clipped to width columns, and returns the columns used.
// s must already be clean (see clean).
func text(screen tcell.Screen, x, y, width int, style tcell.Style, s string) int {
	used := 0
	for s != "" && used < width {
		rest, w := screen.Put(x+used, y, s, style)
		if w == 0 || used+w > width {
			break
		}
		s, used = rest, used+w
	}
	return used
}

// bar draws a full-width reversed row with left and right parts, as a title or a key legend.
func bar(screen tcell.Screen, y int, left, right string) {
	w, _ := screen.Size()
	fill(screen, 0, y, w, styleBar)
	text(screen, 1, y, w-2, styleBar, left)
	if r := len([]rune(right)); r+len([]rune(left))+4 <= w {
		text(screen, w-1-r, y, r, styleBar, right)
	}
}

// fill paints width blank cells from (x, y).
func fill(screen tcell.Screen, x, y, width int, style tcell.Style) {
	for i := range width {
		screen.Put(x+i, y, " ", style)
	}
}

// clean makes untrusted text (from an agent, a file, a command) safe to draw: escape sequences
// and other control characters are removed, tabs become spaces, and it is cut at max runes.
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s) && n < max; {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\x1b':
			i += escapeLength(s[i:])
			continue
		case r == '\t':
			b.WriteString("    ")
			n += 4
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
			n++
		case unicode.IsControl(r) || r == utf8.RuneError && size == 1:
		default:
			b.WriteRune(r)
			n++
		}
		i += size
	}
	return b.String()
}

// escapeLength returns the length of the escape sequence at the start of s: CSI (ESC [ ...
// final byte), OSC (ESC ] ... BEL or ESC \), or ESC and one more byte.
func escapeLength(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']':
		for i := 2; i < len(s); i++ {
			if s[i] == '\a' {
				return i + 1
			}
			if s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// bigDigits is a 3x5 font for the digits, ':' and '-', used by counter and clock.
var bigDigits = map[rune][5]string{
	'0': {"███", "█ █", "█ █", "█ █", "███"},
	'1': {" ██", "  █", "  █", "  █", "  █"},
	'2': {"███", "  █", "███", "█  ", "███"},
	'3': {"███", "  █", "███", "  █", "███"},
	'4': {"█ █", "█ █", "███", "  █", "  █"},
	'5': {"███", "█  ", "███", "  █", "███"},
	'6': {"███", "█  ", "███", "█ █", "███"},
	'7': {"███", "  █", "  █", "  █", "  █"},
	'8': {"███", "█ █", "███", "█ █", "███"},
	'9': {"███", "█ █", "███", "  █", "███"},
	':': {"   ", " █ ", "   ", " █ ", "   "},
	'-': {"   ", "   ", "███", "   ", "   "},
}

// bigWidth is the width of s drawn with big.
func bigWidth(s string) int {
	return len([]rune(s))*4 - 1
}

// big draws s in the big font with its top-left corner at (x, y); other runes are skipped.
func big(screen tcell.Screen, x, y int, style tcell.Style, s string) {
	for _, r := range s {
		glyph, ok := bigDigits[r]
		if !ok {
			continue
		}
		for row, line := range glyph {
			text(screen, x, y+row, 3, style, line)
		}
		x += 4
	}
}

// lineEdit is a one-line text editor drawn at the bottom of a screen (notes, jobs).
type lineEdit struct {
	prompt string
	text   []rune
	cursor int
}

func newLineEdit(prompt, initial string) *lineEdit {
	r := []rune(initial)
	return &lineEdit{prompt: prompt, text: r, cursor: len(r)}
}

// String returns the text being edited.
func (e *lineEdit) String() string { return string(e.text) }

// key applies one key. done reports Enter, cancel Esc.
func (e *lineEdit) key(ev *tcell.EventKey) (done, cancel bool) {
	switch ev.Key() {
	case tcell.KeyEnter:
		return true, false
	case tcell.KeyEsc:
		return false, true
	case tcell.KeyLeft:
		e.cursor = max(0, e.cursor-1)
	case tcell.KeyRight:
		e.cursor = min(len(e.text), e.cursor+1)
	case tcell.KeyHome, tcell.KeyCtrlA:
		e.cursor = 0
	case tcell.KeyEnd, tcell.KeyCtrlE:
		e.cursor = len(e.text)
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if e.cursor > 0 {
			e.text = append(e.text[:e.cursor-1], e.text[e.cursor:]...)
			e.cursor--
		}
	case tcell.KeyDelete:
		if e.cursor < len(e.text) {
			e.text = append(e.text[:e.cursor], e.text[e.cursor+1:]...)
		}
	case tcell.KeyCtrlU:
		e.text, e.cursor = e.text[:0], 0
	case tcell.KeyRune:
		if r := ev.Rune(); !unicode.IsControl(r) {
			e.text = append(e.text[:e.cursor], append([]rune{r}, e.text[e.cursor:]...)...)
			e.cursor++
		}
	}
	return false, false
}

// draw shows the prompt and the text on row y, scrolled so the cursor stays visible.
func (e *lineEdit) draw(screen tcell.Screen, y int) {
	w, _ := screen.Size()
	fill(screen, 0, y, w, styleNormal)
	x := text(screen, 0, y, w, styleBold, e.prompt)
	room := w - x - 1
	if room < 1 {
		return
	}
	start := max(0, e.cursor-room+1)
	end := min(len(e.text), start+room)
	text(screen, x, y, room, styleNormal, clean(string(e.text[start:end]), room))
	screen.ShowCursor(x+e.cursor-start, y)
}
