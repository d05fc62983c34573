package check

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envMode); mode != "" {
		os.Exit(fakeMain(mode))
	}
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("tickmux/host.reapLoop"), goleak.IgnoreTopFunction("os/signal.signal_recv"))
}

func runFake(t *testing.T, mode string) (*Report, string) {
	t.Helper()
	self, _ := os.Executable()
	log := filepath.Join(t.TempDir(), "mutating.log")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := Run(ctx, Options{Argv: []string{self}, Env: []string{envMode + "=" + mode, envLog + "=" + log}, Watch: 300 * time.Millisecond})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	b, _ := os.ReadFile(log)
	return r, string(b)
}

func hasFinding(r *Report, rule, severity string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule && f.Severity == severity {
			return true
		}
	}
	return false
}

func TestCheckVerdicts(t *testing.T) {
	cases := []struct {
		mode, rule, severity string
		ok                   bool
	}{
		{"good", "", "", true},
		{"noisy", "H-V2", SevViolation, false},
		{"updregress", "H-U1", SevViolation, false},
		{"badversion", "H-I2", SevFailure, false},
		{"crash", "H-I1", SevFailure, false},
		{"staleok", "C-K1", SevFailure, false},
		{"unknowntoolok", "C-K2", SevFailure, false},
		{"dupreply", "C-M1", SevFailure, false},
		{"tickrequest", "H-M7", SevFailure, false},
		{"revnochange", "C-D3", SevFailure, false},
		{"badargsrun", "C-K3", SevWarning, true},
		{"unknownmethodok", "C-M2", SevWarning, true},
		{"slow", "C-R2", SevWarning, true},
		{"bigstate", "C-S1", SevWarning, true},
		{"chatty", "C-U2", SevWarning, true},
		{"ignoreeof", "C-X1", SevWarning, true},
		{"ignoreterm", "C-X2", SevWarning, true},
		{"lint", "C-D4", SevWarning, true},
		{"mutatingonly", "", "", true},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			r, mutated := runFake(t, c.mode)
			if r.OK != c.ok {
				t.Errorf("ok %v, want %v; findings %+v", r.OK, c.ok, r.Findings)
			}
			if c.rule != "" && !hasFinding(r, c.rule, c.severity) {
				t.Errorf("no %s %s finding in %+v", c.severity, c.rule, r.Findings)
			}
			if c.rule == "" && len(r.Findings) > 0 {
				t.Errorf("findings for a conforming Tick: %+v", r.Findings)
			}
			if r.Ended == nil || r.Ended.Reason == "" {
				t.Error("no end reason")
			}
			// check never calls a mutating tool with a valid revision.
			if mutated != "" {
				t.Errorf("check called a mutating tool: %q", mutated)
			}
		})
	}
}

func TestReportShapes(t *testing.T) {
	r, _ := runFake(t, "crash")
	b, _ := json.Marshal(r)
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	for _, k := range []string{"ok", "descriptor", "state", "findings", "ended"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON report lacks %q: %s", k, b)
		}
	}
	if string(m["descriptor"]) != "null" || string(m["state"]) != "null" {
		t.Errorf("a Tick that never initialized has descriptor %s state %s, want null", m["descriptor"], m["state"])
	}
	if !strings.Contains(r.Ended.Screen, "check fake crash") || !strings.Contains(r.Ended.Screen, "panic: cannot find config") {
		t.Errorf("screen %q lacks what the Tick drew", r.Ended.Screen)
	}
	var sb strings.Builder
	WriteText(&sb, []string{"fake"}, r)
	if !strings.Contains(sb.String(), "FAIL") || !strings.Contains(sb.String(), "H-I1") {
		t.Errorf("text report:\n%s", sb.String())
	}
}

func TestCannotStart(t *testing.T) {
	_, err := Run(context.Background(), Options{Argv: []string{"/no/such/tick"}})
	if err == nil || !strings.Contains(err.Error(), "/no/such/tick") {
		t.Fatalf("err %v", err)
	}
}
