package check

import (
	"strings"
	"testing"
)

// spec 4.2 (H-I1) — a Tick that closes its stdout right after its describe answer, while the host
// still validates its large catalog, ends the session before initialization sends its read. The
// failure says why the session ended, never "context canceled" from initialization's own wait,
// which won that race about one run in three.
func TestInitFailureKeepsTheSessionsReason(t *testing.T) {
	t.Parallel()
	for i := 0; i < 12; i++ {
		r, _ := runFake(t, "initcloseout")
		if !hasFinding(r, "H-I1", SevFailure) {
			t.Fatalf("run %d: findings %+v, want H-I1", i, r.Findings)
		}
		for _, f := range r.Findings {
			if strings.Contains(f.Message, "context canceled") || !strings.Contains(f.Message, "closed its stdout") {
				t.Fatalf("run %d: %s %q, want the session's own reason", i, f.Rule, f.Message)
			}
		}
	}
}
