package jsonschema

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Every part of the value that does not fit is reported, each at its JSON Pointer, in the same
// order every time.
func TestValidateListsEveryMisfit(t *testing.T) {
	s := mustCompile(t, `{"type":"object","additionalProperties":false,"required":["customer","lines","total"],
	 "$defs":{"money":{"type":"object","required":["currency","cents"],"properties":{
	   "currency":{"type":"string","pattern":"^[A-Z]{3}$"},"cents":{"type":"integer","minimum":0}}}},
	 "properties":{
	  "customer":{"type":"object","properties":{"name":{"type":"string","minLength":1},"tier":{"enum":["free","pro"]}}},
	  "lines":{"type":"array","minItems":1,"items":{"type":"object","properties":{"qty":{"type":"integer","exclusiveMinimum":0},"price":{"$ref":"#/$defs/money"}}}},
	  "total":{"$ref":"#/$defs/money"},
	  "tags":{"type":"array","items":{"type":"string","maxLength":3},"uniqueItems":true,"maxItems":3}}}`)
	err := s.ValidateJSON([]byte(`{"customer":{"name":"","tier":"gold"},
	  "lines":[{"qty":0,"price":{"currency":"eur","cents":-1}},{"qty":1.5,"price":{"cents":"1"}}],
	  "tags":["a","a","long one","d"],"zz":1,"extra":true}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%v, want a ValidationError", err)
	}
	want := []string{
		`at /customer/name: must be at least 1 characters long, not 0`,
		`at /customer/tier: must be one of "free", "pro", not "gold"`,
		`at /lines/0/price/cents: must be at least 0, not -1`,
		`at /lines/0/price/currency: must match the pattern "^[A-Z]{3}$", not "eur"`,
		`at /lines/0/qty: must be greater than 0, not 0`,
		`at /lines/1/price/cents: must be an integer, not a string`,
		`at /lines/1/price: missing the required property 'currency'`,
		`at /lines/1/qty: must be an integer, not a number`,
		`at /tags/2: must be at most 3 characters long, not 8`,
		`at /tags: must have at most 3 items, not 4`,
		`at /tags: items 0 and 1 are equal; the items must be unique`,
		`at /: the properties 'extra', 'zz' are not allowed`,
		`at /: missing the required property 'total'`,
	}
	if got := err.Error(); got != strings.Join(want, "; ") {
		t.Errorf("got\n%s\nwant\n%s", strings.ReplaceAll(got, "; ", "\n"), strings.Join(want, "\n"))
	}
	for range 20 {
		if again := s.ValidateJSON([]byte(`{"customer":{"name":"","tier":"gold"},
	  "lines":[{"qty":0,"price":{"currency":"eur","cents":-1}},{"qty":1.5,"price":{"cents":"1"}}],
	  "tags":["a","a","long one","d"],"zz":1,"extra":true}`)); again.Error() != err.Error() {
			t.Fatalf("another order:\n%s\n%s", again, err)
		}
	}
}

// The messages of the other keywords: each says what was wanted and what came.
func TestValidateMessages(t *testing.T) {
	cases := []struct{ schema, value, want string }{
		{`{"type":["string","null"]}`, `1`, `at /: must be a string or null, not an integer`},
		{`{"const":"on"}`, `"off"`, `at /: must be "on", not "off"`},
		{`{"maximum":5}`, `6`, `at /: must be at most 5, not 6`},
		{`{"exclusiveMaximum":5}`, `5`, `at /: must be less than 5, not 5`},
		{`{"multipleOf":0.5}`, `0.7`, `at /: must be a multiple of 0.5, not 0.7`},
		{`{"maxLength":2}`, `"héé"`, `at /: must be at most 2 characters long, not 3`},
		{`{"minItems":2}`, `[1]`, `at /: must have at least 2 items, not 1`},
		{`{"contains":{"type":"string"}}`, `[1]`, `at /: must have at least 1 item(s) that fit the schema at #/contains, not 0`},
		{`{"contains":{"type":"string"},"maxContains":1}`, `["a","b"]`, `at /: must have at most 1 item(s) that fit the schema at #/contains, not 2`},
		{`{"contains":{"type":"string"},"minContains":0}`, `[1]`, ``},
		{`{"minProperties":1}`, `{}`, `at /: must have at least 1 properties, not 0`},
		{`{"maxProperties":1}`, `{"a":1,"b":2}`, `at /: must have at most 1 properties, not 2`},
		{`{"required":["a","b"]}`, `{}`, `at /: missing the required properties 'a', 'b'`},
		{`{"dependentRequired":{"a":["b","c"]}}`, `{"a":1}`, `at /: has 'a', so it must also have 'b', 'c'`},
		{`{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"ok":1,"No":2}`, `at /: the property name 'No' must match the pattern "^[a-z]+$", not "No"`},
		{`{"additionalProperties":{"type":"integer"}}`, `{"a":"x"}`, `at /a: must be an integer, not a string`},
		{`{"properties":{"a":false}}`, `{"a":1}`, `at /a: no value is allowed here (the schema at #/properties/a is false)`},
		{`{"prefixItems":[{}],"items":false}`, `[1,2,3]`, `at /: must have at most 1 items, not 3 (the schema at #/items is false)`},
		{`{"prefixItems":[{}],"unevaluatedItems":false}`, `[1,2,3]`, `at /: must not have the items 1, 2: no subschema allows them (the schema at #/unevaluatedItems is false)`},
		{`{"properties":{"a":true},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, `at /: the property 'b' is not allowed (no subschema declares it)`},
		{`{"not":{"type":"string"}}`, `"x"`, `at /: must not fit the schema at #/not`},
		{`{"anyOf":[{"type":"string"},{"type":"integer","minimum":3}]}`, `1`,
			`at /: fits none of the 2 alternatives of anyOf: (1) must be a string, not an integer (2) must be at least 3, not 1`},
		{`{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `1`, `at /: fits alternatives 1 and 2 of oneOf (#/oneOf); it must fit exactly one`},
		{`{"oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"c":{}}`,
			`at /: fits none of the 2 alternatives of oneOf: (1) missing the required property 'a' (2) missing the required property 'b'`},
		{`{"anyOf":[{"properties":{"k":{"const":"x"},"v":{"type":"string"}}},{"properties":{"k":{"const":"y"}}}]}`, `{"k":"x","v":1}`,
			`at /: fits none of the 2 alternatives of anyOf: (1) at /v: must be a string, not an integer (2) at /k: must be "y", not "x"`},
		{`{"if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["number"]},"else":{"required":["iban"]}}`, `{"kind":"card"}`,
			`at /: missing the required property 'number'`},
		{`{"if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["number"]},"else":{"required":["iban"]}}`, `{"kind":"bank"}`,
			`at /: missing the required property 'iban'`},
		{`{"enum":["a","b","c","d","e","f","g","h","i","j","k","l"]}`, `"z"`,
			`at /: must be one of "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", … (12 values), not "z"`},
		{`{"const":"x"}`, `"` + strings.Repeat("y", 100) + `"`, `at /: must be "x", not "` + strings.Repeat("y", 40) + `…"`},
	}
	for _, c := range cases {
		s := mustCompile(t, c.schema)
		err := s.ValidateJSON([]byte(c.value))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s / %s: %v", c.schema, c.value, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s / %s:\n got %v\nwant %s", c.schema, c.value, err, c.want)
		}
	}
}

// A value with thousands of misfits gets a short message: the first 20, and how many more.
func TestValidateManyMisfits(t *testing.T) {
	s := mustCompile(t, `{"items":{"type":"string"}}`)
	items := make([]string, 5000)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	err := s.ValidateJSON([]byte("[" + strings.Join(items, ",") + "]"))
	if err == nil || !strings.HasPrefix(err.Error(), "at /0: must be a string, not an integer; at /1:") ||
		!strings.HasSuffix(err.Error(), "at /19: must be a string, not an integer; and 4980 more") {
		t.Errorf("%v", err)
	}
}

// Not JSON, or JSON followed by more, is an error of Decode.
func TestDecode(t *testing.T) {
	for _, bad := range []string{``, `{`, `{} {}`, `{}x`, `nul`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
	if v, err := Decode([]byte(" {\"a\":[1.50]} \n")); err != nil || fmt.Sprint(v) != "map[a:[1.50]]" {
		t.Errorf("%v %v", v, err)
	}
}

// The decimal arithmetic agrees with math/big on any numbers.
func TestDecimalAgreesWithBig(t *testing.T) {
	num := rapid.Custom(func(t *rapid.T) string {
		s := rapid.SampledFrom([]string{"", "-"}).Draw(t, "sign")
		s += rapid.StringMatching(`(0|[1-9][0-9]{0,25})`).Draw(t, "int")
		if rapid.Bool().Draw(t, "frac") {
			s += "." + rapid.StringMatching(`[0-9]{1,20}`).Draw(t, "fracdigits")
		}
		if rapid.Bool().Draw(t, "exp") {
			s += rapid.SampledFrom([]string{"e", "E", "e+", "e-"}).Draw(t, "e") + fmt.Sprint(rapid.IntRange(0, 40).Draw(t, "expdigits"))
		}
		return s
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b := num.Draw(t, "a"), num.Draw(t, "b")
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		da, db := parseDecimal(a), parseDecimal(b)
		if got, want := da.cmp(db), ra.Cmp(rb); got != want {
			t.Fatalf("cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
		if got, want := da.isInteger(), ra.IsInt(); got != want {
			t.Fatalf("isInteger(%s) = %v, want %v", a, got, want)
		}
		if rb.Sign() > 0 {
			q := new(big.Rat).Quo(ra, rb)
			is, ok := da.multipleOf(db)
			if !ok || is != q.IsInt() {
				t.Fatalf("multipleOf(%s, %s) = %v %v, want %v", a, b, is, ok, q.IsInt())
			}
		}
		var ca, cb strings.Builder
		da.canonical(&ca)
		db.canonical(&cb)
		if (ca.String() == cb.String()) != (ra.Cmp(rb) == 0) {
			t.Fatalf("canonical %s → %s, %s → %s", a, ca.String(), b, cb.String())
		}
	})
}
