package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// `tickmux check` takes --call-timeout and reports an example Tick as ok, in one JSON object.
// README "tickmux check".
func TestCheckCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envAsMain, "1") // the Tick is this binary playing tickmux: `tickmux example counter`
	var out, errOut bytes.Buffer
	code := runCheck([]string{"--json", "--watch", "200ms", "--call-timeout", "5s", "--", self, "example", "counter"}, stdio{out: &out, err: &errOut})
	var r struct {
		OK       bool              `json:"ok"`
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out.String())
	}
	if code != 0 || !r.OK {
		t.Fatalf("exit %d, report %s, stderr %s", code, out.String(), errOut.String())
	}

	errOut.Reset()
	if code := runCheck([]string{"--call-timeout", "soon", "--", self}, stdio{out: &out, err: &errOut}); code != 2 || !strings.Contains(errOut.String(), "call-timeout") {
		t.Fatalf("a bad --call-timeout: exit %d, %q", code, errOut.String())
	}
}
