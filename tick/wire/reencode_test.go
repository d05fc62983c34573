package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// EncodedLen counts the host's re-encoding: compact, UTF-8, the fewest escapes, numbers as
// written. The reference is encoding/json's own re-encoding without HTML escaping, less the
// escapes it adds to U+2028 and U+2029.
//
// spec: 2.3
// spec: 3.5
func TestEncodedLen(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{}`, `"plain"`, ` [ 1 , 2 ,"a b" ] `,
		`"\u4e2d\u6587 caf\u00e9"`, `"\/\"\\\b\f\n\r\t"`, `"\u0022\u005c\u000a\u0001\u001F\u007f"`,
		`"\ud83d\ude00 \ud800 \udc00 \ud800\u0041"`, `"\u2028\u2029 <>&"`, `{"k\u00e9":"\u00e9"}`,
		`{"a": [true, false, null, {"b": "x"}]}`,
	} {
		want := reference(t, raw)
		if got := EncodedLen([]byte(raw)); got != want {
			t.Errorf("EncodedLen(%s) = %d, want %d", raw, got, want)
		}
	}
	// Python's json.dumps: 300 KiB of CJK written as 600 KiB of \u escapes is 300 KiB.
	var b strings.Builder
	b.WriteByte('"')
	for range 100 << 10 {
		b.WriteString(`\u4e2d`)
	}
	b.WriteByte('"')
	if got := EncodedLen([]byte(b.String())); got != 300<<10+2 {
		t.Errorf("300 KiB of escaped CJK counts %d bytes", got)
	}
}

func reference(t *testing.T, raw string) int {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return len(out) - 3*(bytes.Count(out, []byte(`\u2028`))+bytes.Count(out, []byte(`\u2029`)))
}

// Clean prints what a Tick wrote as clean JSON: the fewest escapes, numbers exact and plain.
//
// spec: 2.3
func TestClean(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{ "\u0070ul\u0073es" : 5000E-1 }`:                                 `{"pulses":500}`,
		`[0.3e1, -0, -0.0e5, 1.50, 100, 1e2]`:                              `[3,-0,-0,1.5,100,100]`,
		`[1e15, 1e21, 1E400, 12.5e-8, 0.000001, 1e-7, -2.5E+3]`:            `[1000000000000000,1e+21,1e+400,1.25e-7,0.000001,1e-7,-2500]`,
		`[123456789012345678901234567890, 0.1000000000000000000000000001]`: `[123456789012345678901234567890,0.1000000000000000000000000001]`,
		`"\ud83d\ude00\ud800\/\u0001\n\u000a\"\\ <&> \u2028"`:              "\"\U0001F600\uFFFD/\\u0001\\n\\n\\\"\\\\ <&> \u2028\"",
		`{"a":[true,false,null,{}]}`:                                       `{"a":[true,false,null,{}]}`,
	} {
		got, err := Clean([]byte(raw))
		if err != nil || string(got) != want {
			t.Errorf("Clean(%s) = %s, %v; want %s", raw, got, err, want)
		}
		if !json.Valid(got) {
			t.Errorf("Clean(%s) is not valid JSON: %s", raw, got)
		}
	}
	if _, err := Clean([]byte(`{"a":`)); err == nil {
		t.Error("Clean accepted invalid JSON")
	}
}

func FuzzClean(f *testing.F) {
	f.Add([]byte(`{"a":[1.5e3,"\u00e9\ud83d\ude00"]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := Clean(raw)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Clean(%q) = %q, not valid JSON", raw, out)
		}
		var a, b any
		json.Unmarshal(raw, &a)
		json.Unmarshal(out, &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("Clean(%q) = %q changes the value", raw, out)
		}
	})
}

// BenchmarkEncodedLen: a 1 KiB state without escapes (the hot path: length less whitespace) and
// 300 KiB of CJK written as 600 KiB of \u escapes (every escape decoded and counted).
func BenchmarkEncodedLen(b *testing.B) {
	plain := []byte(`{"recent":[` + strings.Repeat(`{"t":"2026-11-30T09:00:00Z","price":1234.5678,"qty":42},`, 17) + `{}]}`)
	escaped := []byte(`"` + strings.Repeat(`\u4e2d`, 100<<10) + `"`)
	for _, c := range []struct {
		name string
		raw  []byte
	}{{"plain-1KiB", plain}, {"escaped-600KiB", escaped}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			for b.Loop() {
				EncodedLen(c.raw)
			}
		})
	}
}
