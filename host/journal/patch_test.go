package journal

import (
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// jsonValue draws a small JSON document: objects, arrays, numbers, strings, booleans, null.
func jsonValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kind := rapid.IntRange(0, 6).Draw(t, "kind")
		if depth <= 0 {
			kind %= 4
		}
		switch kind {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "b")
		case 2:
			return json.Number(rapid.SampledFrom([]string{"0", "1", "5", "-2", "1.5", "1e3"}).Draw(t, "n"))
		case 3:
			return rapid.SampledFrom([]string{"", "a", "~", "/", "a/b~c", "é"}).Draw(t, "s")
		case 4, 5:
			m := map[string]any{}
			for _, k := range rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", "~0", "x/y", ""}), 0, 4).Draw(t, "keys") {
				m[k] = jsonValue(depth-1).Draw(t, "v")
			}
			return m
		default:
			return rapid.SliceOfN(jsonValue(depth-1), 0, 5).Draw(t, "arr")
		}
	})
}

// mutate draws a document near v, so diffs are small as well as large.
func mutate(t *rapid.T, v any, depth int) any {
	if rapid.IntRange(0, 5).Draw(t, "fresh") == 0 {
		return jsonValue(depth).Draw(t, "fresh value")
	}
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			if rapid.IntRange(0, 4).Draw(t, "drop") > 0 {
				m[k] = mutate(t, e, depth-1)
			}
		}
		if rapid.Bool().Draw(t, "add key") {
			m[rapid.SampledFrom([]string{"a", "new", "~1"}).Draw(t, "k")] = jsonValue(depth-1).Draw(t, "nv")
		}
		return m
	case []any:
		var a []any
		for _, e := range x {
			if rapid.IntRange(0, 4).Draw(t, "drop") > 0 {
				a = append(a, mutate(t, e, depth-1))
			}
		}
		for range rapid.IntRange(0, 3).Draw(t, "appends") {
			a = append(a, jsonValue(depth-1).Draw(t, "elem"))
		}
		if a == nil {
			a = []any{}
		}
		return a
	}
	return v
}

func canon(t *rapid.T, raw json.RawMessage) any {
	v, err := decode(raw)
	if err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// Applying Diff(before, after) to before gives after, for any two documents.
func TestDiffApplyProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		a := jsonValue(3).Draw(t, "before")
		b := mutate(t, a, 3)
		before, after := enc(a), enc(b)
		p, err := Diff(before, after)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Apply(before, p)
		if err != nil {
			t.Fatalf("apply %s to %s: %v", enc(p), before, err)
		}
		if !reflect.DeepEqual(canon(t, got), canon(t, after)) {
			t.Fatalf("apply(%s, %s) = %s, want %s", before, enc(p), got, after)
		}
		if reflect.DeepEqual(canon(t, before), canon(t, after)) != (len(p) == 0) {
			t.Fatalf("equal documents must give an empty patch and only they: %s -> %s: %s", before, after, enc(p))
		}
	})
}

func TestDiffShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ before, after, want string }{
		{`{"value":0,"recent":[]}`, `{"value":5,"recent":[{"v":5}]}`,
			`[{"op":"add","path":"/recent/0","value":{"v":5}},{"op":"replace","path":"/value","value":5,"old":0}]`},
		{`[1,2,3]`, `[1]`, `[{"op":"remove","path":"/2","old":3},{"op":"remove","path":"/1","old":2}]`},
		{`{"a/b":1,"~":2}`, `{"a/b":1}`, `[{"op":"remove","path":"/~0","old":2}]`},
		{`1`, `"x"`, `[{"op":"replace","path":"","value":"x","old":1}]`},
		{`{"n":1.0}`, `{"n":1.0}`, `[]`},
	} {
		p, err := Diff(json.RawMessage(c.before), json.RawMessage(c.after))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(enc(p)); got != c.want {
			t.Errorf("Diff(%s, %s) = %s, want %s", c.before, c.after, got, c.want)
		}
	}
}
