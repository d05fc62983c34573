package examples

import (
	"os"
	"strings"
	"testing"
)

// readmeBlock returns the first fenced block of the given language in the README's "Write a
// Tick" section.
func readmeBlock(t *testing.T, lang string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## Write a Tick\n")
	if start < 0 {
		t.Fatal(`the README has no "## Write a Tick" section`)
	}
	section := readme[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	fence := "```" + lang + "\n"
	i := strings.Index(section, fence)
	if i < 0 {
		t.Fatalf("no %s block in the README's Write a Tick section", lang)
	}
	block := section[i+len(fence):]
	j := strings.Index(block, "\n```\n")
	if j < 0 {
		t.Fatalf("the %s block is not closed", lang)
	}
	return block[:j+1]
}

// TestReadmeExamplesAreTheFiles: the README's code is the code that is built, run and checked.
func TestReadmeExamplesAreTheFiles(t *testing.T) {
	t.Parallel()
	for lang, file := range map[string]string{"go": "minimal/main.go", "python": "python/note.py"} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := readmeBlock(t, lang); got != string(want) {
			t.Errorf("the README's %s block differs from examples/%s; paste the file into the README", lang, file)
		}
	}
}
