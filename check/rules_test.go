package check

import (
	"os"
	"path/filepath"
	"regexp"
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

// Issue 42 item 3: every rule id check can report (a finding check makes, or one the host names
// when it ends a session or fails a request) has its sentence of the draft in Rules, which the
// text report prints below the finding.
func TestEveryReportedRuleHasItsSentence(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{}
	lit := regexp.MustCompile(`"([HC]-[A-Z]+[0-9]+)"`)
	hostRule := regexp.MustCompile(`(?:violation\(|Rule: +|return )"(H-[A-Z]+[0-9]+)"`)
	for _, glob := range []string{"*.go", "../host/*.go"} {
		files, _ := filepath.Glob(glob)
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			re := lit
			if strings.HasPrefix(name, "../") {
				re = hostRule
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				ids[m[1]] = true
			}
		}
	}
	if len(ids) < 40 {
		t.Fatalf("found only %d rule ids in check's and the host's code: %v", len(ids), ids)
	}
	for id := range ids {
		if DraftOf(id) == "" {
			t.Errorf("%s can be reported but Rules has no sentence of the draft for it", id)
		}
	}
}

// Issue 42 item 3: a Tick that meets every MUST but misses a SHOULD passes, and the text report
// says so line by line: the probe that found the SHOULD missed is marked WARN, never FAIL, and
// the finding is printed with its id and the draft's sentence.
func TestWarningStepIsWarn(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "extraok")
	var sb strings.Builder
	WriteText(&sb, []string{"fake"}, r)
	text := sb.String()
	if !r.OK || !strings.Contains(text, "\n  WARN members the schema forbids get -32602: ") || strings.Contains(text, "FAIL") ||
		!strings.Contains(text, "\n  warning   C-K3  ") || !strings.Contains(text, "the draft, 7.2: “args that do not fit MUST get -32602") ||
		!strings.Contains(text, "\nPASS: 0 violations, 0 failures, 1 warnings, 0 notes\n") {
		t.Fatalf("the report of a Tick that accepts a member its schema forbids:\n%s", text)
	}
}
