package trim

import (
	"strconv"
	"strings"

	"tickmux/tick/wire"
)

// declare resolves the series declarations (spec 5.2 StateSeries) against the data. A declaration
// that names no array, has an unknown Newest, or names an array already declared is ignored.
func (d *doc) declare(series []wire.Series) {
	for _, s := range series {
		if s.Newest != wire.NewestFirst && s.Newest != wire.NewestLast {
			continue
		}
		path, ok := d.resolve(s.Path)
		if !ok {
			continue
		}
		target := path[len(path)-1]
		if target.kind != kindArray || target.newest != "" {
			continue
		}
		target.newest = s.Newest
		if len(target.kids) > 0 {
			d.series = append(d.series, path)
		}
	}
}

// resolve follows an RFC 6901 JSON Pointer and returns the nodes on the way, the root first and
// the target last. Of duplicate keys the last counts, as encoding/json and JavaScript do.
func (d *doc) resolve(pointer string) ([]*node, bool) {
	path := []*node{d.root}
	if pointer == "" {
		return path, true
	}
	if pointer[0] != '/' {
		return nil, false
	}
	n := d.root
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok, ok := unescapeToken(tok)
		if !ok {
			return nil, false
		}
		var next *node
		switch n.kind {
		case kindObject:
			for i, key := range n.keys {
				if decoded(key) == tok {
					next = n.kids[i]
				}
			}
		case kindArray:
			if i, ok := arrayIndex(tok); ok && i < len(n.kids) {
				next = n.kids[i]
			}
		}
		if next == nil {
			return nil, false
		}
		path = append(path, next)
		n = next
	}
	return path, true
}

// unescapeToken turns ~1 into / and then ~0 into ~ (RFC 6901 section 4); any other ~ is an error.
func unescapeToken(tok string) (string, bool) {
	if !strings.Contains(tok, "~") {
		return tok, true
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] != '~' {
			b.WriteByte(tok[i])
			continue
		}
		if i+1 == len(tok) || (tok[i+1] != '0' && tok[i+1] != '1') {
			return "", false
		}
		if tok[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), true
}

// arrayIndex reads an array index token: "0" or digits without a leading zero (RFC 6901).
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (tok[0] == '0' && len(tok) > 1) {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
}

// appendKeyToken appends "/" and an object key, given by its canonical encoding, as a pointer
// segment.
func appendKeyToken(ptr []byte, key []byte) []byte {
	ptr = append(ptr, '/')
	for _, c := range []byte(decoded(key)) {
		switch c {
		case '~':
			ptr = append(ptr, '~', '0')
		case '/':
			ptr = append(ptr, '~', '1')
		default:
			ptr = append(ptr, c)
		}
	}
	return ptr
}

// appendIndexToken appends "/" and an array index as a pointer segment.
func appendIndexToken(ptr []byte, i int) []byte {
	return strconv.AppendInt(append(ptr, '/'), int64(i), 10)
}
