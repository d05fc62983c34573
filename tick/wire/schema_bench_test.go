package wire

import (
	"encoding/json"
	"testing"
)

// benchSmall is the counter example's increment schema: what most tools look like.
const benchSmall = `{"type":"object","properties":{"amount":{"type":"integer","minimum":1,"maximum":1000}},"required":["amount"],"additionalProperties":false}`

// benchLarge is a tool schema as generators write them: $defs and $ref, nested objects, enums,
// patterns, anyOf, arrays of objects.
const benchLarge = `{"type":"object","$defs":{
 "money":{"type":"object","properties":{"currency":{"type":"string","pattern":"^[A-Z]{3}$"},"cents":{"type":"integer","minimum":0}},"required":["currency","cents"],"additionalProperties":false},
 "line":{"type":"object","properties":{"sku":{"type":"string","minLength":1,"maxLength":64},"qty":{"type":"integer","minimum":1},"price":{"$ref":"#/$defs/money"},"note":{"anyOf":[{"type":"string","maxLength":200},{"type":"null"}]}},"required":["sku","qty","price"]}},
 "properties":{
  "customer":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string","format":"email"},"tier":{"enum":["free","pro","enterprise"]}},"required":["name"]},
  "lines":{"type":"array","items":{"$ref":"#/$defs/line"},"minItems":1,"maxItems":100},
  "total":{"$ref":"#/$defs/money"},
  "tags":{"type":"array","items":{"type":"string"},"uniqueItems":true},
  "priority":{"type":"integer","minimum":0,"maximum":10,"default":5},
  "dry_run":{"type":"boolean"}},
 "required":["customer","lines","total"],"additionalProperties":false}`

const benchLargeArgs = `{"customer":{"name":"Ada","email":"ada@example.com","tier":"pro"},
 "lines":[{"sku":"A-1","qty":2,"price":{"currency":"EUR","cents":1250}},{"sku":"B-7","qty":1,"price":{"currency":"EUR","cents":999},"note":"gift wrap"},{"sku":"C-3","qty":5,"price":{"currency":"EUR","cents":100},"note":null}],
 "total":{"currency":"EUR","cents":3999},"tags":["rush","gift"],"priority":3,"dry_run":false}`

const benchLargeBad = `{"customer":{"tier":"gold"},"lines":[{"sku":"","qty":0,"price":{"currency":"eur","cents":-1}}],"total":{"currency":"EUR"},"tags":["a","a"],"priority":11,"extra":true}`

func BenchmarkCompileSchema(b *testing.B) {
	for _, c := range []struct{ name, schema string }{{"small", benchSmall}, {"large", benchLarge}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CompileSchema(json.RawMessage(c.schema)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, c := range []struct {
		name, schema, args string
		ok                 bool
	}{
		{"small", benchSmall, `{"amount":5}`, true},
		{"small-bad", benchSmall, `{"amount":"5","x":1}`, false},
		{"large", benchLarge, benchLargeArgs, true},
		{"large-bad", benchLarge, benchLargeBad, false},
	} {
		s, err := CompileSchema(json.RawMessage(c.schema))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Validate(json.RawMessage(c.args)); (err == nil) != c.ok {
					b.Fatalf("valid %v: %v", c.ok, err)
				}
			}
		})
	}
}
