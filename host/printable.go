package host

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable makes untrusted text (a Tick's or an agent's) safe to put on a terminal (H-SEC2):
// control characters, including ESC and the C1 range, become visible escapes such as \x1b,
// invisible characters (see Invisible) escapes such as \u200b, and
// invalid UTF-8 becomes U+FFFD. Newlines and tabs are kept only when keepLayout is true.
// Combining marks past maxMarks on one character become escapes too: thousands stacked on one
// cell smear over the lines around it on a real terminal and slow it down.
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
	marks := 0 // combining marks on the current character so far
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Me) {
			marks++
		} else {
			marks = 0
		}
		switch {
		case marks > maxMarks:
			writeEscape(&b, r)
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case keepLayout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		case Invisible(r):
			// Zero-width characters, joiners, tags, bidi overrides and line separators hide or
			// rearrange what a person sees, and some break the borders drawn around them.
			writeEscape(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxMarks is how many combining marks one character keeps (scripts in use need no more).
const maxMarks = 2

// Invisible reports whether r draws nothing, or rearranges what is around it, on a terminal:
// format characters (zero-width spaces and joiners, bidi controls, tag characters of the
// U+E0000 block, the byte order mark, the soft hyphen), line and paragraph separators,
// variation selectors, the combining grapheme joiner and the Hangul fillers.
// C0 and C1 controls are not included: Printable escapes them on their own.
func Invisible(r rune) bool {
	switch {
	case r < 0xa0:
		return false
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return true
	case unicode.Is(unicode.Variation_Selector, r), r == 0x034f:
		return true
	case r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return true
	case r >= 0xe0000 && r <= 0xe0fff: // the tag block and its unassigned neighbours
		return true
	}
	return unicode.Is(unicode.Bidi_Control, r)
}

// writeEscape writes r as \uXXXX, or \UXXXXXXXX past the basic plane.
func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	if r > 0xffff {
		b.WriteString(`\U`)
		for shift := 28; shift >= 0; shift -= 4 {
			b.WriteByte(hex[r>>shift&0xf])
		}
		return
	}
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
}

// Cap keeps the first n characters of s and says how many more there were ("… 398000 more"):
// what a person is shown of a text a Tick sent, which may be 400,000 characters long.
func Cap(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "… " + strconv.Itoa(utf8.RuneCountInString(s[i:])) + " more"
		}
		count++
	}
	return s
}
