package vt

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"unicode/utf8"
)

// escDispatch acts on an escape sequence.
func (g *guard) escDispatch(inter, final byte) {
	if g.lm.active && inter == 0 && (final == 'D' || final == 'E') {
		// IND and NEL scroll as LF does: line mode keeps them.
		if final == 'E' {
			g.lmExecute('\r')
		}
		g.lmExecute('\n')
		return
	}
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
			g.top, g.bottom = 0, g.rows-1
			g.putString("\x1b#8")
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
	// As tmux's RIS: the screen shown is blanked and the modes, pen, character sets, tab stops
	// and region go back to their defaults; the alternate screen (if shown) stays shown, the
	// screen behind it, the scrollback and the title stay too.
	g.usePen(0)
	if !g.autowrap {
		g.putString("\x1b[?7h")
	}
	if g.sync(); g.eraseOK() {
		g.flushScrolls()
		for y := 0; y < g.rows; y++ {
			g.ov.clearRow(y, 0)
		}
	} else {
		g.putString("\x1b[2J")
	}
	alt := g.modes.AltScreen
	g.modes = Modes{AltScreen: alt}
	g.setPen(Style{})
	g.g, g.gl = [4]bool{}, 0
	g.insert, g.origin, g.autowrap, g.cursorVisible, g.shape = false, false, true, true, CursorDefault
	g.top, g.bottom = 0, g.rows-1
	for x := range g.tabs {
		g.tabs[x] = x%8 == 0 && x > 0
	}
	g.moveTo(0, 0)
	if !g.vtSavedHome {
		g.putString("\x1b7") // the saved cursor goes home too
		g.vtSavedHome = true
	}
	g.saved = savedCursor{}
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
			g.reply("\x1b]" + strconv.Itoa(ps) + ";rgb:" + hex2(r) + "/" + hex2(gr) + "/" + hex2(b) + "\x1b\\")
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
