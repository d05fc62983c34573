package host

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"tickmux/tick/wire"
)

// The scanner must agree with encoding/json (plus UTF-8 validity) on what is valid, and find the
// same member values a case-sensitive decode finds.
func checkScanAgainstStdlib(t *testing.T, line []byte) {
	t.Helper()
	sc, err := scanLine(line)
	valid := json.Valid(line) && utf8.Valid(line)
	if bytes.Count(line, []byte("["))+bytes.Count(line, []byte("{")) > maxDepth {
		return // beyond the depth limit the two may differ; both refuse by then
	}
	if (err == nil || err == errNotObject) != valid {
		t.Fatalf("scanLine(%q) error %v, stdlib valid %v", line, err, valid)
	}
	if err != nil {
		return
	}
	var m map[string]json.RawMessage
	if e := json.Unmarshal(line, &m); e != nil {
		t.Fatalf("stdlib cannot decode %q as an object: %v", line, e)
	}
	for name, sp := range map[string]span{"jsonrpc": sc.jsonrpc, "id": sc.id, "method": sc.method, "params": sc.params, "result": sc.result, "error": sc.errv} {
		want, ok := m[name]
		if ok != sp.set {
			t.Fatalf("%q: member %s present %v, scanner %v", line, name, ok, sp.set)
		}
		if !ok {
			continue
		}
		var a, b bytes.Buffer
		json.Compact(&a, want)
		json.Compact(&b, sp.bytes(line))
		if a.String() != b.String() {
			t.Fatalf("%q: member %s is %s, scanner found %s", line, name, a.String(), b.String())
		}
		if n := wire.EncodedLen(a.Bytes()); sp.compactLen() != n { // spec: 2.3
			t.Fatalf("%q: member %s re-encodes to %d bytes, scanner says %d", line, name, n, sp.compactLen())
		}
	}
}

func TestScanLineAgreesWithStdlib(t *testing.T) {
	t.Parallel()
	for _, c := range classifyCases {
		checkScanAgainstStdlib(t, []byte(c.line))
	}
	for _, line := range []string{
		` { "jsonrpc" : "2.0" , "id" : 1 , "result" : { "a" : [ 1 , 2 ] } } `,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":null}`,
		`{"\u006a\u0073onrpc":"2.0","method":"m"}`,
		`{"JSONRPC":"2.0","Method":"m"}`,
		`{"a":"\ud83d\ude00","b":-0.0e+10,"c":[true,false,null,{}],"d":"\\\"\/\b\f\n\r\t"}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":"\x"}`, `{"a":"\u12"}`,
		`{"a":tru}`, `{"a":[1,]}`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":1}x`, "{\"a\":\"\t\"}",
		`[1,2]`, `"x"`, `12`, ``, `   `, `{"a":` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `}`,
		`{"a":` + strings.Repeat(`{"b":[`, 70) + `1` + strings.Repeat(`]}`, 70) + `}`, // past skip's first stack
		`{"a":` + strings.Repeat(`{"b":[`, 70) + `1` + strings.Repeat(`]}`, 69) + `]}`,
		`{"a":[{"b":1,}]}`, `{"a":[{"b"}]}`, `{"a":[{"b":1]}`, `{"a":{"b":[1}}`, `{"a":[1 2]}`, `{"a":{"b":1 "c":2}}`, `{"a":[`, `{"a":{`, `{"a":{"b":`,
	} {
		checkScanAgainstStdlib(t, []byte(line))
	}
}

func FuzzScanLine(f *testing.F) {
	for _, c := range classifyCases {
		if len(c.line) < 4096 {
			f.Add([]byte(c.line))
		}
	}
	f.Add([]byte(` {"jsonrpc" :"2.0", "params":{ "seq" : 1 , "data" : [ 1 ] } }`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkScanAgainstStdlib(t, line)
	})
}

func TestScanStateCompactsData(t *testing.T) {
	t.Parallel()
	m, err := classify([]byte(`{"jsonrpc":"2.0","method":"tick/update","params":{ "seq" : 4 , "data" : { "a" : [ 1, "x y" ] } , "at":"2026-11-30T00:00:00Z"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.update.Data) != `{"a":[1,"x y"]}` || m.update.Seq != 4 || string(m.at) != `"2026-11-30T00:00:00Z"` {
		t.Fatalf("update %+v data %s", m.update, m.update.Data)
	}
}

// Long strings are scanned 8 bytes at a time: every kind of byte that ends a plain run, at every
// offset in and around a word, must still be judged exactly as the standard library judges it.
func TestScanLongStringsAgreeWithStdlib(t *testing.T) {
	t.Parallel()
	specials := []string{`"`, `\"`, `\\`, `\u00e9`, `\x`, "\x00", "\x01", "\x1f", "\x7f", "\x80", "é", "😀", "\xf0\x9f", " "}
	for _, sp := range specials {
		for before := 0; before <= 40; before++ {
			for _, after := range []int{0, 1, 7, 8, 9, 30} {
				line := `{"jsonrpc":"2.0","method":"m","params":{"s":"` + strings.Repeat("a", before) + sp + strings.Repeat("b", after) + `"}}`
				checkScanAgainstStdlib(t, []byte(line))
				checkScanAgainstStdlib(t, []byte(line[:len(line)-3])) // unterminated
			}
		}
	}
	// Past the first 16 bytes a run is searched a window (plainWindow) at a time: the same
	// specials just before, at and after a window's edge, and a string with escapes all along.
	for _, sp := range specials {
		for _, before := range []int{plainWindow - 2, plainWindow + 14, plainWindow + 15, plainWindow + 16, plainWindow + 17, plainWindow + 23, 2*plainWindow + 16} {
			line := `{"a":"` + strings.Repeat("a", before) + sp + `b"}`
			checkScanAgainstStdlib(t, []byte(line))
			checkScanAgainstStdlib(t, []byte(line[:len(line)-2]))
		}
	}
	checkScanAgainstStdlib(t, []byte(`{"a":"`+strings.Repeat(strings.Repeat("q", 20)+`\n`, 100)+`"}`))
	for w := range 256 { // one word with each byte value in each position
		for pos := range 8 {
			word := []byte("abcdefgh")
			word[pos] = byte(w)
			checkScanAgainstStdlib(t, []byte(`{"a":"`+strings.Repeat("z", 17)+string(word)+`xyz"}`))
		}
	}
}

// A tick/update is classified with no allocation: its data stays in the line (the session copies
// the one update a read delivers), its at is checked in place and made a string only for that
// delivery, and member names and the method are not copied out of each line.
func TestClassifyUpdateAllocations(t *testing.T) {
	line := newUpdateStream(1).template
	line = line[:len(line)-1]
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := classify(line); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("classify allocates %.0f times per update, want 0", allocs)
	}
}
