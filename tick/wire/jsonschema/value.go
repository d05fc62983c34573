package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decode reads one JSON value as this package validates it: objects as map[string]any, arrays
// as []any, numbers as json.Number (kept exact), strings, booleans and nil. Anything after the
// value but white space is an error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more data after the JSON value")
	}
	return v, nil
}

// The JSON types as a set of bits; integer is a number with no fractional part.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tString
	tInteger
)

var typeNames = [...]string{"null", "boolean", "object", "array", "number", "string", "integer"}

func typeByName(name string) typeSet {
	for i, n := range typeNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// kindOf is the JSON type of v (never tInteger: a number's integer-ness is asked apart).
func kindOf(v any) typeSet {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case map[string]any:
		return tObject
	case []any:
		return tArray
	case json.Number:
		return tNumber
	case string:
		return tString
	}
	return 0
}

// typeWords names the types in t for a person: "a string", "an integer or null".
func typeWords(t typeSet) string {
	var words []string
	for _, n := range [...]string{"object", "array", "string", "integer", "number", "boolean", "null"} {
		if t&typeByName(n) != 0 {
			words = append(words, article(n))
		}
	}
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func article(typeName string) string {
	switch typeName {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + typeName
	}
	return "a " + typeName
}

// kindWords names v's type for a person, an integer as such.
func kindWords(v any) string {
	if n, ok := v.(json.Number); ok && parseDecimal(string(n)).isInteger() {
		return "an integer"
	}
	return typeWords(kindOf(v))
}

// equal reports whether a and b are the same JSON value (numbers compared as numbers); it adds
// the pairs of values it compared to *work.
func equal(a, b any, work *int) bool {
	*work++
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && (a == bn || parseDecimal(string(a)).cmp(parseDecimal(string(bn))) == 0)
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !equal(a[i], ba[i], work) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !equal(av, bv, work) {
				return false
			}
		}
		return true
	}
	return false
}

// canonical writes v so that equal values (equal above) write the same text.
func canonical(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number:
		parseDecimal(string(v)).canonical(b)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			canonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonical(b, v[k])
		}
		b.WriteByte('}')
	}
}

// maxShown bounds a value quoted in a message.
const maxShown = 40

// show renders v as short JSON for a message: long values are cut with "…".
func show(v any) string {
	var b []byte
	switch v := v.(type) {
	case string:
		return quote(v)
	case json.Number:
		b = []byte(v)
	default:
		b, _ = json.Marshal(v)
	}
	return cut(string(b))
}

// quote renders a string for a message, cut when long.
func quote(s string) string {
	if len(s) > maxShown {
		s = cut(s)
	}
	return strconv.Quote(s)
}

// name renders a property name for a message: 'name', as the earlier messages did.
func name(s string) string {
	q := strconv.Quote(cut(s))
	return "'" + q[1:len(q)-1] + "'"
}

// quoteLong is quote for values a person needs whole (a URI), up to 200 bytes.
func quoteLong(s string) string {
	if len(s) > 200 {
		s = cutAt(s, 200)
	}
	return strconv.Quote(s)
}

func cut(s string) string { return cutAt(s, maxShown) }

func cutAt(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	i := limit
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escapeToken writes a JSON Pointer reference token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
