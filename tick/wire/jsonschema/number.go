package jsonschema

import (
	"math"
	"math/big"
	"math/bits"
	"strings"
)

// decimal is a JSON number held exactly: 0.digits × 10^exp, negative when neg. Numbers are
// compared and divided as decimals, never as float64, so 9007199254740993 is above
// 9007199254740992 and 0.3 is a multiple of 0.1.
type decimal struct {
	neg    bool
	digits string // significant digits: the first and the last are not '0'; "" for zero
	exp    int64
}

// maxExponent bounds exponents so that sums of them never overflow; a JSON number beyond it
// (1e999999999999999) is compared as if it were at the bound.
const maxExponent = 1e15

// parseDecimal reads a number in JSON's grammar (encoding/json has checked it).
func parseDecimal(s string) decimal {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if e < maxExponent {
				e = e*10 + int64(s[i]-'0')
			}
		}
		e = min(e, maxExponent)
		if eneg {
			e = -e
		}
	}
	all := intPart
	if frac != "" {
		all = intPart + frac
	}
	point := int64(len(intPart))
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = strings.TrimRight(all[lead:], "0")
	if all == "" {
		return decimal{}
	}
	d.digits = all
	d.exp = point - int64(lead) + e
	return d
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares d with o: -1, 0 or 1.
func (d decimal) cmp(o decimal) int {
	sd, so := d.sign(), o.sign()
	if sd != so || sd == 0 {
		return compareInts(sd, so)
	}
	c := 0
	if d.exp != o.exp {
		c = compareInts(d.exp, o.exp)
	} else {
		c = strings.Compare(d.digits, o.digits)
	}
	return c * sd
}

func compareInts[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isInteger reports whether d has no fractional part (1.0 and 1e3 are integers).
func (d decimal) isInteger() bool {
	return d.digits == "" || d.exp >= int64(len(d.digits))
}

// toInt returns d as an int when it is a non-negative integer, saturating at math.MaxInt.
func (d decimal) toInt() (int, bool) {
	if d.neg || !d.isInteger() {
		return 0, false
	}
	if d.digits == "" {
		return 0, true
	}
	if d.exp > 18 {
		return math.MaxInt, true
	}
	n := 0
	for i := int64(0); i < d.exp; i++ {
		c := byte('0')
		if i < int64(len(d.digits)) {
			c = d.digits[i]
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// maxDivisionDigits bounds the significant digits multipleOf divides exactly; longer numbers
// (nobody writes them) are reported as too long to check rather than costing a big division.
const maxDivisionDigits = 1000

// multipleOf reports whether d is an integer multiple of m (m > 0). ok is false when d or m
// has more than maxDivisionDigits significant digits.
func (d decimal) multipleOf(m decimal) (is, ok bool) {
	if d.digits == "" {
		return true, true
	}
	if len(d.digits) > maxDivisionDigits || len(m.digits) > maxDivisionDigits {
		return false, false
	}
	// d = D × 10^de and m = M × 10^me with integers D and M that do not end in 0.
	de := d.exp - int64(len(d.digits))
	me := m.exp - int64(len(m.digits))
	k := de - me
	if k < 0 {
		// d/m = D / (M × 10^-k): D would have to end in 0.
		return false, true
	}
	// Is D × 10^k divisible by M?
	if len(d.digits) <= 18 && len(m.digits) <= 18 {
		dv, mv := atou(d.digits), atou(m.digits)
		return mulmod(dv%mv, powmod(10, uint64(k), mv), mv) == 0, true
	}
	D, _ := new(big.Int).SetString(d.digits, 10)
	M, _ := new(big.Int).SetString(m.digits, 10)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(k), M)
	D.Mul(D.Mod(D, M), p)
	return D.Mod(D, M).Sign() == 0, true
}

func atou(s string) uint64 {
	var n uint64
	for i := 0; i < len(s); i++ {
		n = n*10 + uint64(s[i]-'0')
	}
	return n
}

func mulmod(a, b, m uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return bits.Rem64(hi, lo, m)
}

func powmod(b, e, m uint64) uint64 {
	r := uint64(1) % m
	b %= m
	for e > 0 {
		if e&1 == 1 {
			r = mulmod(r, b, m)
		}
		b = mulmod(b, b, m)
		e >>= 1
	}
	return r
}

// canonical writes d so that equal numbers write the same text: "0", or [-]digits "e" exp.
func (d decimal) canonical(b *strings.Builder) {
	if d.digits == "" {
		b.WriteByte('0')
		return
	}
	if d.neg {
		b.WriteByte('-')
	}
	b.WriteString(d.digits)
	b.WriteByte('e')
	var buf [24]byte
	b.Write(appendInt(buf[:0], d.exp))
}

func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}
