package trim

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"
)

// kind is the JSON type of a node, with numbers, true, false and null together as literals:
// the trim never changes those, it keeps or drops them.
type kind uint8

const (
	kindLiteral kind = iota
	kindString
	kindArray
	kindObject
)

// node is one value of the data, parsed once; a trim reads it and never changes its content.
type node struct {
	kind kind
	// enc is the canonical encoding of a literal or string (quotes included).
	enc []byte
	// keys are the canonical encodings of an object's keys (quotes included), beside kids.
	keys [][]byte
	kids []*node
	// size is the canonical encoded size of the whole value.
	size int
	// ptrLen is the size of this node's JSON Pointer encoded as a JSON string, quotes included:
	// what a Dropped naming it costs.
	ptrLen int

	// newest is set when the node is an array declared in state.series: its newest end.
	newest string
	// self: this series' newest element is protected in the current trim.
	self bool
	// prot counts the protected series at or below this node in the current trim.
	prot int
	// need is the smallest cost that keeps everything protected at or below (when prot > 0).
	need int
}

// doc is parsed data with its series declarations resolved.
type doc struct {
	root *node
	// series are the valid declarations in declaration order: the nodes from the root to the
	// array, the array last.
	series [][]*node
}

var errInvalid = errors.New("trim: data is not valid JSON")

// parse reads data into a tree of canonical encodings. Empty data stands for null.
func parse(data []byte) (*doc, error) {
	if len(data) == 0 {
		data = []byte("null")
	}
	// Valid also bounds the nesting depth (10000), which bounds the recursion below.
	if !json.Valid(data) {
		return nil, errInvalid
	}
	return parseValid(data), nil
}

// parseValid parses data that is known to be valid JSON (or empty).
func parseValid(data []byte) *doc {
	if len(data) == 0 {
		data = []byte("null")
	}
	p := parser{b: data}
	return &doc{root: p.value(2)}
}

// parser reads JSON that json.Valid accepted, so it checks nothing.
type parser struct {
	b []byte
	i int
	// Nodes come from slabs, and children gather on shared stacks before they get a slice of
	// their exact size: a big state has tens of thousands of values.
	slab []node
	kids []*node
	keys [][]byte
}

func (p *parser) node(k kind, ptrLen int) *node {
	if len(p.slab) == 0 {
		p.slab = make([]node, 256)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.kind, n.ptrLen = k, ptrLen
	return n
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(ptrLen int) *node {
	p.space()
	switch p.b[p.i] {
	case '{':
		return p.object(ptrLen)
	case '[':
		return p.array(ptrLen)
	case '"':
		n := p.node(kindString, ptrLen)
		n.enc = p.str()
		n.size = len(n.enc)
		return n
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		p.i++
	}
	n := p.node(kindLiteral, ptrLen)
	n.enc = p.b[start:p.i]
	n.size = len(n.enc)
	return n
}

func (p *parser) array(ptrLen int) *node {
	n := p.node(kindArray, ptrLen)
	p.i++ // [
	size, mark := 1, len(p.kids)
	for {
		p.space()
		if p.b[p.i] == ']' {
			p.i++
			break
		}
		if p.b[p.i] == ',' {
			p.i++
		}
		k := p.value(ptrLen + 1 + digits(len(p.kids)-mark))
		p.kids = append(p.kids, k)
		size += k.size + 1
	}
	n.kids = slices.Clone(p.kids[mark:])
	p.kids = p.kids[:mark]
	n.size = max(size, 2)
	return n
}

func (p *parser) object(ptrLen int) *node {
	n := p.node(kindObject, ptrLen)
	p.i++ // {
	size, mark, keyMark := 1, len(p.kids), len(p.keys)
	for {
		p.space()
		if p.b[p.i] == '}' {
			p.i++
			break
		}
		if p.b[p.i] == ',' {
			p.i++
			p.space()
		}
		key := p.str()
		p.space()
		p.i++ // :
		k := p.value(ptrLen + 1 + segmentLen(key))
		p.keys = append(p.keys, key)
		p.kids = append(p.kids, k)
		size += len(key) + 1 + k.size + 1
	}
	n.keys = slices.Clone(p.keys[keyMark:])
	n.kids = slices.Clone(p.kids[mark:])
	p.keys, p.kids = p.keys[:keyMark], p.kids[:mark]
	n.size = max(size, 2)
	return n
}

// str reads a string token and returns its canonical encoding: the input's own bytes when they
// already are canonical, else decoded and encoded again.
func (p *parser) str() []byte {
	start := p.i
	p.i++ // "
	plain, ascii := true, true
	for {
		c := p.b[p.i]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			p.i += 2
			continue
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		p.i++
	}
	p.i++ // "
	tok := p.b[start:p.i]
	if plain && (ascii || utf8.Valid(tok) && !bytes.Contains(tok, lineSep) && !bytes.Contains(tok, paraSep)) {
		return tok
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		panic("trim: a string json.Valid accepted does not decode: " + err.Error())
	}
	return appendString(nil, s)
}

// U+2028 and U+2029 in UTF-8: encoding/json escapes them even without HTML escaping.
var (
	lineSep = []byte("\u2028")
	paraSep = []byte("\u2029")
)

// decoded returns the string a canonical string encoding stands for.
func decoded(enc []byte) string {
	if bytes.IndexByte(enc, '\\') < 0 {
		return string(enc[1 : len(enc)-1])
	}
	var s string
	if err := json.Unmarshal(enc, &s); err != nil {
		panic("trim: a canonical string does not decode: " + err.Error())
	}
	return s
}

// segmentLen is the size, inside a JSON string, of the pointer segment for an object key given
// by its canonical encoding: RFC 6901 writes ~ as ~0 and / as ~1, one byte more each, and
// neither needs a JSON escape.
func segmentLen(key []byte) int {
	n := len(key) - 2
	for _, c := range key {
		if c == '~' || c == '/' {
			n++
		}
	}
	return n
}

// digits is the length of n in decimal (n >= 0).
func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

const hex = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json does with HTML escaping off:
// ", \ and control characters escaped (\b \f \n \r \t short), U+2028 and U+2029 escaped,
// invalid UTF-8 as \ufffd, everything else as is.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// runeLen returns the size of the rune at the start of s (valid UTF-8) and of its encoding.
func runeLen(s string) (size, enc int) {
	c := s[0]
	if c < utf8.RuneSelf {
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			return 1, 2
		case c < 0x20:
			return 1, 6
		}
		return 1, 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		return 1, 6
	}
	if r == '\u2028' || r == '\u2029' {
		return size, 6
	}
	return size, size
}
