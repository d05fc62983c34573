package agent_test

import (
	"strings"
	"testing"

	"tickmux/agent/agenttest"
	"tickmux/host"
)

// describe, read and wait print a Tick's JSON re-encoded, not as the Tick spelled it: a state
// written {"\u0070ul\u0073es" : 5000E-1} reads {"pulses": 500} and a schema's "m\u0061ximum":1E3
// reads "maximum":1000, in the CLI and over MCP. describe also says what of a tool's schema
// tickmux does not check (the Tick does).
//
// spec: 7.2
// spec: 2.3
// spec: 3.5
func TestOddSpellingsPrintClean(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.Open(t, host.OpenSpec{Argv: []string{agenttest.Executable(t)}, Env: []string{agenttest.EnvFake + "=" + agenttest.EnvFakeOdd}})
	id := in.ID()
	odd := func(what, out string) {
		t.Helper()
		for _, spelled := range []string{`\u0070`, `\u0061`, `5000E-1`, `1E3`} {
			if strings.Contains(out, spelled) {
				t.Errorf("%s prints %s as the Tick spelled it:\n%s", what, spelled, out)
			}
		}
	}

	out, _, code := runCLI(t, h.Socket, "describe", id)
	if code != 0 || !strings.Contains(out, `"maximum":1000`) || !strings.Contains(out, `not checked by tickmux: at /properties/tag/pattern: the pattern "(unclosed" is not checked`) {
		t.Errorf("describe: exit %d\n%s", code, out)
	}
	odd("describe", out)
	out, _, code = runCLI(t, h.Socket, "read", id)
	if code != 0 || !strings.Contains(out, `"pulses": 500`) {
		t.Errorf("read: exit %d\n%s", code, out)
	}
	odd("read", out)
	out, _, code = runCLI(t, h.Socket, "wait", "--after", id+"=0", id)
	if code != 0 || !strings.Contains(out, `"pulses": 500`) {
		t.Errorf("wait: exit %d\n%s", code, out)
	}
	odd("wait", out)

	cs := connectMCP(t, h.Socket, nil)
	for _, c := range []struct{ tool, want string }{
		{"describe_tick", `"not_checked":["at /properties/tag/pattern: the pattern \"(unclosed\" is not checked`},
		{"read_tick", `"pulses":500`},
		{"wait", `"pulses":500`},
	} {
		args := map[string]any{"id": id}
		if c.tool == "wait" {
			args = map[string]any{"ids": []string{id}, "after_seq": map[string]any{id: 0}}
		}
		r := call(t, cs, c.tool, args)
		if r.isError || !strings.Contains(string(r.raw), c.want) {
			t.Errorf("%s: %s", c.tool, r.raw)
		}
		odd(c.tool, string(r.raw))
	}
}
