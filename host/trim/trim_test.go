package trim

import (
	"bytes"
	"encoding/json"
	"testing"

	"tickmux/tick/wire"
)

func last(p string) []wire.Series  { return []wire.Series{{Path: p, Newest: wire.NewestLast}} }
func first(p string) []wire.Series { return []wire.Series{{Path: p, Newest: wire.NewestFirst}} }

// compact writes a pictured JSON value the way the trim does.
func compact(t *testing.T, pictured string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(pictured)); err != nil {
		t.Fatalf("bad picture %s: %v", pictured, err)
	}
	return b.String()
}

func encodeReport(t *testing.T, r []Dropped) string {
	t.Helper()
	if r == nil {
		return "null"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// spec: H-SUB2
func TestData(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		series []wire.Series
		budget int
		want   string // pictured; compacted before comparing
		report string
	}{{
		name:   "data that fits is only re-encoded: numbers as written, members in order",
		data:   `{ "z": 1.50, "a": [1e3, -0, 12345678901234567890], "s": "caf\u00e9 \/ <b>" }`,
		budget: 100,
		want:   `{"z": 1.50, "a": [1e3, -0, 12345678901234567890], "s": "café / <b>"}`,
		report: `null`,
	}, {
		name:   "a series with its newest element last keeps its tail",
		data:   `{"status": "ok", "recent": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}`,
		series: last("/recent"),
		budget: 30,
		want:   `{"status": "ok", "recent": [10]}`,
		report: `[{"pointer": "/recent", "dropped": 9, "what": "elements"}]`,
	}, {
		name:   "a series with its newest element first keeps its head",
		data:   `{"status": "ok", "recent": [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]}`,
		series: first("/recent"),
		budget: 32,
		want:   `{"status": "ok", "recent": [10, 9]}`,
		report: `[{"pointer": "/recent", "dropped": 8, "what": "elements", "from": 2}]`,
	}, {
		name:   "the root itself may be a series",
		data:   `[1, 2, 3, 4, 5, 6, 7, 8, 9]`,
		series: last(""),
		budget: 8,
		want:   `[7, 8, 9]`,
		report: `[{"pointer": "", "dropped": 6, "what": "elements"}]`,
	}, {
		name:   "an undeclared array keeps its head and its tail",
		data:   `{"log": ["a", "b", "c", "d", "e", "f", "g"]}`,
		budget: 25,
		want:   `{"log": ["a", "b", "f", "g"]}`,
		report: `[{"pointer": "/log", "dropped": 3, "what": "elements", "from": 2}]`,
	}, {
		name:   "small members stay whole, the big array gives way",
		data:   `{"n": 1, "m": 22, "big": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]}`,
		budget: 30,
		want:   `{"n": 1, "m": 22, "big": [1, 2, 20]}`,
		report: `[{"pointer": "/big", "dropped": 17, "what": "elements", "from": 2}]`,
	}, {
		name:   "a string is cut between runes and stays valid UTF-8",
		data:   `{"note": "héllo 中文"}`,
		budget: 18,
		want:   `{"note": "héllo "}`,
		report: `[{"pointer": "/note", "dropped": 6, "what": "bytes", "from": 7}]`,
	}, {
		name:   "an escape is never cut in half",
		data:   `{"s": "ab\"\"\"\"\"\""}`,
		budget: 14,
		want:   `{"s": "ab\"\""}`,
		report: `[{"pointer": "/s", "dropped": 4, "what": "bytes", "from": 4}]`,
	}, {
		name:   "the newest element of a series stays whole; the other members pay",
		data:   `{"blob": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "recent": [{"v": "old old old"}, {"v": "new new new"}]}`,
		series: last("/recent"),
		budget: 45,
		want:   `{"blob": "xxx", "recent": [{"v": "new new new"}]}`,
		report: `[{"pointer": "/blob", "dropped": 27, "what": "bytes", "from": 3},
		          {"pointer": "/recent", "dropped": 1, "what": "elements"}]`,
	}, {
		name:   "a series inside an undeclared array keeps its newest element; pointers are to the original",
		data:   `{"panes": [{"log": [1, 2, 3]}, {"log": [4, 5, 6]}, {"log": [7, 8, 9]}]}`,
		series: last("/panes/1/log"),
		budget: 25,
		want:   `{"panes": [{"log": [5, 6]}]}`,
		report: `[{"pointer": "/panes", "dropped": 1, "what": "elements"},
		          {"pointer": "/panes", "dropped": 1, "what": "elements", "from": 2},
		          {"pointer": "/panes/1/log", "dropped": 1, "what": "elements"}]`,
	}, {
		name:   "the biggest members go first",
		data:   `{"id": 7, "ok": true, "raw": 123456789012345678901234567890, "big": 1234567890123456789012345678901234567890}`,
		budget: 30,
		want:   `{"id": 7, "ok": true}`,
		report: `[{"pointer": "", "dropped": 2, "what": "members"}]`,
	}, {
		name:   "pointer tokens escape ~ and /",
		data:   `{"a/b~c": "some text here"}`,
		budget: 20,
		want:   `{"a/b~c": "some tex"}`,
		report: `[{"pointer": "/a~1b~0c", "dropped": 6, "what": "bytes", "from": 8}]`,
	}, {
		name:   "declarations that name no array are ignored",
		data:   `{"s": "abcdef", "a": [1, 2, 3, 4]}`,
		series: []wire.Series{{Path: "/s", Newest: "last"}, {Path: "/a", Newest: "middle"}, {Path: "a", Newest: "last"}},
		budget: 22,
		want:   `{"s": "abc", "a": [1, 4]}`,
		report: `[{"pointer": "/s", "dropped": 3, "what": "bytes", "from": 3},
		          {"pointer": "/a", "dropped": 2, "what": "elements", "from": 1}]`,
	}, {
		name:   "an object shrinks to {} at worst",
		data:   `{"a": [1, 2]}`,
		budget: 3,
		want:   `{}`,
		report: `[{"pointer": "", "dropped": 1, "what": "members"}]`,
	}, {
		name:   "a number that cannot fit becomes null",
		data:   `123456789012`,
		budget: 10,
		want:   `null`,
		report: `[{"pointer": "", "dropped": 1, "what": "value"}]`,
	}, {
		name:   "data that is not JSON becomes null",
		data:   `{"a":`,
		budget: 100,
		want:   `null`,
		report: `[{"pointer": "", "dropped": 1, "what": "value"}]`,
	}, {
		name:   "empty data stands for null",
		data:   ``,
		budget: 100,
		want:   `null`,
		report: `null`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, report := Data(json.RawMessage(tt.data), tt.series, tt.budget)
			if want := compact(t, tt.want); string(got) != want {
				t.Errorf("data\n got %s\nwant %s", got, want)
			}
			if got, want := encodeReport(t, report), compact(t, tt.report); got != want {
				t.Errorf("report\n got %s\nwant %s", got, want)
			}
			if string(got) != "null" && len(got) > tt.budget {
				t.Errorf("%d bytes over budget %d", len(got), tt.budget)
			}
		})
	}
}

// Strings come out as encoding/json writes them without HTML escaping, whatever the input's
// escapes; invalid UTF-8 becomes U+FFFD.
func TestDataReencodesStrings(t *testing.T) {
	in := "[\"\\u0041\\u00e9\\u4e2d\\ud83d\\ude00\", \"\\/\\b\\f\\n\\r\\t\\u0001\\u007f\", \"\u2028\", \"<&>\", \"\xff\"]"
	want := "[\"Aé中😀\",\"/\\b\\f\\n\\r\\t\\u0001\x7f\",\"\\u2028\",\"<&>\",\"\ufffd\"]"
	if got, _ := Data(json.RawMessage(in), nil, 1000); string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
