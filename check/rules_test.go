package check

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// ruleRow is docs/ticks.md's row for r.
func ruleRow(r Rule) string {
	return "| " + r.ID + " | " + r.Severity + " | " + r.Rule + " | " + r.Draft + " |"
}

// readmeHeader opens docs/ticks.md's table of findings.
const readmeHeader = "| id | severity | what check reports | the draft it rests on |"

// docs/ticks.md's table of findings is Rules, row for row: every finding check can report, its
// severity and the sentence of the draft it rests on, and nothing else.
func TestReadmeTableIsRules(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../docs/ticks.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), readmeHeader+"\n| --- | --- | --- | --- |\n")
	if !ok {
		t.Fatalf("docs/ticks.md lacks the table of findings, headed %q", readmeHeader)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var got, want []string
	for _, row := range strings.Split(strings.TrimSpace(table), "\n") {
		got = append(got, row)
	}
	for _, r := range Rules {
		want = append(want, ruleRow(r))
		if r.Draft == "" || r.Rule == "" {
			t.Errorf("%s has no rule or no sentence of the draft", r.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/ticks.md's table differs from Rules; the table should read:\n%s\n\nit reads:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}
