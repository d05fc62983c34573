package tick

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"tickmux/tick/wire"
)

func TestParseRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		ok      bool
		id      uint64
		method  string
		params  string
		invalid bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tick/read","params":{}}`, true, 1, "tick/read", `{}`, false},
		{`{"jsonrpc":"2.0","id":0,"method":"tick/read"}`, true, 0, "tick/read", ``, false},
		{`{"jsonrpc":"2.0","id":2,"method":"tick/read","params":null}`, true, 2, "tick/read", ``, false},
		{` {"params":{"a":1},"method":"x","id":3,"jsonrpc":"2.0"} ` + "\r", true, 3, "x", `{"a":1}`, false},
		{`{"jsonrpc":"2.0","id":9007199254740991,"method":"m"}`, true, 1<<53 - 1, "m", ``, false},
		{`{"jsonrpc":"2.0","ID":1,"method":"m"}`, false, 0, "", "", false}, // members match exactly
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"m"}`, false, 0, "", "", false},
		{`{"jsonrpc":"2.0","id":1.0,"method":"m"}`, false, 0, "", "", false},
		{`{"jsonrpc":"2.0","id":"1","method":"m"}`, false, 0, "", "", false},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, false, 0, "", "", false},
		{`{"jsonrpc":"2.0","method":"m"}`, false, 0, "", "", false},
		{`[]`, false, 0, "", "", false},
		{`{`, false, 0, "", "", false},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`, true, 1, "m", ``, true},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, true, 1, "", ``, true},
		{`{"jsonrpc":"2.0","id":1}`, true, 1, "", ``, true},
		{`{"jsonrpc":2,"id":1,"method":"m"}`, true, 1, "", ``, true},
		{`{"id":1,"method":"m"}`, true, 1, "", ``, true},
	}
	for _, tt := range tests {
		req, ok := parseRequest([]byte(tt.line))
		if ok != tt.ok {
			t.Errorf("%s: ok=%v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if req.id != tt.id || (req.invalid != "") != tt.invalid {
			t.Errorf("%s: got id %d invalid %q", tt.line, req.id, req.invalid)
		}
		if !tt.invalid && (req.method != tt.method || string(req.params) != tt.params) {
			t.Errorf("%s: got method %q params %s", tt.line, req.method, req.params)
		}
	}
}

func TestParseCallParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params     string
		revisionOK bool
		err        bool
		args       string
	}{
		{`{"tool":"a","args":{"x":1},"revision":"r"}`, true, false, `{"x":1}`},
		{`{"tool":"a","revision":"r"}`, true, false, `{}`},
		{`{"tool":"a","args":null,"revision":"r"}`, true, false, `{}`},
		{`{"tool":"a","args":[],"revision":"r"}`, true, true, ``},
		{`{"tool":"a","args":"x","revision":"r"}`, true, true, ``},
		{`{"args":{},"revision":"r"}`, true, true, ``},
		{`{"tool":1,"revision":"r"}`, true, true, ``},
		{`{"tool":"a","revision":1}`, false, false, `{}`},
		{`{"tool":"a"}`, false, false, `{}`},
		{`{}`, false, true, ``},
	}
	for _, tt := range tests {
		c, err := parseCallParams(json.RawMessage(tt.params))
		if c.revisionOK != tt.revisionOK || (err != nil) != tt.err {
			t.Errorf("%s: revisionOK %v err %v", tt.params, c.revisionOK, err)
		}
		if err == nil && string(c.args) != tt.args {
			t.Errorf("%s: args %s, want %s", tt.params, c.args, tt.args)
		}
	}
}

// FuzzParseRequest: any line either is dropped or yields an id of the protocol's range and, when
// servable, params that are absent or an object; and the checks never panic.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tick/read","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tick/call","params":{"tool":"t","args":{"a":[1,{"b":null}]},"revision":"r"}}`,
		`{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`,
		`{"id":01,"method":"m"}`, "\x00", `{"a":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, ok := parseRequest(line)
		if !ok {
			return
		}
		if req.id > wire.MaxSafeInteger {
			t.Fatalf("id %d out of range", req.id)
		}
		if !json.Valid(line) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		if req.invalid != "" {
			return
		}
		if req.params != nil && req.params[0] != '{' {
			t.Fatalf("params %s not an object", req.params)
		}
		if req.method == wire.MethodCall {
			c, err := parseCallParams(req.params)
			if err == nil && (len(c.args) == 0 || c.args[0] != '{') {
				t.Fatalf("args %s not an object", c.args)
			}
		}
	})
}

func TestReadLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		limit int
		want  []string
	}{
		{"lines", "a\nbb\n\nccc\n", 10, []string{"a", "bb", "ccc"}},
		{"last line without newline", "a\nb", 10, []string{"a", "b"}},
		{"over the limit is skipped whole", "ok\n" + strings.Repeat("x", 11) + "\nnext\n", 10, []string{"ok", "next"}},
		{"exactly the limit", strings.Repeat("y", 10) + "\n", 10, []string{strings.Repeat("y", 10)}},
		{"long line across buffer refills", strings.Repeat("z", 200<<10) + "\nend\n", 300 << 10, []string{strings.Repeat("z", 200<<10), "end"}},
		{"long skipped line across refills", strings.Repeat("z", 200<<10) + "\nend\n", 100 << 10, []string{"end"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			r := iotest.HalfReader(strings.NewReader(tt.in)) // short reads, as a pipe gives
			err := readLines(r, tt.limit, func(l []byte) { got = append(got, string(l)) })
			if err != io.EOF {
				t.Fatalf("err %v, want io.EOF", err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %d lines %.80q, want %.80q", len(got), got, tt.want)
			}
		})
	}
}

// FuzzReadLines: lines within the limit come out exactly as bytes.Split would cut them.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nb\n"), 4)
	f.Add([]byte("\n\n\nxxxxxxxxx\n"), 3)
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		if limit < 1 || limit > 1<<16 {
			return
		}
		var want [][]byte
		for _, l := range bytes.Split(in, []byte("\n")) {
			if len(l) > 0 && len(l) <= limit {
				want = append(want, l)
			}
		}
		var got [][]byte
		_ = readLines(iotest.OneByteReader(bytes.NewReader(in)), limit, func(l []byte) { got = append(got, l) })
		if len(got) != len(want) {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}
