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
