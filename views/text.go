package views

import (
	"strings"

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

// wrapWords breaks text into lines of at most w cells, at spaces where it can.
func wrapWords(text string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		cur := ""
		for _, word := range strings.Fields(para) {
			for width(word) > w { // a word longer than the line is cut
				cut, cw := 0, 0
				g := uniseg.NewGraphemes(word)
				for g.Next() && cw+g.Width() <= w {
					cw += g.Width()
					_, cut = g.Positions()
				}
				if cur != "" {
					out = append(out, cur)
					cur = ""
				}
				if cut == 0 {
					cut = len(word)
				}
				out = append(out, word[:cut])
				word = word[cut:]
			}
			switch {
			case cur == "":
				cur = word
			case width(cur)+1+width(word) <= w:
				cur += " " + word
			default:
				out = append(out, cur)
				cur = word
			}
		}
		out = append(out, cur)
	}
	return out
}
