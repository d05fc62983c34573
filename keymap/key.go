// Package keymap holds tickmux's key bindings as data: named actions bound to keys in modes. The
// defaults follow tmux (prefix Ctrl-b); the config file can rebind everything.
package keymap

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// Key is one keypress, normalised so that a key parsed from text and the same key typed compare
// equal.
type Key struct {
	Code tcell.Key
	Rune rune // for tcell.KeyRune only
	Mod  tcell.ModMask
}

// FromEvent normalises a tcell key event.
func FromEvent(ev *tcell.EventKey) Key {
	k := Key{Code: ev.Key(), Mod: ev.Modifiers()}
	switch {
	case k.Code == tcell.KeyRune:
		k.Rune = ev.Rune()
		k.Mod &^= tcell.ModShift // the rune already says it
	case k.Code >= tcell.KeyCtrlA && k.Code <= tcell.KeyCtrlZ:
		k.Mod &^= tcell.ModCtrl | tcell.ModShift // the code already says it
	}
	return k
}

var namedKeys = map[string]tcell.Key{
	"up": tcell.KeyUp, "down": tcell.KeyDown, "left": tcell.KeyLeft, "right": tcell.KeyRight,
	"home": tcell.KeyHome, "end": tcell.KeyEnd, "pgup": tcell.KeyPgUp, "pgdn": tcell.KeyPgDn,
	"pageup": tcell.KeyPgUp, "pagedown": tcell.KeyPgDn, "insert": tcell.KeyInsert, "delete": tcell.KeyDelete,
	"tab": tcell.KeyTab, "btab": tcell.KeyBacktab, "enter": tcell.KeyEnter, "esc": tcell.KeyEscape,
	"escape": tcell.KeyEscape, "backspace": tcell.KeyBackspace,
	"f1": tcell.KeyF1, "f2": tcell.KeyF2, "f3": tcell.KeyF3, "f4": tcell.KeyF4, "f5": tcell.KeyF5,
	"f6": tcell.KeyF6, "f7": tcell.KeyF7, "f8": tcell.KeyF8, "f9": tcell.KeyF9, "f10": tcell.KeyF10,
	"f11": tcell.KeyF11, "f12": tcell.KeyF12,
}

// Parse reads a key such as "C-b", "M-Left", "S-Up", "%", "Space", "F5" or "Enter". Modifiers are
// C- (Ctrl), M- or A- (Alt), S- (Shift); names are case-insensitive.
func Parse(s string) (Key, error) {
	orig := s
	var mod tcell.ModMask
	for len(s) > 2 && s[1] == '-' {
		switch s[0] {
		case 'C', 'c':
			mod |= tcell.ModCtrl
		case 'M', 'm', 'A', 'a':
			mod |= tcell.ModAlt
		case 'S', 's':
			mod |= tcell.ModShift
		default:
			return Key{}, fmt.Errorf("key %q: unknown modifier %q (use C-, M- or S-)", orig, s[:2])
		}
		s = s[2:]
	}
	if s == "" {
		return Key{}, fmt.Errorf("key %q: no key after the modifiers", orig)
	}
	if strings.EqualFold(s, "space") {
		s = " "
	}
	if utf8.RuneCountInString(s) == 1 {
		r, _ := utf8.DecodeRuneInString(s)
		return FromEvent(tcell.NewEventKey(tcell.KeyRune, r, mod)), nil
	}
	code, ok := namedKeys[strings.ToLower(s)]
	if !ok {
		return Key{}, fmt.Errorf("key %q: unknown key name %q", orig, s)
	}
	return FromEvent(tcell.NewEventKey(code, 0, mod)), nil
}

// MustParse is Parse for keys known to be valid.
func MustParse(s string) Key {
	k, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return k
}

// String writes the key the way Parse reads it.
func (k Key) String() string {
	var b strings.Builder
	if k.Mod&tcell.ModCtrl != 0 {
		b.WriteString("C-")
	}
	if k.Mod&tcell.ModAlt != 0 {
		b.WriteString("M-")
	}
	if k.Mod&tcell.ModShift != 0 {
		b.WriteString("S-")
	}
	switch {
	case k.Code == tcell.KeyRune && k.Rune == ' ':
		b.WriteString("Space")
	case k.Code == tcell.KeyRune:
		b.WriteRune(k.Rune)
	default:
		name := ""
		for n, c := range namedKeys {
			if c == k.Code && (name == "" || len(n) < len(name) || (len(n) == len(name) && n < name)) {
				name = n
			}
		}
		switch {
		case name != "": // Tab, Enter and Backspace share codes with C-i, C-m and C-h
			b.WriteString(displayName(name))
		case k.Code >= tcell.KeyCtrlA && k.Code <= tcell.KeyCtrlZ:
			b.WriteString("C-")
			b.WriteRune(rune('a' + k.Code - tcell.KeyCtrlA))
		default:
			return fmt.Sprintf("key#%d", k.Code)
		}
	}
	return b.String()
}

func displayName(n string) string {
	switch n {
	case "pgup":
		return "PgUp"
	case "pgdn":
		return "PgDn"
	case "btab":
		return "BTab"
	case "esc":
		return "Esc"
	}
	if n[0] == 'f' && len(n) <= 3 {
		return strings.ToUpper(n)
	}
	return strings.ToUpper(n[:1]) + n[1:]
}
