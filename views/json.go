package views

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"

	"tickmux/themes"
)

// prettyJSON lays out compact, valid JSON (as the host keeps it) as indented lines with a style
// per token. Strings are shown as they are on the wire, escapes and all, then passed through
// host.Printable, so no byte of a Tick's state reaches the terminal as a control (H-SEC2).
// At most maxLines lines are produced; the last says how many more there were.
func prettyJSON(raw []byte, th *themes.Theme, maxLines int) []line {
	p := jsonPrinter{raw: raw, th: th, max: maxLines}
	p.value(0)
	p.flush()
	if p.dropped > 0 {
		p.out = append(p.out, plain("… "+strconv.Itoa(p.dropped)+" more lines", th.PanelMuted))
	}
	return p.out
}

// prettyJSONVisible is prettyJSON for an approval card: every line, and each string drawn with
// visibleLines, so runs of spaces and invisible characters show as marks in the mark style.
func prettyJSONVisible(raw []byte, th *themes.Theme, mark tcell.Style) []line {
	p := jsonPrinter{raw: raw, th: th, visible: true, mark: mark}
	p.value(0)
	p.flush()
	return p.out
}

type jsonPrinter struct {
	visible bool // strings as visibleLines shows them
	mark    tcell.Style
	raw     []byte
	i       int
	th      *themes.Theme
	cur     line
	indent  int
	out     []line
	max     int
	dropped int
}

func (p *jsonPrinter) emit(s seg) { p.cur = append(p.cur, s) }

func (p *jsonPrinter) newline() {
	p.flush()
	p.cur = line{{strings.Repeat("  ", p.indent), p.th.Panel}}
}

func (p *jsonPrinter) flush() {
	if len(p.cur) == 0 {
		return
	}
	if p.max > 0 && len(p.out) >= p.max {
		p.dropped++
	} else {
		p.out = append(p.out, p.cur)
	}
	p.cur = nil
}

func (p *jsonPrinter) value(depth int) {
	if p.i >= len(p.raw) {
		return
	}
	switch c := p.raw[p.i]; c {
	case '{', '[':
		p.container(c, depth)
	case '"':
		p.emitString(p.str(), p.th.JSONString)
	case 't', 'f', 'n':
		start := p.i
		for p.i < len(p.raw) && p.raw[p.i] >= 'a' && p.raw[p.i] <= 'z' {
			p.i++
		}
		p.emit(seg{string(p.raw[start:p.i]), p.th.JSONLiteral})
	default:
		start := p.i
		for p.i < len(p.raw) && strings.IndexByte("-+.eE0123456789", p.raw[p.i]) >= 0 {
			p.i++
		}
		if p.i == start { // not JSON after all: show the rest, escaped, and stop
			p.emit(untrusted(string(p.raw[p.i:]), p.th.Error))
			p.i = len(p.raw)
			return
		}
		p.emit(seg{string(p.raw[start:p.i]), p.th.JSONNumber})
	}
}

func (p *jsonPrinter) container(open byte, depth int) {
	closer := byte('}')
	if open == '[' {
		closer = ']'
	}
	p.i++
	if p.i < len(p.raw) && p.raw[p.i] == closer {
		p.i++
		p.emit(seg{string(open) + string(closer), p.th.Panel})
		return
	}
	p.emit(seg{string(open), p.th.Panel})
	p.indent++
	for p.i < len(p.raw) {
		p.newline()
		if open == '{' {
			p.emitString(p.str(), p.th.JSONKey)
			p.emit(seg{": ", p.th.Panel})
			p.i++ // ':'
		}
		p.value(depth + 1)
		if p.i < len(p.raw) && p.raw[p.i] == ',' {
			p.i++
			p.emit(seg{",", p.th.Panel})
			continue
		}
		break
	}
	p.indent--
	p.newline()
	p.emit(seg{string(closer), p.th.Panel})
	p.i++ // closer
}

func (p *jsonPrinter) emitString(s string, st tcell.Style) {
	if !p.visible {
		p.emit(untrusted(s, st))
		return
	}
	for _, l := range visibleLines(s, st, p.mark) { // one line: JSON escapes its newlines
		p.cur = append(p.cur, l...)
	}
}

// str returns the string token at p.i, quotes and escapes as on the wire.
func (p *jsonPrinter) str() string {
	start := p.i
	p.i++
	for p.i < len(p.raw) {
		switch p.raw[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			return string(p.raw[start:p.i])
		}
		p.i++
	}
	return string(p.raw[start:])
}
