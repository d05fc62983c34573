package host

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable makes untrusted text (a Tick's or an agent's) safe to put on a terminal (H-SEC2):
// control characters, including ESC and the C1 range, become visible escapes such as \x1b, and
// invalid UTF-8 becomes U+FFFD. Newlines and tabs are kept only when keepLayout is true.
func Printable(s string, keepLayout bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case keepLayout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		case r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			// Line separators and bidi overrides rearrange what a person sees.
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
