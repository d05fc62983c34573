package jsonschema

import (
	"errors"
	"testing"
)

// FuzzCompileValidate: any schema and any value end in a schema, a SchemaError or a decode
// error, then in nil, a ValidationError or a CostError; never a panic or a hang.
func FuzzCompileValidate(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a"],"additionalProperties":false}`), []byte(`{"a":0,"b":1}`))
	f.Add([]byte(`{"$defs":{"t":{"properties":{"c":{"$ref":"#/$defs/t"}},"unevaluatedProperties":false}},"$ref":"#/$defs/t"}`), []byte(`{"c":{"c":{"d":1}}}`))
	f.Add([]byte(`{"$dynamicAnchor":"m","items":{"$dynamicRef":"#m"},"prefixItems":[{"const":1}],"unevaluatedItems":false}`), []byte(`[1,[1,2]]`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":{"enum":[1,1.0]},"dependencies":{"a":["b"]}}`), []byte(`[1,2,1e0]`))
	f.Add([]byte(`{"anyOf":[{"multipleOf":0.01},{"pattern":"^a+$"}],"oneOf":[{"not":{}},{"contains":true,"minContains":2}],"if":{"uniqueItems":true},"then":{"maxItems":1}}`), []byte(`[1e-400,"aaa"]`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-04/schema#","id":"#r","properties":{"n":{"maximum":1,"exclusiveMaximum":true}},"patternProperties":{"^(?!x)(?<=^)\\w+$":{"$ref":"#r"}}}`), []byte(`{"n":1,"ab":{}}`))
	f.Add([]byte(`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"},"pattern":"^(a)\\1$"}`), []byte(`[[],"aa"]`))
	f.Fuzz(func(t *testing.T, schema, value []byte) {
		s, err := Compile(schema)
		if err != nil {
			return
		}
		v, err := Decode(value)
		if err != nil {
			return
		}
		err = s.Validate(v)
		var ve *ValidationError
		var ce *CostError
		if err != nil && !errors.As(err, &ve) && !errors.As(err, &ce) {
			t.Fatalf("error of another type: %v", err)
		}
		if ve != nil && len(ve.Problems) == 0 {
			t.Fatalf("a ValidationError with no problem")
		}
	})
}
