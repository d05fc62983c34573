package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, schema string) *Schema {
	t.Helper()
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	return s
}

// A schema that is not a valid schema of its draft is refused, every problem named at its
// keyword path.
func TestCompileRefuses(t *testing.T) {
	cases := []struct {
		schema string
		want   []string // each must be in the error
	}{
		{`{"type":"objekt"}`, []string{`at /type: "objekt" is not a type (array, boolean, integer, null, number, object, string)`}},
		{`{"type":5}`, []string{`at /type: 5 is not a type`}},
		{`{"type":[]}`, []string{`at /type: must name at least one type`}},
		{`{"type":["string","string"]}`, []string{`at /type/1: repeats the type "string"`}},
		{`{"properties":{"a":{"minLength":-1}}}`, []string{`at /properties/a/minLength: must be a non-negative integer, not -1`}},
		{`{"maxItems":1.5}`, []string{`at /maxItems: must be a non-negative integer, not 1.5`}},
		{`{"minProperties":"3"}`, []string{`at /minProperties: must be a non-negative integer, not "3"`}},
		{`{"multipleOf":0}`, []string{`at /multipleOf: must be a number greater than 0, not 0`}},
		{`{"maximum":"10"}`, []string{`at /maximum: must be a number, not a string`}},
		{`{"required":[1]}`, []string{`at /required/0: must be a property name (a string), not an integer`}},
		{`{"required":["a","a"]}`, []string{`at /required/1: repeats 'a'`}},
		{`{"required":"a"}`, []string{`at /required: must be an array of property names`}},
		{`{"properties":5}`, []string{`at /properties: must be an object whose values are schemas, not an integer`}},
		{`{"properties":{"a":5}}`, []string{`at /properties/a: must be a schema (an object, true or false), not an integer`}},
		{`{"allOf":[]}`, []string{`at /allOf: must be a non-empty array of schemas`}},
		{`{"anyOf":{}}`, []string{`at /anyOf: must be a non-empty array of schemas`}},
		{`{"not":"x"}`, []string{`at /not: must be a schema`}},
		{`{"enum":5}`, []string{`at /enum: must be an array of the allowed values`}},
		{`{"uniqueItems":"yes"}`, []string{`at /uniqueItems: must be true or false`}},
		{`{"items":[{}]}`, []string{`at /items: must be a schema; an array of schemas is draft-07's form (in draft 2020-12 use prefixItems)`}},
		{`{"dependentRequired":{"a":"b"}}`, []string{`at /dependentRequired/a: must be an array of property names`}},
		{`{"$defs":{"a":{"type":"nope"}}}`, []string{`at /$defs/a/type:`}},
		{`{"title":5,"description":[]}`, []string{`at /title: must be a string`, `at /description: must be a string`}},
		{`{"format":1}`, []string{`at /format: must be a string`}},
		{`{"$anchor":"1x"}`, []string{`at /$anchor: "1x" is not an anchor name`}},
		{`{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, []string{`the anchor "x" is declared twice`}},
		{`{"$id":"#foo"}`, []string{`at /$id: "#foo" has a fragment; in draft 2020-12 name a subschema with $anchor`}},
		{`{"$defs":{"a":{"$id":"http://x/a"},"b":{"$id":"http://x/a"}}}`, []string{`is also the $id of the schema at #/$defs/a`}},
		{`{"$vocabulary":{"x":1}}`, []string{`at /$vocabulary/x: must be true or false`}},
		// Every problem at once, in keyword order.
		{`{"type":"objekt","minimum":"3","properties":{"a":{"maxLength":-2}}}`, []string{
			`at /minimum: must be a number, not a string; at /properties/a/maxLength: must be a non-negative integer, not -2; at /type: "objekt" is not a type`}},
		// A name with / or ~ is escaped in the path (RFC 6901).
		{`{"properties":{"a/b~c":{"type":1}}}`, []string{`at /properties/a~1b~0c/type:`}},
	}
	for _, c := range cases {
		_, err := Compile([]byte(c.schema))
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v, want a SchemaError", c.schema, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s:\n got %s\nwant %s", c.schema, err, w)
			}
		}
	}
}

// Patterns are Go's RE2: what it cannot run (lookaround, backreferences) is refused at compile
// time with the reason, never at validation; RE2 runs in time linear in the text.
func TestPatterns(t *testing.T) {
	for _, p := range []string{`(?=x)`, `(?!x)`, `(?<=x)y`, `(a)\\1`, `[^]`} {
		schema := fmt.Sprintf(`{"properties":{"s":{"pattern":"%s"}},"patternProperties":{"%s":{}}}`, p, p)
		_, err := Compile([]byte(schema))
		if err == nil || !strings.Contains(err.Error(), "at /properties/s/pattern: ") ||
			!strings.Contains(err.Error(), "at /patternProperties/") || !strings.Contains(err.Error(), "RE2 syntax") {
			t.Errorf("pattern %s: %v", p, err)
		}
	}
	// A pattern that backtracking engines take exponential time over is linear here.
	s := mustCompile(t, `{"properties":{"s":{"pattern":"^(a+)+$"}}}`)
	long := strings.Repeat("a", 100_000) + "!"
	err := s.ValidateJSON([]byte(`{"s":"` + long + `"}`))
	if err == nil || !strings.Contains(err.Error(), `at /s: must match the pattern "^(a+)+$"`) {
		t.Errorf("long text: %v", err)
	}
	// A pattern too large to be cheap is refused.
	_, err = Compile([]byte(`{"pattern":"` + strings.Repeat("x{1000}", 11) + `"}`))
	if err == nil || !strings.Contains(err.Error(), "at /pattern: the regular expression") || !strings.Contains(err.Error(), "too large") {
		t.Errorf("large pattern: %v", err)
	}
	// Patterns search unless anchored; \d is ASCII digits, \p{L} a letter in any script.
	s = mustCompile(t, `{"properties":{"a":{"pattern":"\\d"},"b":{"pattern":"^\\p{L}+$"}}}`)
	if err := s.ValidateJSON([]byte(`{"a":"x1y","b":"héllo"}`)); err != nil {
		t.Error(err)
	}
	if err := s.ValidateJSON([]byte(`{"a":"١","b":"a1"}`)); err == nil || !strings.Contains(err.Error(), "at /a:") || !strings.Contains(err.Error(), "at /b:") {
		t.Errorf("pattern misfits: %v", err)
	}
}

// $schema may name draft 2020-12 or draft-07; anything else is refused, saying which drafts are
// checked.
func TestDrafts(t *testing.T) {
	for uri, want := range map[string]Draft{
		"https://json-schema.org/draft/2020-12/schema":  Draft2020,
		"https://json-schema.org/draft/2020-12/schema#": Draft2020,
		"http://json-schema.org/draft-07/schema#":       Draft7,
		"http://json-schema.org/draft-07/schema":        Draft7,
		"https://json-schema.org/draft-07/schema#":      Draft7,
	} {
		s := mustCompile(t, `{"$schema":"`+uri+`"}`)
		if s.Draft() != want {
			t.Errorf("%s: %v, want %v", uri, s.Draft(), want)
		}
	}
	if s := mustCompile(t, `{}`); s.Draft() != Draft2020 {
		t.Errorf("default draft %v", s.Draft())
	}
	for uri, want := range map[string]string{
		"http://json-schema.org/draft-04/schema#":         "at /$schema: draft-04 is not supported: the drafts checked are 2020-12 (the default: leave $schema out) and draft-07",
		"http://json-schema.org/draft-06/schema#":         "draft-06 is not supported",
		"http://json-schema.org/draft-03/schema#":         "draft-03 is not supported",
		"https://json-schema.org/draft/2019-09/schema":    "2019-09 is not supported",
		"https://example.com/my-meta-schema":              `"https://example.com/my-meta-schema" is not a JSON Schema draft this host knows`,
		"https://json-schema.org/draft/2020-12/schema/x#": "is not a JSON Schema draft this host knows",
	} {
		_, err := Compile([]byte(`{"$schema":"` + uri + `"}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", uri, err, want)
		}
	}
	if _, err := Compile([]byte(`{"$schema":7}`)); err == nil || !strings.Contains(err.Error(), "at /$schema: must be a string") {
		t.Errorf("$schema 7: %v", err)
	}
	// One schema, one draft: a subschema may repeat the document's draft, not switch it.
	mustCompile(t, `{"$defs":{"a":{"$id":"a.json","$schema":"https://json-schema.org/draft/2020-12/schema"}}}`)
	_, err := Compile([]byte(`{"$defs":{"a":{"$id":"a.json","$schema":"http://json-schema.org/draft-07/schema#"}}}`))
	if err == nil || !strings.Contains(err.Error(), "at /$defs/a/$schema: names draft-07 inside a draft 2020-12 schema") {
		t.Errorf("switching drafts: %v", err)
	}
}

// The keywords that differ between the drafts behave as each draft says.
func TestDraftDifferences(t *testing.T) {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	cases := []struct {
		name, schema  string
		fits, misfits []string
	}{
		{"draft-07 items array and additionalItems", `{` + d7 + `"items":[{"type":"string"}],"additionalItems":false}`,
			[]string{`["a"]`, `[]`}, []string{`[1]`, `["a","b"]`}},
		{"draft-07 additionalItems ignored beside one items schema", `{` + d7 + `"items":{"type":"string"},"additionalItems":false}`,
			[]string{`["a","b"]`}, []string{`[1]`}},
		{"2020-12 prefixItems and items", `{"prefixItems":[{"type":"string"}],"items":false}`,
			[]string{`["a"]`}, []string{`[1]`, `["a","b"]`}},
		{"draft-07 knows no prefixItems", `{` + d7 + `"prefixItems":[{"type":"string"}]}`, []string{`[1]`}, nil},
		{"draft-07 $ref siblings ignored", `{` + d7 + `"definitions":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/n","minimum":10}}}`,
			[]string{`{"a":5}`}, []string{`{"a":"x"}`}},
		{"2020-12 $ref siblings apply", `{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n","minimum":10}}}`,
			[]string{`{"a":15}`}, []string{`{"a":5}`, `{"a":"x"}`}},
		{"draft-07 dependencies", `{` + d7 + `"dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
			[]string{`{"a":1,"b":1}`, `{"c":1,"d":1}`, `{"b":1}`}, []string{`{"a":1}`, `{"c":1}`}},
		{"2020-12 dependentRequired and dependentSchemas", `{"dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}}}`,
			[]string{`{"a":1,"b":1}`, `{"c":1,"d":1}`}, []string{`{"a":1}`, `{"c":1}`}},
		{"draft-07 $id fragment is an anchor", `{` + d7 + `"definitions":{"s":{"$id":"#str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`,
			[]string{`{"a":"x"}`}, []string{`{"a":1}`}},
		{"2020-12 $anchor", `{"$defs":{"s":{"$anchor":"str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`,
			[]string{`{"a":"x"}`}, []string{`{"a":1}`}},
		{"draft-07 has no unevaluatedProperties", `{` + d7 + `"unevaluatedProperties":false}`, []string{`{"a":1}`}, nil},
		{"2020-12 unevaluatedProperties", `{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`,
			[]string{`{"a":1}`}, []string{`{"a":1,"b":2}`}},
		{"refs into unknown keywords (definitions in 2020-12)", `{"definitions":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/n"}}}`,
			[]string{`{"a":1}`}, []string{`{"a":"x"}`}},
		{"format is an annotation in both drafts", `{` + d7 + `"properties":{"d":{"format":"date-time"},"e":{"format":"email"}}}`,
			[]string{`{"d":"not a date","e":"not an address"}`}, nil},
	}
	for _, c := range cases {
		s, err := Compile([]byte(c.schema))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for _, v := range c.fits {
			if err := s.ValidateJSON([]byte(v)); err != nil {
				t.Errorf("%s: %s: %v", c.name, v, err)
			}
		}
		for _, v := range c.misfits {
			if err := s.ValidateJSON([]byte(v)); err == nil {
				t.Errorf("%s: %s fits", c.name, v)
			}
		}
	}
}

// A reference must land inside the schema: nothing is ever fetched or read.
func TestReferences(t *testing.T) {
	for ref, want := range map[string]string{
		"file:///etc/passwd":                           `at /properties/a/$ref: external reference "file:///etc/passwd" is not allowed`,
		"http://example.com/s.json":                    `external reference "http://example.com/s.json" is not allowed`,
		"other.json#/$defs/x":                          `external reference "other.json#/$defs/x" is not allowed`,
		"https://json-schema.org/draft/2020-12/schema": `external reference "https://json-schema.org/draft/2020-12/schema" is not allowed`,
		"#/$defs/nope":                                 `"#/$defs/nope" points to nothing: #/$defs has no "nope"`,
		"#/required":                                   `"#/required" points to an array, which is not a schema`,
		"#/required/5":                                 `points to nothing: #/required has no item "5"`,
		"#nope":                                        `names the anchor "nope", which the schema does not declare`,
		"#/$defs/a~2":                                  `is not a JSON Pointer`,
	} {
		_, err := Compile([]byte(`{"required":["x"],"$defs":{"a":{}},"properties":{"a":{"$ref":"` + ref + `"}}}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %s", ref, err, want)
		}
	}
	// Inside the schema: pointers (escaped and percent-encoded), anchors, embedded $ids.
	s := mustCompile(t, `{"$id":"https://example.com/root.json",
		"$defs":{"a/b":{"type":"integer"},"c d":{"type":"string"},
		         "e":{"$id":"e.json","$defs":{"f":{"type":"boolean"}}}},
		"properties":{"p":{"$ref":"#/$defs/a~1b"},"q":{"$ref":"#/$defs/c%20d"},
		              "r":{"$ref":"e.json#/$defs/f"},"s":{"$ref":"https://example.com/e.json#/$defs/f"}}}`)
	if err := s.ValidateJSON([]byte(`{"p":1,"q":"x","r":true,"s":false}`)); err != nil {
		t.Error(err)
	}
	err := s.ValidateJSON([]byte(`{"p":"x","q":1,"r":1,"s":1}`))
	for _, p := range []string{"/p", "/q", "/r", "/s"} {
		if err == nil || !strings.Contains(err.Error(), "at "+p+":") {
			t.Errorf("%s not reported: %v", p, err)
		}
	}
}

// A reference cycle that would apply schemas to the same value without end is refused when
// compiled; recursion that goes into the value (a tree) is fine.
func TestCycles(t *testing.T) {
	for _, schema := range []string{
		`{"$ref":"#"}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"allOf":[{"$ref":"#"}]}`,
		`{"anyOf":[{"type":"string"},{"$ref":"#"}]}`,
		`{"not":{"$ref":"#"}}`,
		`{"if":{"$ref":"#"}}`,
		`{"if":true,"then":{"$ref":"#"}}`,
		`{"dependentSchemas":{"a":{"$ref":"#"}}}`,
		`{"$defs":{"a":{"$anchor":"A","oneOf":[{"$ref":"#A"}]}}}`,
		`{"$dynamicAnchor":"m","allOf":[{"$dynamicRef":"#m"}]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$ref":"#/definitions/a"}}}`,
	} {
		_, err := Compile([]byte(schema))
		if err == nil || !strings.Contains(err.Error(), "a $ref cycle") {
			t.Errorf("%s: %v", schema, err)
		}
	}
	for _, schema := range []string{
		`{"properties":{"child":{"$ref":"#"}}}`,
		`{"items":{"$ref":"#"}}`,
		`{"then":{"$ref":"#"}}`, // no if: then never applies
		`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","definitions":{"a":{"properties":{"b":{"$ref":"#"}}}}}`,
	} {
		mustCompile(t, schema)
	}
	s := mustCompile(t, `{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}`)
	deep := strings.Repeat(`{"child":`, 5000) + `{"n":"x"}` + strings.Repeat("}", 5000)
	err := s.ValidateJSON([]byte(deep))
	if err == nil || !strings.Contains(err.Error(), "/child/child/") || !strings.Contains(err.Error(), "must be an integer") {
		t.Errorf("deep tree: %v", err)
	}
}

// Hostile schemas end in a clear error, quickly: none hangs or crashes the checker.
func TestHostileSchemas(t *testing.T) {
	deep := strings.Repeat(`{"not":`, 5000) + `{}` + strings.Repeat(`}`, 5000)
	if _, err := Compile([]byte(deep)); err == nil || !strings.Contains(err.Error(), "schemas nest more than 200 levels deep") {
		t.Errorf("5000 nested schemas: %v", err)
	}
	deepProps := strings.Repeat(`{"properties":{"a":`, 201) + `{}` + strings.Repeat(`}}`, 201)
	if _, err := Compile([]byte(deepProps)); err == nil || !strings.Contains(err.Error(), "nest more than 200") {
		t.Errorf("201 nested properties: %v", err)
	}
	mustCompile(t, strings.Repeat(`{"properties":{"a":`, 100)+`{}`+strings.Repeat(`}}`, 100))

	// A chain of 10,000 references, each to the next.
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range 10_000 {
		fmt.Fprintf(&b, `"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
	}
	b.WriteString(`"d10000":{"type":"integer"}}}`)
	s := mustCompile(t, b.String())
	if err := s.ValidateJSON([]byte(`"x"`)); err == nil || !strings.Contains(err.Error(), "must be an integer") {
		t.Errorf("ref chain: %v", err)
	}

	// The same chain closed into a loop.
	closed := strings.Replace(b.String(), `"d10000":{"type":"integer"}`, `"d10000":{"$ref":"#/$defs/d0"}`, 1)
	if _, err := Compile([]byte(closed)); err == nil || !strings.Contains(err.Error(), "a $ref cycle: #/$defs/d0 → #/$defs/d1 → #/$defs/d2 → #/$defs/d3 → … → #/$defs/d10000 → #/$defs/d0") {
		t.Errorf("ref loop of 10,001: %v", err)
	}

	// A schema whose work doubles at each of 40 levels: the check gives up with a CostError.
	b.Reset()
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range 40 {
		fmt.Fprintf(&b, `"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d40":false}}`)
	s = mustCompile(t, b.String())
	var ce *CostError
	if err := s.ValidateJSON([]byte(`{}`)); !errors.As(err, &ce) || !strings.Contains(err.Error(), "was given up after") {
		t.Errorf("exponential schema: %v", err)
	}

	// A wide schema: 20,000 properties, each checked.
	b.Reset()
	b.WriteString(`{"properties":{`)
	for i := range 20_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"integer","minimum":%d}`, i, i)
	}
	b.WriteString(`}}`)
	s = mustCompile(t, b.String())
	if err := s.ValidateJSON([]byte(`{"p0":0,"p19999":19999}`)); err != nil {
		t.Error(err)
	}
	if err := s.ValidateJSON([]byte(`{"p19999":1}`)); err == nil || !strings.Contains(err.Error(), "at /p19999: must be at least 19999, not 1") {
		t.Errorf("wide schema: %v", err)
	}
}

// Work that grows with the schema times the value (patterns times keys, long enums times items)
// is counted too: a large enough product gives up rather than runs for long.
func TestHostileProducts(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"patternProperties":{`)
	for i := range 3000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"^k%d$":{}`, i)
	}
	b.WriteString(`}}`)
	s := mustCompile(t, b.String())
	b.Reset()
	b.WriteByte('{')
	for i := range 3000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"x%d":1`, i)
	}
	b.WriteByte('}')
	var ce *CostError
	if err := s.ValidateJSON([]byte(b.String())); !errors.As(err, &ce) {
		t.Errorf("3000 patterns × 3000 keys: %v", err)
	}
	if err := s.ValidateJSON([]byte(`{"k1":1,"k2999":2,"zz":3}`)); err != nil {
		t.Errorf("3000 patterns × 3 keys: %v", err)
	}

	// 50,000 required names (duplicates found by a set, not by pairs), 5,000 resources.
	b.Reset()
	b.WriteString(`{"required":[`)
	for i := range 50_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"n%d"`, i)
	}
	b.WriteString(`,"n7"],"$defs":{`)
	for i := range 5000 {
		fmt.Fprintf(&b, `"r%d":{"$id":"r%d.json","x-data":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/x-data/s"}}},`, i, i)
	}
	b.WriteString(`"end":true}}`)
	if _, err := Compile([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "at /required/50000: repeats 'n7'") {
		t.Errorf("50,000 required: %v", err)
	}
}

// A message never carries a control character from the schema or the value: they are escaped.
func TestMessagesEscapeControls(t *testing.T) {
	s := mustCompile(t, `{"properties":{"a\u001b[31m":{"enum":["\u001b]0;x\u0007"]}},"additionalProperties":false}`)
	err := s.ValidateJSON([]byte(`{"a\u001b[31m":"\u001b[2J","b\u009b":1}`))
	if err == nil || strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }) {
		t.Fatalf("%q", err)
	}
	if !strings.Contains(err.Error(), `at /a\u001b[31m: must be one of "\x1b]0;x\a", not "\x1b[2J"`) || !strings.Contains(err.Error(), `'b\u009b'`) {
		t.Errorf("%s", err)
	}
	_, err = Compile([]byte(`{"properties":{"x\u0007":{"pattern":"(?=\u001b)"}}}`))
	if err == nil || strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 }) {
		t.Errorf("%q", err)
	}
}

// Numbers are exact decimals however they are written; huge exponents cost nothing.
func TestNumbers(t *testing.T) {
	cases := []struct {
		schema string
		fits   []string
		misfit []string
	}{
		{`{"type":"integer"}`, []string{`1`, `1.0`, `1e3`, `-0`, `12345678901234567890123`, `1.5e1`}, []string{`1.5`, `1e-3`, `"1"`}},
		{`{"maximum":9007199254740992}`, []string{`9007199254740992`, `9007199254740991.9`}, []string{`9007199254740993`, `1e16`}},
		{`{"exclusiveMinimum":0.1}`, []string{`0.10000000000000001`, `1e300`}, []string{`0.1`, `1e-300`, `-1e300`}},
		{`{"multipleOf":0.1}`, []string{`0.3`, `1e300`, `-7.7`, `0`}, []string{`0.31`, `1e-300`}},
		{`{"multipleOf":0.123456789}`, []string{`0.246913578`}, []string{`1e308`}},
		{`{"multipleOf":1e-300}`, []string{`1e300`, `3e-300`}, []string{`1e-301`}},
		{`{"multipleOf":7}`, []string{`7e999999999999`, `1.4e1`, `70000000000000000000000000000000000000007`}, []string{`1e999999999999`, `7.1`}},
		{`{"minimum":1e999999999999999999999}`, []string{`1e999999999999999999999`}, []string{`1e999999999`}},
		{`{"enum":[1,"1",[1.0],{"a":10}]}`, []string{`1.0`, `"1"`, `[1]`, `{"a":1e1}`}, []string{`2`, `"1.0"`, `[1,1]`}},
		{`{"const":{"a":[1,{"b":null}]}}`, []string{`{"a":[1.00,{"b":null}]}`}, []string{`{"a":[1,{"b":0}]}`, `{"a":[1,{}]}`}},
		{`{"uniqueItems":true}`, []string{`[1,2,"1",[1],{"a":1},{"a":2}]`}, []string{`[1,1.0]`, `[{"a":1,"b":2},{"b":2,"a":1.0}]`, `[[1e2],[100]]`}},
	}
	for _, c := range cases {
		s := mustCompile(t, c.schema)
		for _, v := range c.fits {
			if err := s.ValidateJSON([]byte(v)); err != nil {
				t.Errorf("%s: %s: %v", c.schema, v, err)
			}
		}
		for _, v := range c.misfit {
			if err := s.ValidateJSON([]byte(v)); err == nil {
				t.Errorf("%s: %s fits", c.schema, v)
			}
		}
	}
	s := mustCompile(t, `{"multipleOf":3}`)
	long := "1" + strings.Repeat("2", 2000)
	if err := s.ValidateJSON([]byte(long)); err == nil || !strings.Contains(err.Error(), "has too many digits to check that it is a multiple of 3") {
		t.Errorf("2001 digits: %v", err)
	}
}
