package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// The host's re-encoding (spec 2.3: 「消息体的大小按接收方重新编码后的结果计算」; 3.5: the encoded size
// is the bytes of what the host re-encodes after parsing). Every size limit (describe, read,
// update, result) is measured on it, whatever the Tick wrote:
//
//   - compact: no whitespace between tokens;
//   - strings in UTF-8 with the fewest escapes: only '"' and '\\' (as \" and \\) and the control
//     characters below U+0020 (\b \f \n \r \t, the others as \u00XX) are escaped; "/", non-ASCII
//     (U+2028 and U+2029 included) and "<", ">", "&" are written as themselves (no HTML escaping);
//     a \u escape the Tick wrote becomes the character's UTF-8 bytes, a surrogate pair one 4-byte
//     character, a lone surrogate U+FFFD;
//   - numbers as the Tick wrote them: a number's spelling is the Tick's own (`5000E-1` counts 7
//     bytes). Spec 3.5 warns that re-encoding may lengthen numbers; as written never does, so a
//     Tick that left that margin is never refused for its numbers.
//
// Clean, for people and models, adds one thing: numbers are normalised (see Clean).

// EscapeLen reads the escape at the start of b (b[0] is the backslash of a valid JSON escape)
// and returns the bytes it takes (a \u high surrogate followed by a \u low surrogate: both, 12)
// and the bytes of its re-encoding.
func EscapeLen(b []byte) (in, out int) {
	if b[1] != 'u' {
		if b[1] == '/' {
			return 2, 1
		}
		return 2, 2 // \" \\ \b \f \n \r \t stay
	}
	r := hex4(b[2:6])
	switch {
	case r >= 0xD800 && r < 0xDC00:
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo := hex4(b[8:12]); lo >= 0xDC00 && lo < 0xE000 {
				return 12, 4
			}
		}
		return 6, 3 // a lone surrogate: U+FFFD
	case r >= 0xDC00 && r < 0xE000:
		return 6, 3
	case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return 6, 2
	case r < 0x20:
		return 6, 6
	case r < 0x80:
		return 6, 1
	case r < 0x800:
		return 6, 2
	}
	return 6, 3
}

// hex4 reads four hex digits; -1 if one is not a hex digit.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}

// EncodedLen is the size of raw, valid JSON in valid UTF-8, as the host re-encodes it (see the
// comment above). When raw has no backslash it is raw's length less its whitespace, with no
// other work.
func EncodedLen(raw []byte) int {
	escapes := bytes.IndexByte(raw, '\\') >= 0
	n, inStr := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr && c == '\\' && escapes:
			in, out := EscapeLen(raw[i:])
			n += out
			i += in - 1
		case c == '"':
			inStr = !inStr
			n++
		case !inStr && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		default:
			n++
		}
	}
	return n
}

// Clean re-encodes raw JSON for people and models: the host's re-encoding (compact, fewest
// escapes, UTF-8; invalid UTF-8 becomes U+FFFD) with numbers normalised, exactly: the digits the
// Tick wrote, without leading or trailing zeros, placed as JavaScript places a number's digits
// (plain, unless that takes more than 5 zeros after the point or an integer of more than 21
// digits longer than d.ddde+N: then d.ddde±N), so `5000E-1` is 500, `0.3e1` is 3, `1.50` is
// 1.5, `1e400` is 1e+400, `-0.0` is -0, and a 30-digit integer stays as it is. No digit is ever dropped or
// rounded. Raw that is not valid JSON is an error.
func Clean(raw []byte) ([]byte, error) {
	if !json.Valid(raw) {
		return nil, errors.New("not valid JSON")
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			var n int
			out, n = appendString(out, raw[i:])
			i += n
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(raw) && (raw[j] >= '0' && raw[j] <= '9' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] == '+' || raw[j] == '-') {
				j++
			}
			out = appendNumber(out, raw[i:j])
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	return out, nil
}

// appendString re-encodes the JSON string at the start of b (valid JSON) and returns how many
// bytes of b it took.
func appendString(out, b []byte) ([]byte, int) {
	out = append(out, '"')
	i := 1
	for {
		c := b[i]
		switch {
		case c == '"':
			return append(out, '"'), i + 1
		case c == '\\':
			in, _ := EscapeLen(b[i:])
			var r rune
			switch b[i+1] {
			case 'u':
				r = hex4(b[i+2 : i+6])
				if in == 12 {
					r = 0x10000 + (r-0xD800)<<10 + (hex4(b[i+8:i+12]) - 0xDC00)
				} else if r >= 0xD800 && r < 0xE000 {
					r = utf8.RuneError
				}
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default: // " \ /
				r = rune(b[i+1])
			}
			out = appendRune(out, r)
			i += in
		case c < utf8.RuneSelf:
			out = append(out, c) // valid JSON: no raw control character here
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			out = utf8.AppendRune(out, r) // invalid UTF-8 becomes U+FFFD
			i += size
		}
	}
}

func appendRune(out []byte, r rune) []byte {
	switch r {
	case '"':
		return append(out, '\\', '"')
	case '\\':
		return append(out, '\\', '\\')
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	if r < 0x20 {
		const hex = "0123456789abcdef"
		return append(out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	}
	return utf8.AppendRune(out, r)
}

// appendNumber writes a valid JSON number normalised (see Clean).
func appendNumber(out, num []byte) []byte {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	mant, expText := num, []byte(nil)
	if k := bytes.IndexAny(num, "eE"); k >= 0 {
		mant, expText = num[:k], num[k+1:]
	}
	exp := 0
	if len(expText) > 0 {
		e, err := strconv.Atoi(string(expText))
		if err != nil || e > 1<<40 || e < -(1<<40) {
			// An exponent past any sense: keep the number as written rather than guess.
			if neg {
				out = append(out, '-')
			}
			return append(out, num...)
		}
		exp = e
	}
	intPart, frac := mant, []byte(nil)
	if k := bytes.IndexByte(mant, '.'); k >= 0 {
		intPart, frac = mant[:k], mant[k+1:]
	}
	// value = digits × 10^exp, digits without leading or trailing zeros.
	digits := make([]byte, 0, len(intPart)+len(frac))
	digits = append(digits, intPart...)
	digits = append(digits, frac...)
	exp -= len(frac)
	digits = bytes.TrimLeft(digits, "0")
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if neg {
		out = append(out, '-') // -0 stays -0: a reader may tell it from 0
	}
	if len(digits) == 0 {
		return append(out, '0')
	}
	n := len(digits)
	point := n + exp // digits before the decimal point, as JavaScript's Number::toString counts it
	switch {
	case point >= n && (point <= 21 || point <= expFormLen(n, point)): // an integer
		out = append(out, digits...)
		for range point - n {
			out = append(out, '0')
		}
	case point > 0 && point <= 21:
		out = append(out, digits[:point]...)
		out = append(out, '.')
		out = append(out, digits[point:]...)
	case point > -6 && point <= 0:
		out = append(out, '0', '.')
		for range -point {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if n > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if point-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(point-1), 10)
	}
	return out
}

// expFormLen is the length of d.ddde+N for n digits and the point after point digits.
func expFormLen(n, point int) int {
	l := n + 2 + len(strconv.Itoa(point-1)) // digits, "e+", exponent
	if n > 1 {
		l++ // the point
	}
	return l
}
