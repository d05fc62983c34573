package views

import (
	"strconv"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/vt"
)

// This file turns tcell's key, paste and mouse events into the bytes xterm sends for them, for
// the modes the program has set (vt.Modes).

// encodeKey returns the bytes for a key press, or nil for a key that sends nothing.
func encodeKey(ev *tcell.EventKey, m vt.Modes) []byte {
	mod := ev.Modifiers()
	alt := mod&(tcell.ModAlt|tcell.ModMeta) != 0
	var b []byte
	switch k := ev.Key(); {
	case k == tcell.KeyRune:
		r := ev.Rune()
		if mod&tcell.ModCtrl != 0 {
			if c, ok := ctrlByte(r); ok {
				b = []byte{c}
				break
			}
		}
		b = utf8.AppendRune(nil, r)
	case k == tcell.KeyEnter:
		b = []byte{'\r'}
	case k == tcell.KeyTab:
		b = []byte{'\t'}
	case k == tcell.KeyBacktab:
		b = []byte("\x1b[Z")
	case k == tcell.KeyBackspace || k == tcell.KeyBackspace2:
		// tcell reports the Backspace key's DEL as KeyBackspace; xterm sends DEL for it.
		b = []byte{0x7f}
		if mod&tcell.ModCtrl != 0 {
			b = []byte{0x08}
		}
	case k == tcell.KeyEscape:
		b = []byte{0x1b}
	case k < 0x20:
		b = []byte{byte(k)}
	case k >= tcell.KeyCtrlSpace && k <= tcell.KeyCtrlUnderscore:
		b = []byte{byte(k - tcell.KeyCtrlSpace)}
	default:
		b = specialKey(k, mod, m)
		alt = false // the modifier is in the sequence
	}
	if alt && b != nil {
		b = append([]byte{0x1b}, b...)
	}
	return b
}

// ctrlByte is the control code Ctrl+r sends.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= '@' && r <= '_':
		return byte(r - '@'), true
	case r == ' ' || r == '2':
		return 0, true
	case r == '/' || r == '7':
		return 0x1f, true
	case r == '?' || r == '8':
		return 0x7f, true
	}
	return 0, false
}

// xtermMod is xterm's modifier parameter: 1 + shift + 2*alt + 4*ctrl, or 0 for none.
func xtermMod(mod tcell.ModMask) int {
	n := 0
	if mod&tcell.ModShift != 0 {
		n |= 1
	}
	if mod&(tcell.ModAlt|tcell.ModMeta) != 0 {
		n |= 2
	}
	if mod&tcell.ModCtrl != 0 {
		n |= 4
	}
	if n == 0 {
		return 0
	}
	return n + 1
}

// specialKey encodes cursor, editing and function keys.
func specialKey(k tcell.Key, mod tcell.ModMask, m vt.Modes) []byte {
	// Keys reported as F13-F48 are F1-F12 with shift, ctrl or both (as terminfo names them).
	if k >= tcell.KeyF13 && k <= tcell.KeyF48 {
		n := int(k - tcell.KeyF13)
		k = tcell.KeyF1 + tcell.Key(n%12)
		mod |= [...]tcell.ModMask{tcell.ModShift, tcell.ModCtrl, tcell.ModCtrl | tcell.ModShift}[n/12]
	}
	pm := xtermMod(mod)
	// SS3 keys: cursor keys in application mode and F1-F4 take ESC O x without modifiers,
	// CSI 1;m x with them.
	letter := func(c byte, app bool) []byte {
		switch {
		case pm != 0:
			return []byte("\x1b[1;" + strconv.Itoa(pm) + string(c))
		case app:
			return []byte{0x1b, 'O', c}
		default:
			return []byte{0x1b, '[', c}
		}
	}
	tilde := func(n int) []byte {
		if pm != 0 {
			return []byte("\x1b[" + strconv.Itoa(n) + ";" + strconv.Itoa(pm) + "~")
		}
		return []byte("\x1b[" + strconv.Itoa(n) + "~")
	}
	switch k {
	case tcell.KeyUp:
		return letter('A', m.AppCursor)
	case tcell.KeyDown:
		return letter('B', m.AppCursor)
	case tcell.KeyRight:
		return letter('C', m.AppCursor)
	case tcell.KeyLeft:
		return letter('D', m.AppCursor)
	case tcell.KeyHome:
		return letter('H', m.AppCursor)
	case tcell.KeyEnd:
		return letter('F', m.AppCursor)
	case tcell.KeyInsert:
		return tilde(2)
	case tcell.KeyDelete:
		return tilde(3)
	case tcell.KeyPgUp:
		return tilde(5)
	case tcell.KeyPgDn:
		return tilde(6)
	case tcell.KeyF1, tcell.KeyF2, tcell.KeyF3, tcell.KeyF4:
		return letter(byte('P'+k-tcell.KeyF1), true)
	case tcell.KeyF5:
		return tilde(15)
	case tcell.KeyF6, tcell.KeyF7, tcell.KeyF8, tcell.KeyF9, tcell.KeyF10:
		return tilde(17 + int(k-tcell.KeyF6))
	case tcell.KeyF11, tcell.KeyF12:
		return tilde(23 + int(k-tcell.KeyF11))
	}
	return nil
}

// Bracketed paste markers (DEC 2004).
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// encodePaste is what xterm sends for pasted text: the text as appendPasted makes it, between
// the bracketed paste markers when the program asked for them.
func encodePaste(text string, m vt.Modes) []byte {
	var b []byte
	if m.BracketedPaste {
		b = append(b, pasteStart...)
	}
	b = appendPasted(b, []byte(text))
	if m.BracketedPaste {
		b = append(b, pasteEnd...)
	}
	return b
}

// appendPasted appends pasted text to dst byte by byte as xterm sends it: a line feed goes as a
// carriage return (a typed Enter; CR LF as two), tabs and every other byte as they are, but for
// the controls of xterm's disallowedPasteControls default (BS, DEL, ENQ, EOT, ESC, NUL and the
// terminal's special characters, "STTY", here at their usual values: ^C ^\ ^U ^Z ^Q ^S ^R ^W
// ^V ^O), which go as spaces. So no pasted text can end a bracketed paste early (it holds no
// ESC, so no ESC[201~), nor signal, erase or quote as those keys do. Byte by byte: a paste is
// encoded piece by piece as it streams, with nothing carried from one piece to the next.
func appendPasted(dst, text []byte) []byte {
	for _, c := range text {
		switch {
		case c == '\n':
			c = '\r'
		case c < 0x20 && disallowedPasteControls&(1<<c) != 0, c == 0x7f:
			c = ' '
		}
		dst = append(dst, c)
	}
	return dst
}

// disallowedPasteControls has bit c set for each C0 control appendPasted turns into a space.
const disallowedPasteControls = 1<<0x00 | 1<<0x08 | 1<<0x05 | 1<<0x04 | 1<<0x1b | // NUL BS ENQ EOT ESC
	1<<0x03 | 1<<0x1c | 1<<0x15 | 1<<0x1a | 1<<0x11 | 1<<0x13 | 1<<0x12 | 1<<0x17 | 1<<0x16 | 1<<0x0f // STTY

// encodeMouse returns the report for a mouse event at cell (x, y) of the pane, or nil when the
// program did not ask for it. held is the button held before the event (for motion and
// releases); -1 when none.
func encodeMouse(action tview.MouseAction, ev *tcell.EventMouse, x, y int, held int, m vt.Modes) []byte {
	if m.Mouse == vt.MouseNone {
		return nil
	}
	button, release, motion := -1, false, false
	switch action {
	case tview.MouseLeftDown:
		button = 0
	case tview.MouseMiddleDown:
		button = 1
	case tview.MouseRightDown:
		button = 2
	case tview.MouseLeftUp:
		button, release = 0, true
	case tview.MouseMiddleUp:
		button, release = 1, true
	case tview.MouseRightUp:
		button, release = 2, true
	case tview.MouseScrollUp:
		button = 64
	case tview.MouseScrollDown:
		button = 65
	case tview.MouseMove:
		motion = true
		button = held
		if held < 0 {
			if m.Mouse != vt.MouseAny {
				return nil
			}
			button = 3 // motion with no button
		} else if m.Mouse < vt.MouseButton {
			return nil
		}
	default:
		return nil
	}
	if button < 0 {
		return nil
	}
	if m.Mouse == vt.MouseX10 && (release || motion || button >= 64) {
		return nil
	}
	code := button
	if motion {
		code += 32
	}
	if m.Mouse != vt.MouseX10 {
		mod := ev.Modifiers()
		if mod&tcell.ModShift != 0 {
			code += 4
		}
		if mod&(tcell.ModAlt|tcell.ModMeta) != 0 {
			code += 8
		}
		if mod&tcell.ModCtrl != 0 {
			code += 16
		}
	}
	switch m.MouseEncoding {
	case vt.MouseEncodingSGR:
		final := "M"
		if release {
			final = "m"
		}
		return []byte("\x1b[<" + strconv.Itoa(code) + ";" + strconv.Itoa(x+1) + ";" + strconv.Itoa(y+1) + final)
	case vt.MouseEncodingURXVT:
		if release {
			code = 3 + code&^3
		}
		return []byte("\x1b[" + strconv.Itoa(code+32) + ";" + strconv.Itoa(x+1) + ";" + strconv.Itoa(y+1) + "M")
	}
	if release {
		code = 3 + code&^3 // the old encodings cannot say which button was released
	}
	out := []byte{0x1b, '[', 'M', byte(32 + code)}
	for _, v := range []int{x, y} {
		v += 33
		if m.MouseEncoding == vt.MouseEncodingUTF8 {
			if v > 2047 {
				return nil
			}
			out = utf8.AppendRune(out, rune(v))
			continue
		}
		if v > 255 {
			return nil // beyond what the encoding can say
		}
		out = append(out, byte(v))
	}
	return out
}
