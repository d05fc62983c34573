package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"tickmux/host"
	"tickmux/tick/wire"
)

// Error results name no HOST.md rule ids (in the rule field or the message); the log has them.
func TestMCPErrorsDropRuleIDs(t *testing.T) {
	t.Parallel()
	var logged []string
	m := &MCP{logf: func(format string, args ...any) { logged = append(logged, format) }}
	err := &host.CallError{Effect: wire.EffectUnknown, Message: "the Tick's session ended: protocol violation (H-V2): a line is not valid UTF-8",
		Err: &host.Violation{Rule: "H-V2", Reason: "a line is not valid UTF-8"}}
	res := m.errorResult("call_tick", err)
	raw, _ := json.Marshal(res.StructuredContent)
	var body struct{ Error Error }
	if json.Unmarshal(raw, &body) != nil {
		t.Fatalf("result %s", raw)
	}
	if strings.Contains(string(raw), "H-V2") || body.Error.Message != "the Tick's session ended: protocol violation: a line is not valid UTF-8" ||
		body.Error.Effect != wire.EffectUnknown || body.Error.Reason != ReasonSessionEnded {
		t.Errorf("error result %s", raw)
	}
	if len(logged) != 1 {
		t.Errorf("logged %q, want the rule in the log once", logged)
	}

	w, _ := encode(WaitResult{Calls: []CallOutcome{{Call: "call:1", Status: StatusVoided, Error: &Error{Message: "voided", Effect: wire.EffectNone, Reason: ReasonVoided, Rule: "H-K3"}}}})
	if out := m.dropRules("wait", w); strings.Contains(string(out), "H-K3") || !strings.Contains(string(out), `"status":"voided"`) {
		t.Errorf("wait outcome %s", out)
	}
}
