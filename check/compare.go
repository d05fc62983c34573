package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"tickmux/host"
)

// catalogDiff compares two catalogs the way spec 5.5 defines a change: a tool's name,
// description, input_schema or mutates. Tools are a set keyed by name (their order is free) and
// schemas are JSON values (key order, whitespace and number spelling are free). It returns what
// differs, "" when nothing does.
func catalogDiff(a, b *host.Catalog) string {
	ta, tb := a.Descriptor.Tools, b.Descriptor.Tools
	var diffs []string
	for _, x := range ta {
		y := b.Tool(x.Name)
		switch {
		case y == nil:
			diffs = append(diffs, fmt.Sprintf("tool %q went away", x.Name))
		case x.Description != y.Description:
			diffs = append(diffs, fmt.Sprintf("tool %q has another description", x.Name))
		case x.Mutates != y.Mutates:
			diffs = append(diffs, fmt.Sprintf("tool %q changed mutates to %v", x.Name, y.Mutates))
		case !jsonEqual(x.InputSchema, y.InputSchema):
			diffs = append(diffs, fmt.Sprintf("tool %q has another input_schema", x.Name))
		}
	}
	for _, y := range tb {
		if a.Tool(y.Name) == nil {
			diffs = append(diffs, fmt.Sprintf("tool %q appeared", y.Name))
		}
	}
	return strings.Join(diffs, "; ")
}

// jsonEqual reports whether two JSON texts denote the same value: objects compared as sets of
// members, numbers by their exact value (1e2 equals 100.0), strings after unescaping.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, ok1 := decodeJSON(a)
	vb, ok2 := decodeJSON(b)
	return ok1 && ok2 && sameValue(va, vb)
}

func decodeJSON(raw json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	return v, d.Decode(&v) == nil
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !sameValue(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, sameValue)
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if hugeExponent(x) || hugeExponent(y) {
			return false // spelled differently and too far out to compare cheaply
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	default: // string, bool, nil
		return a == b
	}
}

// hugeExponent reports a number whose exponent would make an exact comparison costly.
func hugeExponent(n json.Number) bool {
	i := strings.IndexAny(string(n), "eE")
	return i >= 0 && len(strings.TrimLeft(string(n[i+1:]), "+-0")) > 3
}
