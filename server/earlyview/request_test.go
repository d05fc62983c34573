package earlyview_test

import (
	"encoding/json"
	"testing"

	"tickmux/agent"
	"tickmux/server"
	"tickmux/server/earlyview"
)

// The early start's one request is what the server reads, with the server's own types.
func TestAttachRequestIsWhatTheServerReads(t *testing.T) {
	for _, c := range []struct{ term, colorterm string }{
		{"xterm-256color", ""},
		{"screen.xterm-256color", "truecolor"},
		{"xterm<&>'", "24bit"},
	} {
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
