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
		{`{"items":[{}]}`, []string{`at /items: must be a schema; an array of schemas is the form of drafts before 2020-12 (in draft 2020-12 use prefixItems)`}},
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

// Patterns are ECMA-262 regular expressions, as every draft says: lookahead, lookbehind and
// backreferences work, in pattern and in patternProperties alike.
//
// spec: 5.3
func TestPatterns(t *testing.T) {
	for _, c := range []struct {
		pattern       string
		match, differ []string
	}{
		{`^(?!-)[a-z-]+$`, []string{"ab-c", "a-"}, []string{"-ab", "AB", ""}},
		{`^(?!\\s*$).+`, []string{"x", " x "}, []string{"", "   ", "\\t"}},
		{`(?<=\\$)\\d+`, []string{"$12"}, []string{"12", "€12"}},
		{`(?<!\\$)\\b\\d+`, []string{"12"}, []string{"$12"}},
		{`^(\\w)\\1$`, []string{"aa", "77"}, []string{"ab", "a"}},
		{`^(?<q>['\"]).*\\k<q>$`, []string{`'x'`, `\"y\"`}, []string{`'x\"`}},
		{`^\\p{Lu}\\p{Ll}+$`, []string{"Émile"}, []string{"émile"}},
		{`^.$`, []string{"😀"}, []string{"😀😀"}},
	} {
		s := mustCompile(t, fmt.Sprintf(`{"properties":{"s":{"pattern":"%s"}}}`, c.pattern))
		pp := mustCompile(t, fmt.Sprintf(`{"patternProperties":{"%s":{"const":1}},"additionalProperties":{"const":2}}`, c.pattern))
		if u := append(s.Unchecked(), pp.Unchecked()...); u != nil {
			t.Errorf("%s: not checked: %v", c.pattern, u)
		}
		for _, m := range c.match {
			if err := s.ValidateJSON([]byte(`{"s":"` + m + `"}`)); err != nil {
				t.Errorf("%s should match %s: %v", c.pattern, m, err)
			}
			if err := pp.ValidateJSON([]byte(`{"` + m + `":1}`)); err != nil {
				t.Errorf("%s: property %s should fit patternProperties: %v", c.pattern, m, err)
			}
		}
		for _, d := range c.differ {
			if err := s.ValidateJSON([]byte(`{"s":"` + d + `"}`)); err == nil || !strings.Contains(err.Error(), "must match the pattern") {
				t.Errorf("%s should not match %s: %v", c.pattern, d, err)
			}
			if err := pp.ValidateJSON([]byte(`{"` + d + `":2}`)); err != nil {
				t.Errorf("%s: property %s should be additional: %v", c.pattern, d, err)
			}
		}
	}
	// Patterns search unless anchored; \d is ASCII digits, \p{L} a letter in any script.
	s := mustCompile(t, `{"properties":{"a":{"pattern":"\\d"},"b":{"pattern":"^\\p{L}+$"}}}`)
	if err := s.ValidateJSON([]byte(`{"a":"x1y","b":"héllo"}`)); err != nil {
		t.Error(err)
	}
	if err := s.ValidateJSON([]byte(`{"a":"١","b":"a1"}`)); err == nil || !strings.Contains(err.Error(), "at /a:") || !strings.Contains(err.Error(), "at /b:") {
		t.Errorf("pattern misfits: %v", err)
	}
}

// A pattern that backtracks without end ("(a+)+$" on a long string) runs within its time budget:
// Check completes, says which value was not checked against which pattern and why, and takes it
// as matched (the Tick checks its args itself, spec 7.2). Later patterns in the same check are
// skipped once the check's patterns have used their budget.
//
// spec: 7.2
// spec: H-K1
func TestCatastrophicPatternWithinBudget(t *testing.T) {
	s := mustCompile(t, `{"properties":{"s":{"pattern":"^(a+)+$"},"t":{"pattern":"^(a|aa)+$"}},"patternProperties":{"^(b+)+$":{"const":0}},"additionalProperties":false}`)
	long := strings.Repeat("a", 5000) + "!"
	skipped, err := s.Check(mustDecode(t, `{"s":"`+long+`"}`))
	if err != nil {
		t.Fatalf("a value the host could not check was refused: %v", err)
	}
	if len(skipped) != 1 || skipped[0].Path != "/s" || !strings.Contains(skipped[0].String(), `not checked against the pattern "^(a+)+$": the match ran past its time budget`) {
		t.Fatalf("skipped: %v", skipped)
	}
	// Many hostile matches in one check: past the check's budget, the rest are not run.
	var b strings.Builder
	b.WriteString(`{"s":"` + long + `","t":"` + long + `"`)
	for i := range 20 {
		fmt.Fprintf(&b, `,"%s%d":0`, strings.Repeat("b", 3000), i)
	}
	b.WriteString("}")
	skipped, err = s.Check(mustDecode(t, b.String()))
	if err != nil || len(skipped) != 24 { // s and t, then every key against the patternProperties
		t.Fatalf("skipped %d (%v): %v", len(skipped), err, skipped)
	}
	if all := fmt.Sprint(skipped); !strings.Contains(all, "the patterns of this check used their") ||
		!strings.Contains(all, "at /bbbbbb") || !strings.Contains(all, "the property name is not checked against the pattern") {
		t.Errorf("no check-wide budget: %v", skipped)
	}
	// The same pattern still says no, at once, where it can tell.
	if _, err := s.Check(mustDecode(t, `{"s":"ab"}`)); err == nil {
		t.Error(`"ab" fits ^(a+)+$`)
	}
}

// A pattern the host cannot run (not ECMA-262 as this engine reads it, or over 10,000 bytes) is
// not applied, never refused: the schema compiles, Unchecked names it, and values pass it.
//
// spec: 5.3
// spec: H-D1
func TestPatternsNotCheckedAreNotRefused(t *testing.T) {
	huge := strings.Repeat("(x|y)", 2001)
	s := mustCompile(t, `{"properties":{"a":{"pattern":"(unclosed"},"b":{"pattern":"`+huge+`"}},"patternProperties":{"[z-a]":{"const":0}}}`)
	u := fmt.Sprint(s.Unchecked())
	for _, want := range []string{`at /patternProperties/[z-a]: the pattern "[z-a]" is not checked`, `at /properties/a/pattern: the pattern "(unclosed" is not checked`,
		"at /properties/b/pattern:", "10005 bytes long, over the 10000 this host runs"} {
		if !strings.Contains(u, want) {
			t.Errorf("Unchecked lacks %q: %s", want, u)
		}
	}
	if err := s.ValidateJSON([]byte(`{"a":"x","b":"z","zz":5}`)); err != nil {
		t.Error(err)
	} // A pattern nested 4,998 groups deep, just under the limit, compiles and runs.
	deep := mustCompile(t, `{"pattern":"^`+strings.Repeat("(", 4998)+"x"+strings.Repeat(")", 4998)+`$"}`)
	if deep.Unchecked() != nil || deep.ValidateJSON([]byte(`"x"`)) != nil || deep.ValidateJSON([]byte(`"y"`)) == nil {
		t.Errorf("deep pattern: %v", deep.Unchecked())
	}
}

// Every published draft a Tick may name is checked as that draft; none named means 2020-12.
//
// spec: 5.3
// spec: H-D1
func TestDrafts(t *testing.T) {
	for uri, want := range map[string]Draft{
		"https://json-schema.org/draft/2020-12/schema":  Draft2020,
		"https://json-schema.org/draft/2020-12/schema#": Draft2020,
		"https://json-schema.org/draft/2019-09/schema":  Draft2019,
		"http://json-schema.org/draft-07/schema#":       Draft7,
		"http://json-schema.org/draft-07/schema":        Draft7,
		"https://json-schema.org/draft-07/schema#":      Draft7,
		"http://json-schema.org/draft-06/schema#":       Draft6,
		"http://json-schema.org/draft-04/schema#":       Draft4,
		"http://json-schema.org/draft-04/schema":        Draft4,
	} {
		s := mustCompile(t, `{"$schema":"`+uri+`"}`)
		if s.Draft() != want || s.Unchecked() != nil {
			t.Errorf("%s: %v, want %v (unchecked %v)", uri, s.Draft(), want, s.Unchecked())
		}
	}
	if s := mustCompile(t, `{}`); s.Draft() != Draft2020 {
		t.Errorf("default draft %v", s.Draft())
	}
	if _, err := Compile([]byte(`{"$schema":7}`)); err == nil || !strings.Contains(err.Error(), "at /$schema: must be a string") {
		t.Errorf("$schema 7: %v", err)
	}
	const d4, d2019 = `"$schema":"http://json-schema.org/draft-04/schema#",`, `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	for _, c := range []struct {
		what, schema string
		fit, misfit  []string
	}{
		{"draft-04 exclusiveMaximum true", `{` + d4 + `"properties":{"n":{"maximum":10,"exclusiveMaximum":true,"minimum":1,"exclusiveMinimum":true}}}`,
			[]string{`{"n":9.5}`, `{"n":2}`}, []string{`{"n":10}`, `{"n":1}`}},
		{"draft-04 exclusiveMaximum false", `{` + d4 + `"properties":{"n":{"maximum":10,"exclusiveMaximum":false}}}`,
			[]string{`{"n":10}`}, []string{`{"n":10.5}`}},
		{"draft-04 id and its fragment", `{` + d4 + `"id":"http://example.com/root.json","definitions":{"s":{"id":"#str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`,
			[]string{`{"a":"x"}`}, []string{`{"a":1}`}},
		{"draft-04 knows no const", `{` + d4 + `"properties":{"a":{"const":1}}}`, []string{`{"a":2}`}, nil},
		{"draft-06 const and contains", `{"$schema":"http://json-schema.org/draft-06/schema#","properties":{"a":{"const":1},"l":{"contains":{"type":"string"}}}}`,
			[]string{`{"a":1,"l":[1,"x"]}`}, []string{`{"a":2}`, `{"l":[1]}`}},
		{"draft-06 knows no if", `{"$schema":"http://json-schema.org/draft-06/schema#","if":{"required":["a"]},"then":false}`, []string{`{"a":1}`}, nil},
		{"2019-09 $recursiveRef", `{` + d2019 + `"$id":"https://example.com/tree","$recursiveAnchor":true,"type":"object","properties":{"kids":{"type":"array","items":{"$recursiveRef":"#"}}},` +
			`"$defs":{"strict":{"$id":"https://example.com/strict","$recursiveAnchor":true,"$ref":"tree","unevaluatedProperties":false}}}`,
			[]string{`{"kids":[{"kids":[]}]}`}, []string{`{"kids":[5]}`}},
		{"2019-09 items array and additionalItems", `{` + d2019 + `"items":[{"type":"string"}],"additionalItems":false}`,
			[]string{`["a"]`}, []string{`["a",1]`, `[1]`}},
		{"2019-09 unevaluatedItems, contains not counted", `{` + d2019 + `"contains":{"type":"string"},"unevaluatedItems":false}`,
			nil, []string{`["a"]`}},
	} {
		s := mustCompile(t, c.schema)
		for _, v := range c.fit {
			if err := s.ValidateJSON([]byte(v)); err != nil {
				t.Errorf("%s: %s should fit: %v", c.what, v, err)
			}
		}
		for _, v := range c.misfit {
			if err := s.ValidateJSON([]byte(v)); err == nil {
				t.Errorf("%s: %s should not fit", c.what, v)
			}
		}
	}
	if err := mustCompile(t, `{"contains":{"type":"string"},"unevaluatedItems":false}`).ValidateJSON([]byte(`["a"]`)); err != nil {
		t.Errorf("2020-12: contains marks what it matched as evaluated: %v", err)
	}
	// 2019-09's $recursiveRef follows the outermost $recursiveAnchor: through the strict
	// extension, nested nodes are strict too.
	strict := mustCompile(t, `{`+d2019+`"$id":"https://example.com/strict","$recursiveAnchor":true,"$ref":"tree","unevaluatedProperties":false,`+
		`"$defs":{"tree":{"$id":"https://example.com/tree","$recursiveAnchor":true,"type":"object","properties":{"kids":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`)
	if err := strict.ValidateJSON([]byte(`{"kids":[{"kids":[],"extra":1}]}`)); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("$recursiveRef did not follow the dynamic scope: %v", err)
	}
}

// A $schema the host does not know is checked as 2020-12 and says so; draft-03, whose keywords
// mean other things, and an unknown one that is not valid 2020-12 are not checked at all: the
// Tick is never refused for a draft, and its args go to it, which checks them (spec 7.2).
//
// spec: 5.3
// spec: H-D1
func TestUnknownDrafts(t *testing.T) {
	s := mustCompile(t, `{"$schema":"https://spec.openapis.org/oas/3.1/dialect/base","properties":{"a":{"type":"integer"}}}`)
	if u := fmt.Sprint(s.Unchecked()); !strings.Contains(u, `at /$schema: "https://spec.openapis.org/oas/3.1/dialec…" is not a JSON Schema draft this host knows`) ||
		!strings.Contains(u, "checked as draft 2020-12") {
		t.Errorf("unchecked: %s", u)
	}
	if err := s.ValidateJSON([]byte(`{"a":"x"}`)); err == nil {
		t.Error("an unknown $schema's schema is not applied")
	}
	for schema, want := range map[string]string{
		`{"$schema":"http://json-schema.org/draft-03/schema#","properties":{"a":{"required":true}}}`: "draft-03, whose keywords mean other things",
		`{"$schema":"https://example.com/mine","type":"objekt"}`:                                     "and is not valid as such",
	} {
		s := mustCompile(t, schema)
		if u := fmt.Sprint(s.Unchecked()); !strings.Contains(u, want) || !strings.Contains(u, "nothing of") {
			t.Errorf("%s: unchecked %s", schema, u)
		}
		if err := s.ValidateJSON([]byte(`{"b":1}`)); err != nil {
			t.Errorf("%s: %v", schema, err)
		}
	}
	// A subschema naming another draft is checked as the document's, and says so.
	s = mustCompile(t, `{"$defs":{"a":{"$id":"a.json","$schema":"http://json-schema.org/draft-07/schema#"}}}`)
	if u := fmt.Sprint(s.Unchecked()); !strings.Contains(u, "at /$defs/a/$schema: names \"http://json-schema.org/draft-07/schema#\" inside a draft 2020-12 schema: checked as draft 2020-12") {
		t.Errorf("switching drafts: %s", u)
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
	u := fmt.Sprint(mustCompile(t, `{"properties":{"x\u0007":{"pattern":"(\u001b"}}}`).Unchecked())
	if !strings.Contains(u, "not checked") || strings.ContainsFunc(u, func(r rune) bool { return r < 0x20 }) {
		t.Errorf("%q", u)
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

func mustDecode(t *testing.T, data string) any {
	t.Helper()
	v, err := Decode([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
