package check

import (
	"encoding/json"
	"testing"

	"tickmux/host"
)

// C-D1, C-D2 — spec 5.2: a descriptor without a description, and a tool without one, are noted
// (a model cannot tell what the Tick or the tool is for); white space alone is no description.
// Notes, not warnings: 5.2 gives the descriptions' content in the types' comments, with no SHOULD
// (issue 41 item 6). A described descriptor and tool get neither note.
func TestLintDescriptorDescriptions(t *testing.T) {
	t.Parallel()
	lint := func(desc, toolDesc string) *Report {
		t.Helper()
		d, _ := json.Marshal(map[string]any{
			"protocol": 3, "kind": "example.lint", "title": "Lint", "description": desc, "revision": "1",
			"tools": []any{map[string]any{"name": "get", "description": toolDesc,
				"input_schema": map[string]any{"type": "object"}, "mutates": false}},
		})
		cat, err := host.ParseDescriptor(d)
		if err != nil {
			t.Fatal(err)
		}
		var r Report
		lintDescriptor(&r, cat)
		return &r
	}

	r := lint("", " \t")
	if !hasFinding(r, "C-D1", SevNote) {
		t.Errorf("no C-D1 note for a descriptor without a description: %+v", r.Findings)
	}
	if !hasFinding(r, "C-D2", SevNote) {
		t.Errorf("no C-D2 note for a tool whose description is white space: %+v", r.Findings)
	}

	r = lint("Shows one value.", "Read the value.")
	if hasFinding(r, "C-D1", SevNote) || hasFinding(r, "C-D2", SevNote) {
		t.Errorf("a described descriptor and tool were noted: %+v", r.Findings)
	}
}
