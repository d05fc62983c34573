package jsonschema

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The official JSON-Schema-Test-Suite, from two Go modules that carry copies of it in their
// testdata, fetched the way go fetches any module (no other network): github.com/google/jsonschema-go
// (2020-12 and draft-07; this module already requires it through the MCP SDK) and
// github.com/flowstack/go-jsonschema (draft-04, -06, -07, 2019-09 and 2020-12, with the optional
// ECMA-262 regex tests). Every draft this package accepts runs; a case whose schema refers
// outside itself is refused by design (external references) and counted apart; every other case
// must compile and every test in it must come out as the suite says.

const suiteModule = "github.com/flowstack/go-jsonschema@v0.1.1"

var draftURIs = map[string]string{
	"draft4":       "http://json-schema.org/draft-04/schema#",
	"draft6":       "http://json-schema.org/draft-06/schema#",
	"draft7":       "http://json-schema.org/draft-07/schema#",
	"draft2019-09": "https://json-schema.org/draft/2019-09/schema",
	"draft2020-12": "",
}

// spec: 5.3
func TestOfficialSuite(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/jsonschema-go").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	google := filepath.Join(strings.TrimSpace(string(out)), "jsonschema", "testdata")
	flowstack := filepath.Join(moduleDir(t, suiteModule), "testdata")
	for _, run := range []struct{ root, dir, from string }{
		{google, "draft2020-12", "google"}, {google, "draft7", "google"},
		{flowstack, "draft4", "flowstack"}, {flowstack, "draft6", "flowstack"}, {flowstack, "draft7", "flowstack"},
		{flowstack, "draft2019-09", "flowstack"}, {flowstack, "draft2020-12", "flowstack"},
	} {
		files, _ := filepath.Glob(filepath.Join(run.root, run.dir, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no suite files in %s", filepath.Join(run.root, run.dir))
		}
		for _, opt := range []string{"ecmascript-regex.json", "non-bmp-regex.json"} {
			if f := filepath.Join(run.root, run.dir, "optional", opt); fileExists(f) {
				files = append(files, f)
			}
		}
		tests, refused := runSuiteFiles(t, run.dir, draftURIs[run.dir], files)
		t.Logf("%s (%s): %d tests passed, %d cases refused for external references", run.dir, run.from, tests, refused)
	}
}

func runSuiteFiles(t *testing.T, draft, uri string, files []string) (tests, refused int) {
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
			if uri != "" {
				schema = withSchema(t, schema, uri)
			}
			s, err := Compile(schema)
			if err != nil {
				if strings.Contains(err.Error(), "external reference") {
					refused++
					continue
				}
				t.Errorf("%s/%s: %q: compile: %v", draft, filepath.Base(f), c.Description, err)
				continue
			}
			if u := s.Unchecked(); len(u) > 0 {
				t.Errorf("%s/%s: %q: not everything is checked: %v", draft, filepath.Base(f), c.Description, u)
			}
			for _, tc := range c.Tests {
				tests++
				err := s.ValidateJSON(tc.Data)
				if (err == nil) != tc.Valid {
					t.Errorf("%s/%s: %q / %q: valid %v, got %v", draft, filepath.Base(f), c.Description, tc.Description, tc.Valid, err)
				}
			}
		}
	}
	return tests, refused
}

// moduleDir downloads a module into the module cache (from wherever go gets modules; outside this
// module, so go.mod is left alone) and returns its directory.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", module, err, out)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", module, err, out)
	}
	return m.Dir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// withSchema sets $schema on an object schema that has none (the suite's files leave it out).
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
