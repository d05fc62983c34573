package agent

import (
	"strings"
	"testing"
)

// The verbs print at most maxPrinted characters of a Tick's text field for a person.
func TestVerbsCapTickText(t *testing.T) {
	t.Parallel()
	got := safe(strings.Repeat("D", 400_000) + "\x1b[2J")
	if !strings.HasSuffix(got, "… 398004 more") || len(got) > maxPrinted+40 {
		t.Fatalf("printed %d bytes, ending %q", len(got), got[len(got)-30:])
	}
}
