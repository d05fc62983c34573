package host

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"tickmux/tick/wire"
)

// The classifier reads every line a Tick writes, and a Tick may flood. Instead of decoding a
// line several times with encoding/json (validate, decode the envelope, compact the params,
// decode them again), scanLine validates it once, as strictly as encoding/json plus UTF-8, and
// notes where the members the host reads begin and end. Member names are matched exactly
// (case-sensitive, as JSON-RPC means them); a repeated member counts by its last occurrence.

// span is where a value lies in the line; ws counts the insignificant whitespace inside it, and
// shrink the bytes its strings' escapes lose when re-encoded (wire.EncodedLen: "\u00e9" is 2
// bytes, "\/" 1), so its re-encoded size is end-start-ws-shrink without re-encoding it.
type span struct {
	start, end, ws, shrink int
	set                    bool
}

func (s span) bytes(b []byte) []byte { return b[s.start:s.end] }

// compactLen is the span's size as the host re-encodes it (spec 2.3, 3.5).
func (s span) compactLen() int { return s.end - s.start - s.ws - s.shrink }

// scanned holds the members of a message, and of its params when they are an object.
type scanned struct {
	jsonrpc, id, method, params, result, errv span
	state                                     stateSpans // params' members (tick/update)
}

// stateSpans are the members of a TickState object.
type stateSpans struct {
	object        bool // the value was an object
	seq, data, at span
}

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

type scanner struct {
	b      []byte
	i      int
	ws     int // insignificant whitespace seen so far
	shrink int // bytes the escapes seen so far lose when re-encoded
	depth  int
}

var errScanDepth = errors.New("nested too deeply")

func (s *scanner) fail(what string) error {
	if s.i >= len(s.b) {
		return fmt.Errorf("unexpected end of JSON input (%s)", what)
	}
	return fmt.Errorf("invalid character %q at offset %d (%s)", s.b[s.i], s.i, what)
}

func (s *scanner) skipWS() {
	for s.i < len(s.b) {
		// Compact JSON has no whitespace: one comparison settles most calls.
		if c := s.b[s.i]; c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return
		}
		s.i++
		s.ws++
	}
}

// scanLine validates a whole line and finds the message's members.
func scanLine(b []byte) (scanned, error) {
	var m scanned
	s := &scanner{b: b}
	s.skipWS()
	if s.i >= len(b) || b[s.i] != '{' {
		// Not an object: validate it all the same, for the right message.
		if _, err := s.value(); err != nil {
			return m, err
		}
		s.skipWS()
		if s.i != len(b) {
			return m, s.fail("after the top-level value")
		}
		return m, errNotObject
	}
	err := s.object(func(key []byte, escaped bool) error {
		var sp *span
		switch memberKey(key, escaped) {
		case "jsonrpc":
			sp = &m.jsonrpc
		case "id":
			sp = &m.id
		case "method":
			sp = &m.method
		case "params":
			// Scan params' own members in the same pass.
			start, ws0, shrink0 := s.i, s.ws, s.shrink
			st, err := s.stateObject()
			if err != nil {
				return err
			}
			m.params = span{start: start, end: s.i, ws: s.ws - ws0, shrink: s.shrink - shrink0, set: true}
			m.state = st
			return nil
		case "result":
			sp = &m.result
		case "error":
			sp = &m.errv
		default:
			_, err := s.value()
			return err
		}
		v, err := s.value()
		*sp = v
		return err
	})
	if err != nil {
		return m, err
	}
	s.skipWS()
	if s.i != len(b) {
		return m, s.fail("after the top-level value")
	}
	return m, nil
}

var errNotObject = errors.New("not a JSON object")

// scanState validates a standalone TickState (a tick/read result) and finds its members.
func scanState(b []byte) (stateSpans, error) {
	s := &scanner{b: b}
	s.skipWS()
	st, err := s.stateObject()
	if err != nil {
		return st, err
	}
	s.skipWS()
	if s.i != len(b) {
		return st, s.fail("after the value")
	}
	return st, nil
}

// stateObject scans a value at s.i; when it is an object it notes seq, data and at.
func (s *scanner) stateObject() (stateSpans, error) {
	var st stateSpans
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		_, err := s.value()
		return st, err
	}
	st.object = true
	err := s.object(func(key []byte, escaped bool) error {
		var sp *span
		switch memberKey(key, escaped) {
		case "seq":
			sp = &st.seq
		case "data":
			sp = &st.data
		case "at":
			sp = &st.at
		default:
			_, err := s.value()
			return err
		}
		v, err := s.value()
		*sp = v
		return err
	})
	return st, err
}

// memberName returns a key as a string; escaped keys are decoded the slow way.
func memberName(raw []byte, escaped bool) string {
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var name string
	_ = json.Unmarshal(raw, &name)
	return name
}

// memberKey is memberName for a switch over the names the host reads: an unescaped key is
// returned as the matching constant, with no copy of it made for each line (every line has
// several keys, and a flooding Tick writes thousands of lines a second). Other names are
// returned as "", which matches no case.
func memberKey(raw []byte, escaped bool) string {
	if escaped {
		return memberName(raw, true)
	}
	switch string(raw[1 : len(raw)-1]) { // a switch on a conversion does not allocate
	case "jsonrpc":
		return "jsonrpc"
	case "id":
		return "id"
	case "method":
		return "method"
	case "params":
		return "params"
	case "result":
		return "result"
	case "error":
		return "error"
	case "seq":
		return "seq"
	case "data":
		return "data"
	case "at":
		return "at"
	}
	return ""
}

// object scans an object at s.i, calling member with s.i at each value.
func (s *scanner) object(member func(key []byte, escaped bool) error) error {
	s.depth++
	if s.depth > maxDepth {
		return errScanDepth
	}
	defer func() { s.depth-- }()
	s.i++ // '{'
	s.skipWS()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.fail("looking for a member name")
		}
		kstart := s.i
		escaped, err := s.str()
		if err != nil {
			return err
		}
		key := s.b[kstart:s.i]
		s.skipWS()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.fail("after a member name")
		}
		s.i++
		s.skipWS()
		if err := member(key, escaped); err != nil {
			return err
		}
		s.skipWS()
		if s.i >= len(s.b) {
			return s.fail("in an object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.skipWS()
		case '}':
			s.i++
			return nil
		default:
			return s.fail("after an object member")
		}
	}
}

// value scans any JSON value at s.i and returns its span.
func (s *scanner) value() (span, error) {
	start, ws0, shrink0 := s.i, s.ws, s.shrink
	err := s.skip()
	return span{start: start, end: s.i, ws: s.ws - ws0, shrink: s.shrink - shrink0, set: true}, err
}

// skip scans one value at s.i. Nested values are scanned in a loop over a stack of the open
// containers rather than by a call per value: a Tick's data is mostly small members, and a call
// (with its closure) per member cost more than scanning the member.
func (s *scanner) skip() error {
	var open [64]byte // '{' or '[' per container open inside this value; deeper grows
	stack := open[:0]
	b := s.b
	for {
		// A value at s.i.
		if s.i >= len(b) {
			return s.fail("looking for a value")
		}
		switch c := b[s.i]; {
		case c == '{' || c == '[':
			if s.depth+len(stack)+1 > maxDepth {
				return errScanDepth
			}
			s.i++
			s.skipWS()
			if s.i < len(b) && b[s.i] == c+2 { // '}' or ']': empty
				s.i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if err := s.memberName(); err != nil {
					return err
				}
			}
			continue
		case c == '"':
			if _, err := s.str(); err != nil {
				return err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if err := s.number(); err != nil {
				return err
			}
		case c == 't':
			if err := s.literal("true"); err != nil {
				return err
			}
		case c == 'f':
			if err := s.literal("false"); err != nil {
				return err
			}
		case c == 'n':
			if err := s.literal("null"); err != nil {
				return err
			}
		default:
			return s.fail("looking for a value")
		}
		// A value ended: close the containers it ends, up to the next value.
		for {
			if len(stack) == 0 {
				return nil
			}
			top := stack[len(stack)-1]
			s.skipWS()
			if s.i >= len(b) {
				if top == '{' {
					return s.fail("in an object")
				}
				return s.fail("in an array")
			}
			c := b[s.i]
			if c == ',' {
				s.i++
				s.skipWS()
				if top == '{' {
					if err := s.memberName(); err != nil {
						return err
					}
				}
				break
			}
			if c != top+2 {
				if top == '{' {
					return s.fail("after an object member")
				}
				return s.fail("after an array element")
			}
			s.i++
			stack = stack[:len(stack)-1]
		}
	}
}

// memberName scans a member's name and its colon, up to its value.
func (s *scanner) memberName() error {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return s.fail("looking for a member name")
	}
	if _, err := s.str(); err != nil {
		return err
	}
	s.skipWS()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return s.fail("after a member name")
	}
	s.i++
	s.skipWS()
	return nil
}

func (s *scanner) literal(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.fail("in a literal")
	}
	s.i += len(word)
	return nil
}

// str scans a string at s.i (on its opening quote); it reports whether it had escapes.
func (s *scanner) str() (escaped bool, err error) {
	b := s.b
	i := s.i + 1
	for i < len(b) {
		i = skipPlain(b, i)
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				s.i = i + 1
				return escaped, s.fail("in an escape")
			}
			switch b[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case '/':
				s.shrink++ // re-encoded as itself
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					s.i = i + 1
					return escaped, s.fail("in a \\u escape")
				}
				// A pair of surrogates is taken whole: its second half is valid, EscapeLen checked.
				in, out := wire.EscapeLen(b[i:])
				s.shrink += in - out
				i += in
			default:
				s.i = i + 1
				return escaped, s.fail("in an escape")
			}
		case c < 0x20:
			s.i = i
			return escaped, s.fail("control character in a string")
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				s.i = i
				return escaped, errors.New("invalid UTF-8 in a string")
			}
			i += size
		}
	}
	s.i = i
	return escaped, s.fail("in a string")
}

// skipPlain returns where the run of plain bytes (printable ASCII other than '"' and '\\')
// starting at i ends. It tests 8 bytes at a time: a word with a byte that ends the run says which
// one (the lowest flagged byte of nonPlain is exact), so short strings take one test or two. A
// longer run is taken a window at a time: its quote and backslash are found by the vectorised
// bytes.IndexByte, and the bytes before them need only the cheaper test of ctrlOrHigh.
func skipPlain(b []byte, i int) int {
	for range 2 {
		if i+8 > len(b) {
			for i < len(b) && plainByte[b[i]] {
				i++
			}
			return i
		}
		if m := nonPlain(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for {
		lim := min(len(b), i+plainWindow)
		end := lim
		if k := bytes.IndexByte(b[i:lim], '"'); k >= 0 {
			end = i + k
		}
		if k := bytes.IndexByte(b[i:end], '\\'); k >= 0 {
			end = i + k
		}
		for i+8 <= end {
			if m := ctrlOrHigh(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				return i + bits.TrailingZeros64(m)/8
			}
			i += 8
		}
		for i < end && plainByte[b[i]] {
			i++
		}
		if i < lim || lim == len(b) {
			return i
		}
	}
}

// plainWindow is how far ahead skipPlain looks for a quote at once: a string with many escapes
// is not searched to its end at each of them.
const plainWindow = 256

// ctrlOrHigh flags (high bit) the bytes of w below 0x20 or above 0x7f; as in nonPlain, the
// lowest flag is exact.
func ctrlOrHigh(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return (w | (w - 0x20*ones)) & highs
}

// plainByte marks the bytes that do not end a plain run.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// nonPlain flags (high bit) the bytes of w (little-endian) that end a string's plain run: a
// control character (below 0x20), '"', '\\', or anything outside ASCII. Each test is the
// "some byte is ..." test on all bytes at once: a borrow may flag a byte above a flagged one,
// never below, so the lowest flag is exact and 0 means every byte is plain.
func nonPlain(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below20 := (w - 0x20*ones) &^ w
	q := w ^ '"'*ones
	quote := (q - ones) &^ q
	bs := w ^ '\\'*ones
	backslash := (bs - ones) &^ bs
	return (below20 | quote | backslash | w) & highs
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (s *scanner) number() error {
	b := s.b
	i := s.i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.i = i
		return s.fail("in a number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.i = i
			return s.fail("after a decimal point")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.i = i
			return s.fail("in an exponent")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return nil
}
