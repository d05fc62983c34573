package examples

import (
	"os"
	"strings"
	"testing"
)

// ticksDoc is where Tick authors read the examples.
const ticksDoc = "../docs/ticks.md"

// readmeBlock returns the first fenced block of the given language in docs/ticks.md's "Write a
// Tick" section.
func readmeBlock(t *testing.T, lang string) string {
	t.Helper()
	b, err := os.ReadFile(ticksDoc)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## Write a Tick\n")
	if start < 0 {
		t.Fatal(`docs/ticks.md has no "## Write a Tick" section`)
	}
	section := readme[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	fence := "```" + lang + "\n"
	i := strings.Index(section, fence)
	if i < 0 {
		t.Fatalf("no %s block in docs/ticks.md's Write a Tick section", lang)
	}
	block := section[i+len(fence):]
	j := strings.Index(block, "\n```\n")
	if j < 0 {
		t.Fatalf("the %s block is not closed", lang)
	}
	return block[:j+1]
}

// TestReadmeExamplesAreTheFiles: the code in docs/ticks.md is the code that is built, run and
// checked.
func TestReadmeExamplesAreTheFiles(t *testing.T) {
	t.Parallel()
	for lang, file := range map[string]string{"go": "minimal/main.go", "python": "python/note.py"} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := readmeBlock(t, lang); got != string(want) {
			t.Errorf("docs/ticks.md's %s block differs from examples/%s; paste the file into docs/ticks.md", lang, file)
		}
	}
}
