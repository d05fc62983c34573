package jsonschema

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOfficialSuite runs the JSON-Schema-Test-Suite's cases for draft 2020-12 and draft-07 (the
// copy that github.com/google/jsonschema-go, a module this one already requires through the MCP
// SDK, carries in its testdata). A case whose schema refers outside itself is refused by design
// (external references) and counted apart; every other case must compile and every test in it
// must come out as the suite says.
func TestOfficialSuite(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/jsonschema-go").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "jsonschema", "testdata")
	for _, dir := range []struct {
		name   string
		schema string
	}{{"draft2020-12", ""}, {"draft7", "http://json-schema.org/draft-07/schema#"}} {
		files, _ := filepath.Glob(filepath.Join(root, dir.name, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no suite files in %s", filepath.Join(root, dir.name))
		}
		tests, refused := 0, 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var cases []struct {
				Description string
				Schema      json.RawMessage
				Tests       []struct {
					Description string
					Data        json.RawMessage
					Valid       bool
				}
			}
			if err := json.Unmarshal(data, &cases); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, c := range cases {
				schema := c.Schema
				if dir.schema != "" {
					schema = withSchema(t, schema, dir.schema)
				}
				s, err := Compile(schema)
				if err != nil {
					if strings.Contains(err.Error(), "external reference") {
						refused++
						continue
					}
					t.Errorf("%s/%s: %q: compile: %v", dir.name, filepath.Base(f), c.Description, err)
					continue
				}
				for _, tc := range c.Tests {
					tests++
					err := s.ValidateJSON(tc.Data)
					if (err == nil) != tc.Valid {
						t.Errorf("%s/%s: %q / %q: valid %v, got %v", dir.name, filepath.Base(f), c.Description, tc.Description, tc.Valid, err)
					}
				}
			}
		}
		t.Logf("%s: %d tests passed, %d cases refused for external references", dir.name, tests, refused)
	}
}

// withSchema sets $schema on an object schema that has none (the draft-07 files leave it out).
func withSchema(t *testing.T, schema json.RawMessage, uri string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil {
		// A boolean schema: wrap it so the draft applies.
		return json.RawMessage(`{"$schema":"` + uri + `","allOf":[` + string(schema) + `]}`)
	}
	if _, ok := m["$schema"]; !ok {
		m["$schema"] = json.RawMessage(`"` + uri + `"`)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
