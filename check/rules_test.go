package check

import (
	"os"
	"strings"
	"testing"
)

// The README lists every C- rule exactly as Rules does.
func TestReadmeListsEveryRule(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules {
		row := "| " + r.ID + " | " + r.Severity + " | " + r.Rule + " |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README lacks the row %q", row)
		}
	}
}
