package check

import (
	"encoding/json"
	"testing"

	"tickmux/host"
)

func catalog(t *testing.T, tools string) *host.Catalog {
	t.Helper()
	cat, err := host.ParseDescriptor(json.RawMessage(`{"protocol":3,"kind":"a.b","title":"T","revision":"1","tools":` + tools + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// C-D3 — the catalog is compared as spec 5.5 defines a change: tools as a set, schemas as JSON
// values.
func TestCatalogDiff(t *testing.T) {
	t.Parallel()
	base := catalog(t, `[{"name":"a","description":"A.","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":1000}}},"mutates":false},
		{"name":"b","description":"B.","input_schema":{"type":"object"},"mutates":true}]`)
	same := []string{
		// another tool order, keys in another order, 1000 written 1e3, whitespace
		`[{"mutates":true,"input_schema":{"type":"object"},"description":"B.","name":"b"},
		  {"name":"a","mutates":false,"description":"A.","input_schema":{ "properties" : {"n":{"maximum":1e3,"type":"integer"}},"type":"object"}}]`,
		`[{"name":"b","description":"B.","input_schema":{"type":"object"},"mutates":true,"x-extra":1},
		  {"name":"a","description":"A.","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":1000.0}}},"mutates":false}]`,
	}
	for _, tools := range same {
		if d := catalogDiff(base, catalog(t, tools)); d != "" {
			t.Errorf("the same catalog differs: %s\n%s", d, tools)
		}
	}
	changed := map[string]string{
		"description": `[{"name":"a","description":"A!","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":1000}}},"mutates":false},{"name":"b","description":"B.","input_schema":{"type":"object"},"mutates":true}]`,
		"mutates":     `[{"name":"a","description":"A.","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":1000}}},"mutates":true},{"name":"b","description":"B.","input_schema":{"type":"object"},"mutates":true}]`,
		"schema":      `[{"name":"a","description":"A.","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":1001}}},"mutates":false},{"name":"b","description":"B.","input_schema":{"type":"object"},"mutates":true}]`,
		"name":        `[{"name":"a2","description":"A.","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":1000}}},"mutates":false},{"name":"b","description":"B.","input_schema":{"type":"object"},"mutates":true}]`,
		"a tool gone": `[{"name":"b","description":"B.","input_schema":{"type":"object"},"mutates":true}]`,
	}
	for what, tools := range changed {
		if d := catalogDiff(base, catalog(t, tools)); d == "" {
			t.Errorf("a changed %s was not seen", what)
		}
	}
}

func TestJSONEqual(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`[1,2]`, `[2,1]`, false},
		{`1e15`, `1000000000000000`, true},
		{`0.5`, `5e-1`, true},
		{`"\u0041"`, `"A"`, true},
		{`1e99999`, `1e99998`, false},
		{`{"a":null}`, `{}`, false},
	} {
		if got := jsonEqual(json.RawMessage(c.a), json.RawMessage(c.b)); got != c.eq {
			t.Errorf("%s vs %s: %v", c.a, c.b, got)
		}
	}
}
