package trim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"tickmux/tick/wire"
)

// Runes that stress the encoding: escapes, control characters, HTML characters (never escaped
// here), pointer specials, multibyte UTF-8 and the two separators encoding/json escapes.
var testRunes = []rune{'a', 'b', 'z', ' ', '0', '"', '\\', '\n', '\t', '\b', '\x01', '\x1f', '\x7f',
	'<', '>', '&', '/', '~', 'é', 'ß', '中', '文', '😀', '\u2028', '\u2029', '\ufffd'}

var genString = rapid.OneOf(
	rapid.StringOfN(rapid.SampledFrom(testRunes), 0, 12, -1),
	rapid.StringOfN(rapid.SampledFrom(testRunes), 0, 80, -1),
)

var genNumber = rapid.OneOf(
	rapid.Map(rapid.Int64(), func(i int64) string { return strconv.FormatInt(i, 10) }),
	rapid.SampledFrom([]string{"0", "-0", "1.0", "-0.000", "1e3", "1E+30", "2.5e-7",
		"12345678901234567890123", "3.141592653589793238462643383279", "9007199254740993"}),
)

// genValue draws a JSON value nested at most depth deep, with unique keys in each object.
func genValue(depth int) *rapid.Generator[*jv] {
	return rapid.Custom(func(t *rapid.T) *jv {
		kinds := []string{"string", "number", "literal"}
		if depth > 0 {
			kinds = append(kinds, "array", "array", "object", "object")
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case "string":
			return &jv{kind: 's', str: genString.Draw(t, "str")}
		case "number":
			return &jv{kind: 'l', lit: genNumber.Draw(t, "num")}
		case "literal":
			return &jv{kind: 'l', lit: rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "lit")}
		case "array":
			return &jv{kind: 'a', kids: rapid.SliceOfN(genValue(depth-1), 0, 12).Draw(t, "elems")}
		}
		keys := rapid.SliceOfNDistinct(genString, 0, 8, rapid.ID[string]).Draw(t, "keys")
		v := &jv{kind: 'o', keys: keys}
		for range keys {
			v.kids = append(v.kids, genValue(depth-1).Draw(t, "member"))
		}
		return v
	})
}

// arrays lists the paths of the non-empty arrays in v.
func arrays(v *jv, path []step, out *[][]step) {
	if v.kind == 'a' && len(v.kids) > 0 {
		*out = append(*out, path)
	}
	for i, k := range v.kids {
		s := step{i: i}
		if v.kind == 'o' {
			s.key = &v.keys[i]
		}
		arrays(k, append(path[:len(path):len(path)], s), out)
	}
}

// genSeries draws up to three declarations naming distinct real arrays of v.
func genSeries(t *rapid.T, v *jv) []modelSeries {
	var all [][]step
	arrays(v, nil, &all)
	if len(all) == 0 {
		return nil
	}
	var out []modelSeries
	seen := map[int]bool{}
	for range rapid.IntRange(0, 3).Draw(t, "nseries") {
		i := rapid.IntRange(0, len(all)-1).Draw(t, "series")
		if seen[i] {
			continue
		}
		seen[i] = true
		newest := rapid.SampledFrom([]string{wire.NewestFirst, wire.NewestLast}).Draw(t, "newest")
		out = append(out, modelSeries{path: all[i], newest: newest})
	}
	return out
}

func decls(series []modelSeries) []wire.Series {
	var out []wire.Series
	for _, s := range series {
		out = append(out, s.decl())
	}
	return out
}

// spec: H-SUB2
// Data is never over budget, always valid JSON, reports every cut exactly, leaves data that fits
// alone, and keeps the newest element of every series whose skeleton fits.
func TestDataProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		orig := genValue(3).Draw(t, "data")
		in := orig.json()
		series := genSeries(t, orig)
		// Declarations that name nothing, or something else, are ignored.
		bogus := rapid.SliceOfN(rapid.SampledFrom([]wire.Series{{Path: "/nope", Newest: "last"},
			{Path: "x", Newest: "first"}, {Path: "", Newest: "middle"}, {Path: "/0/~2", Newest: "last"}}), 0, 2).Draw(t, "bogus")
		// Half the time the budget leaves room for the series' skeletons, so that the protection
		// of their newest elements is put to the test.
		lo := 0
		if len(series) > 0 && rapid.Bool().Draw(t, "aim") {
			lo = min(skeleton(orig, series), len(in))
		}
		budget := rapid.IntRange(lo, len(in)+8).Draw(t, "budget")

		out, report := Data(in, append(decls(series), bogus...), budget)

		if !json.Valid(out) {
			t.Fatalf("invalid JSON: %s", out)
		}
		if len(out) > budget && !(budget < 4 && string(out) == "null") {
			t.Fatalf("%d bytes over budget %d: %s", len(out), budget, out)
		}
		if len(in) <= budget {
			if !bytes.Equal(out, in) || report != nil {
				t.Fatalf("data that fits changed:\n in %s\nout %s\n%v", in, out, report)
			}
		}
		got, err := decodeModel(out)
		if err != nil {
			t.Fatal(err)
		}
		e, err := explain(orig, got, report)
		if err != nil {
			t.Fatalf("%v\n in %s\nout %s\nreport %+v", err, in, out, report)
		}
		// The first series is protected whenever its own skeleton fits; all of them when their
		// skeletons fit together.
		for i := range series {
			alone := i == 0 && skeleton(orig, series[:1]) <= budget
			if alone || skeleton(orig, series) <= budget {
				if err := e.newestIntact(orig, series[i]); err != nil {
					t.Fatalf("%v\n in %s\nout %s\nreport %+v", err, in, out, report)
				}
			}
		}
		// Whitespace in the input changes nothing.
		var indented bytes.Buffer
		if err := json.Indent(&indented, in, "", "\t"); err != nil {
			t.Fatal(err)
		}
		out2, report2 := Data(indented.Bytes(), append(decls(series), bogus...), budget)
		if !bytes.Equal(out, out2) || fmt.Sprint(report) != fmt.Sprint(report2) {
			t.Fatalf("indentation changed the trim:\n%s\n%s", out, out2)
		}
		// A trim is a fixed point: its output fits and comes back unchanged.
		if len(out) <= budget {
			if again, r := Data(out, decls(series), budget); !bytes.Equal(again, out) || r != nil {
				t.Fatalf("trimming the output again changed it:\n%s\n%s", out, again)
			}
		}
	})
}

// The canonical encoding is encoding/json's with HTML escaping off, for any string, valid UTF-8
// or not.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(genString, rapid.String(), rapid.Map(rapid.SliceOf(rapid.Byte()),
			func(b []byte) string { return string(b) })).Draw(t, "s")
		if got, want := appendString(nil, s), stdString(s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json says %s", s, got, want)
		}
	})
}

// genEntries draws a delivery: entries whose data are series of drawn values, some big.
func genEntries(t *rapid.T) ([]Entry, []*jv, [][]modelSeries) {
	n := rapid.IntRange(1, 8).Draw(t, "entries")
	var entries []Entry
	var origs []*jv
	var series [][]modelSeries
	for i := range n {
		elem := genValue(2).Draw(t, "elem")
		rep := rapid.IntRange(0, 300).Draw(t, "rep")
		recent := &jv{kind: 'a'}
		for range rep {
			recent.kids = append(recent.kids, elem)
		}
		note := &jv{kind: 's', str: genString.Draw(t, "note")}
		key := "recent"
		v := &jv{kind: 'o', keys: []string{"status", key, "note"}, kids: []*jv{
			{kind: 'l', lit: strconv.Itoa(i)}, recent, note}}
		var ss []modelSeries
		if rapid.Bool().Draw(t, "declared") && rep > 0 {
			ss = []modelSeries{{path: []step{{key: &key}}, newest: wire.NewestLast}}
		}
		entries = append(entries, Entry{
			ID:          "hosted:" + strconv.Itoa(i+1),
			Seq:         rapid.Uint64Range(1, wire.MaxSafeInteger).Draw(t, "seq"),
			At:          "2026-11-30T09:00:00Z",
			Data:        v.json(),
			Merged:      rapid.Uint64Range(0, 1000).Draw(t, "merged"),
			RecoverWith: rapid.SampledFrom([]string{"", "history"}).Draw(t, "recover"),
			Series:      decls(ss),
		})
		origs = append(origs, v)
		series = append(series, ss)
	}
	return entries, origs, series
}

func entrySize(t interface{ Fatal(...any) }, e Entry) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		t.Fatal(err)
	}
	return b.Len() - 1
}

// spec: H-SUB2
// Fit keeps every entry within its budget and the delivery within 16 KiB, leaves entries that fit
// their even share untouched, and reports every cut.
func TestFitProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		entries, origs, _ := genEntries(t)
		in := make([]Entry, len(entries))
		copy(in, entries)
		out := Fit(entries)

		if len(out) != len(in) {
			t.Fatalf("%d entries became %d", len(in), len(out))
		}
		limit, even := TotalBudget, TotalBudget
		if len(in) > 1 {
			limit, even = EntryBudget, min(EntryBudget, TotalBudget/len(in))
		}
		sum, fits := 0, true
		for i := range in {
			size := entrySize(t, in[i])
			sum += size
			fits = fits && size <= limit
		}
		fits = fits && sum <= TotalBudget
		total := 0
		for i, e := range out {
			size := entrySize(t, e)
			total += size
			if size > limit {
				t.Fatalf("entry %d: %d bytes, over %d", i, size, limit)
			}
			if inSize := entrySize(t, in[i]); inSize <= even || fits {
				if !bytes.Equal(e.Data, in[i].Data) || e.Trimmed != nil {
					t.Fatalf("entry %d of %d bytes was trimmed", i, inSize)
				}
			}
			if !json.Valid(e.Data) {
				t.Fatalf("entry %d: invalid data %s", i, e.Data)
			}
			got, err := decodeModel(e.Data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := explain(origs[i], got, e.Trimmed); err != nil {
				t.Fatalf("entry %d: %v\n%s\n%+v", i, err, e.Data, e.Trimmed)
			}
			if e.ID != in[i].ID || e.Seq != in[i].Seq || e.At != in[i].At || e.Merged != in[i].Merged || e.RecoverWith != in[i].RecoverWith {
				t.Fatalf("entry %d: fields other than data changed", i)
			}
		}
		if total > TotalBudget {
			t.Fatalf("delivery of %d bytes, over %d", total, TotalBudget)
		}
		for i := range in {
			if !bytes.Equal(entries[i].Data, in[i].Data) {
				t.Fatal("Fit changed its input")
			}
		}
	})
}

// Fit's own measure of an entry is what encoding/json writes, whatever the data's whitespace.
func TestSizeOfMatchesEncoder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(3).Draw(t, "data")
		var data bytes.Buffer
		if err := json.Indent(&data, v.json(), rapid.SampledFrom([]string{"", " "}).Draw(t, "prefix"), "\t"); err != nil {
			t.Fatal(err)
		}
		e := Entry{ID: genString.Draw(t, "id"), At: genString.Draw(t, "at"), Data: data.Bytes(),
			RecoverWith: genString.Draw(t, "recover"), Trimmed: []Dropped{{Pointer: genString.Draw(t, "ptr"), Dropped: 1, What: WhatBytes}}}
		if rapid.Bool().Draw(t, "nil") {
			e.Data = nil
		}
		if got, valid := sizeOf(e); got != entrySize(t, e) || !valid {
			t.Fatalf("sizeOf = %d (valid %v), encoding/json writes %d", got, valid, entrySize(t, e))
		}
	})
}
