package earlyview_test

import (
	"encoding/json"
	"testing"

	"tickmux/agent"
	"tickmux/server"
	"tickmux/server/earlyview"
)

// earlyTerms are terminals the early start writes its request for (TERM and COLORTERM), some
// of them made to look like the request's own syntax.
var earlyTerms = []struct{ term, colorterm string }{
	{"xterm-256color", ""},
	{"screen.xterm-256color", "truecolor"},
	{"xterm<&>'", "24bit"},
	{"x", "y"},
	{"a,colorterm:b", ""},
	{"t", "c},early:true}"},
}

// The early start's one request is what the server reads, with the server's own types.
func TestAttachRequestIsWhatTheServerReads(t *testing.T) {
	for _, c := range earlyTerms {
		line, ok := earlyview.AttachRequest(c.term, c.colorterm)
		if !ok {
			t.Fatalf("no request for TERM=%q COLORTERM=%q", c.term, c.colorterm)
		}
		if line[len(line)-1] != '\n' {
			t.Fatalf("the request %q is not one line", line)
		}
		var req agent.Request
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatalf("the request %q is not JSON the server reads: %v", line, err)
		}
		var p server.AttachParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Fatalf("the params of %q: %v", line, err)
		}
		if req.ID != 1 || req.Method != server.MethodAttach || p.Term != c.term || p.ColorTerm != c.colorterm || !p.Early || p.Open != nil || p.Dir != "" {
			t.Errorf("the server reads %q as %+v with %+v", line, req, p)
		}
	}
	for _, c := range []struct{ term, colorterm string }{
		{"", ""},
		{`xterm"`, ""},
		{`xterm\`, ""},
		{"xterm\n", ""},
		{"xterm", "trué"},
		{"xterm", "\x7f"},
	} {
		if line, ok := earlyview.AttachRequest(c.term, c.colorterm); ok {
			t.Errorf("TERM=%q COLORTERM=%q gave the request %q: it is the normal path's to escape", c.term, c.colorterm, line)
		}
	}
}

// The server reads the early start's request without the JSON decoder: every request the early
// start writes is recognised, with its terminal and COLORTERM.
func TestReadAttachRequestReadsEveryEarlyRequest(t *testing.T) {
	for _, c := range earlyTerms {
		line, ok := earlyview.AttachRequest(c.term, c.colorterm)
		if !ok {
			t.Fatalf("no request for TERM=%q COLORTERM=%q", c.term, c.colorterm)
		}
		for _, l := range [][]byte{line, line[:len(line)-1]} {
			params, ok := earlyview.ReadAttachRequest(l)
			if !ok {
				t.Errorf("%q is not recognised", l)
				continue
			}
			term, colorterm, ok := earlyview.ReadAttachParams(params)
			if !ok || term != c.term || colorterm != c.colorterm {
				t.Errorf("%q reads as TERM=%q COLORTERM=%q (%v)", l, term, colorterm, ok)
			}
		}
	}
	for _, l := range []string{
		``,
		`{"id":1,"method":"view/attach","params":{"term":"xterm","early":true}`,
		`{"id":2,"method":"view/attach","params":{"term":"xterm","early":true}}`,
		`{"id":1,"method":"view/kill-server","params":{"term":"xterm","early":true}}`,
		`{"id":1,"method":"view/attach","params":{"term":"xterm","early":true},"x":1}`,
		`{"id":1,"method":"view/attach","params":{"term":"xterm"}}`,
		`{"id":1,"method":"view/attach","params":{"term":"","early":true}}`,
		`{"id":1,"method":"view/attach","params":{"term":"xterm","colorterm":"","early":true}}`,
		`{"id":1,"method":"view/attach","params":{"term":"xt\"erm","early":true}}`,
		`{"id":1,"method":"view/attach","params":{"term":"xterm","open":["sh"],"early":true}}`,
		`{"id":1,"method":"view/attach","params":{"term":"xterm","early":true,"dir":"/"}}`,
		`{"id":1,"method":"view/attach","params":{"early":true,"term":"xterm"}}`,
		`{"id":1,"method":"view/attach","params":{"term":"xterm", "early":true}}`,
		`{"id":1,"method":"view/attach","params":{"term":"xtérm","early":true}}`,
	} {
		if params, ok := earlyview.ReadAttachRequest([]byte(l)); ok {
			t.Errorf("%q is recognised (params %q): it is the JSON decoder's", l, params)
		}
	}
}

// Whatever line ReadAttachRequest recognises, the JSON decoder reads the same, with the server's
// own types.
func FuzzReadAttachRequest(f *testing.F) {
	for _, c := range [][2]string{{"xterm-256color", ""}, {"screen", "truecolor"}} {
		line, _ := earlyview.AttachRequest(c[0], c[1])
		f.Add(line)
	}
	f.Add([]byte(`{"id":1,"method":"view/attach","params":{"term":"a\u0062","early":true}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		params, ok := earlyview.ReadAttachRequest(line)
		if !ok {
			return
		}
		term, colorterm, ok := earlyview.ReadAttachParams(params)
		if !ok {
			t.Fatalf("%q: the request is recognised, its params %q are not", line, params)
		}
		var req agent.Request
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatalf("%q is recognised but is not JSON: %v", line, err)
		}
		var p server.AttachParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Fatalf("%q: params: %v", line, err)
		}
		if req.ID != 1 || req.Method != server.MethodAttach || string(req.Params) != string(params) ||
			p.Term != term || p.ColorTerm != colorterm || !p.Early || p.Open != nil || p.Dir != "" {
			t.Errorf("%q: the JSON decoder reads %+v with %+v; ReadAttachRequest TERM=%q COLORTERM=%q", line, req, p, term, colorterm)
		}
	})
}
