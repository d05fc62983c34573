package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Op is one RFC 6902 operation: add, remove or replace. Old, on remove and replace, is the value
// that was there, so the change can be read without the state before; RFC 6902 appliers ignore
// members an operation does not define (section 4).
//
// We write this small diff rather than take a JSON Patch library: the journal needs only
// add/remove/replace with explicit indices, element-wise for arrays, plus Old; the libraries
// at hand either compute move/copy, use "/-", or leave out the old value. The property test
// (patch_test.go) checks Apply(before, Diff(before, after)) == after on random documents.
type Op struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
	Old   json.RawMessage `json:"old,omitempty"`
}

// Patch is a JSON Patch; nil means the change is unknown, empty means no change.
type Patch []Op

// Diff returns the patch that turns before into after. Objects are compared key by key, arrays
// element by element: a longer array gets adds at explicit indices, a shorter one removes from
// its end. Anything else that differs is replaced. Both must be valid JSON.
func Diff(before, after json.RawMessage) (Patch, error) {
	a, err := decode(before)
	if err != nil {
		return nil, fmt.Errorf("the state before: %w", err)
	}
	b, err := decode(after)
	if err != nil {
		return nil, fmt.Errorf("the state after: %w", err)
	}
	p := Patch{}
	diff(&p, "", a, b)
	return p, nil
}

func decode(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers compare and re-encode exactly as the Tick wrote them
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func enc(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func diff(p *Patch, at string, a, b any) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				va, ina := x[k]
				vb, inb := y[k]
				path := at + "/" + escape(k)
				switch {
				case !inb:
					*p = append(*p, Op{Op: "remove", Path: path, Old: enc(va)})
				case !ina:
					*p = append(*p, Op{Op: "add", Path: path, Value: enc(vb)})
				default:
					diff(p, path, va, vb)
				}
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			n := min(len(x), len(y))
			for i := 0; i < n; i++ {
				diff(p, at+"/"+strconv.Itoa(i), x[i], y[i])
			}
			for i := n; i < len(y); i++ {
				*p = append(*p, Op{Op: "add", Path: at + "/" + strconv.Itoa(i), Value: enc(y[i])})
			}
			for i := len(x) - 1; i >= n; i-- {
				*p = append(*p, Op{Op: "remove", Path: at + "/" + strconv.Itoa(i), Old: enc(x[i])})
			}
			return
		}
	default:
		if same(a, b) {
			return
		}
	}
	*p = append(*p, Op{Op: "replace", Path: at, Value: enc(b), Old: enc(a)})
}

// same compares two scalars (nil, bool, json.Number, string) of decoded JSON.
func same(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	return false
}

// escape and unescape a JSON Pointer reference token (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// Apply applies p to doc (add, remove, replace only) and returns the result.
func Apply(doc json.RawMessage, p Patch) (json.RawMessage, error) {
	v, err := decode(doc)
	if err != nil {
		return nil, err
	}
	for _, op := range p {
		var val any
		if op.Op != "remove" {
			if val, err = decode(op.Value); err != nil {
				return nil, fmt.Errorf("%s %s: %w", op.Op, op.Path, err)
			}
		}
		if v, err = apply(v, op.Op, op.Path, val); err != nil {
			return nil, err
		}
	}
	return enc(v), nil
}

func apply(root any, op, path string, val any) (any, error) {
	if path == "" {
		if op == "remove" {
			return nil, fmt.Errorf("cannot remove the whole document")
		}
		return val, nil
	}
	if path[0] != '/' {
		return nil, fmt.Errorf("bad path %q", path)
	}
	toks := strings.Split(path[1:], "/")
	var set func(cur any, toks []string) (any, error)
	set = func(cur any, toks []string) (any, error) {
		tok := unescape(toks[0])
		last := len(toks) == 1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				_, had := c[tok]
				switch op {
				case "remove":
					if !had {
						return nil, fmt.Errorf("remove %s: no such member", path)
					}
					delete(c, tok)
				case "replace":
					if !had {
						return nil, fmt.Errorf("replace %s: no such member", path)
					}
					c[tok] = val
				default:
					c[tok] = val
				}
				return c, nil
			}
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("%s: no member %q", path, tok)
			}
			nv, err := set(next, toks[1:])
			c[tok] = nv
			return c, err
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i > len(c) || (i == len(c) && !(last && op == "add")) {
				return nil, fmt.Errorf("%s: bad index %q", path, tok)
			}
			if last {
				switch op {
				case "add":
					c = append(c, nil)
					copy(c[i+1:], c[i:])
					c[i] = val
				case "remove":
					c = append(c[:i], c[i+1:]...)
				default:
					c[i] = val
				}
				return c, nil
			}
			nv, err := set(c[i], toks[1:])
			c[i] = nv
			return c, err
		}
		return nil, fmt.Errorf("%s: not a container", path)
	}
	return set(root, toks)
}
