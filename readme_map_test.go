package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// README "Development": the map of the code lists exactly the packages of `go list ./...`, each
// once, with nothing left out (examples and scripts included) and nothing that is gone.
func TestReadmeMapListsEveryPackage(t *testing.T) {
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
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, dev, ok := strings.Cut(string(readme), "\n## Development\n")
	if !ok {
		t.Fatal("README has no Development section")
	}
	// The map is the first table of the section; a row starts "| `package` ...".
	_, table, ok := strings.Cut(dev, "\n| package | owns | called by |\n")
	if !ok {
		t.Fatal("README's Development section has no table headed | package | owns | called by |")
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
		t.Errorf("README's map lists %q,\ngo list ./... has %q", listed, want)
	}
}
