package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/architecture.md "Package map": the map of the code lists exactly the packages of
// `go list ./...`, each once, with nothing left out (examples and scripts included) and nothing
// that is gone.
func TestArchitectureMapListsEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var want []string
	for _, p := range strings.Fields(string(out)) {
		if p == "tickmux" {
			want = append(want, "tickmux")
			continue
		}
		want = append(want, strings.TrimPrefix(p, "tickmux/"))
	}
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## Package map\n")
	if !ok {
		t.Fatal("docs/architecture.md has no Package map section")
	}
	// The map is the first table of the section; a row starts "| `package` ...".
	_, table, ok := strings.Cut(sec, "\n| package | owns | called by |\n")
	if !ok {
		t.Fatal("docs/architecture.md's Package map has no table headed | package | owns | called by |")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)`")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		listed = append(listed, m[1])
	}
	slices.Sort(want)
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("docs/architecture.md's map lists %q,\ngo list ./... has %q", listed, want)
	}
}
