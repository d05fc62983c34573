package trim

import (
	"bytes"
	"encoding/json"
	"testing"

	"tickmux/tick/wire"
)

// spec: H-SUB2
// FuzzData feeds Data anything: it must not panic, must return valid JSON within budget, must
// report exactly what it cut, and its output must be a fixed point.
func FuzzData(f *testing.F) {
	f.Add([]byte(`{"status":"ok","recent":[1,2,3,4,5,6,7,8,9,10]}`), 30, "/recent", false)
	f.Add([]byte(`[{"log":["a","b"]},{"log":["c","d","e"]}]`), 20, "/1/log", true)
	f.Add([]byte(`{"a/b~c":"héllo 中文 \u2028 \ud83d\ude00","n":1.0e+300}`), 25, "/a~1b~0c", false)
	f.Add([]byte(`"\xff\xfe"`), 3, "", false)
	f.Add([]byte(`{"a":1,"a":[1,2,3]}`), 9, "/a", false)
	f.Add([]byte(`[[[[[[[[[[1]]]]]]]]]]`), 7, "/0/0", true)
	f.Fuzz(func(t *testing.T, data []byte, budget int, path string, newestFirst bool) {
		budget = max(-5, min(budget, len(data)+16))
		newest := wire.NewestLast
		if newestFirst {
			newest = wire.NewestFirst
		}
		series := []wire.Series{{Path: path, Newest: newest}}
		out, report := Data(data, series, budget)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q", out)
		}
		if len(out) > budget && !(budget < 4 && string(out) == "null") {
			t.Fatalf("%d bytes over budget %d", len(out), budget)
		}
		if len(out) <= budget {
			if again, r := Data(out, series, budget); !bytes.Equal(again, out) || r != nil {
				t.Fatalf("not a fixed point: %s then %s", out, again)
			}
		}
		orig, err := decodeModel(data)
		if err != nil || hasDuplicateKeys(orig) {
			return // pointers into such data are not checked
		}
		got, err := decodeModel(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := explain(orig, got, report); err != nil {
			t.Fatalf("%v\n in %s\nout %s\n%+v", err, data, out, report)
		}
	})
}

func hasDuplicateKeys(v *jv) bool {
	seen := map[string]bool{}
	for _, k := range v.keys {
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	for _, k := range v.kids {
		if hasDuplicateKeys(k) {
			return true
		}
	}
	return false
}
