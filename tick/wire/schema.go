package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"tickmux/tick/wire/jsonschema"
)

// Schema is a compiled input_schema (spec 5.2). Both sides use it: the host checks args before
// sending a call (H-K1), the SDK checks them again on arrival (spec 7.2).
type Schema struct {
	compiled *jsonschema.Schema
}

// CompileSchema checks that raw is a JSON object and a valid JSON Schema (draft 2020-12, or
// draft-07 when $schema names it; any other draft is refused) and compiles it. External
// references are refused: a Tick's schema never makes the host read a file or the network.
// Errors name the offending keyword path.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errors.New("input_schema must be a JSON object")
	}
	s, err := jsonschema.Compile(trimmed)
	var se *jsonschema.SchemaError
	switch {
	case errors.As(err, &se):
		return nil, fmt.Errorf("input_schema is not a valid JSON Schema: %v", se)
	case err != nil:
		return nil, fmt.Errorf("input_schema is not valid JSON: %w", err)
	}
	return &Schema{compiled: s}, nil
}

// Validate checks args against the schema. The error lists every part that does not fit, as
// "at /path: what is wrong", separated by "; ".
func (s *Schema) Validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := jsonschema.Decode(args)
	if err != nil {
		return fmt.Errorf("args are not valid JSON: %w", err)
	}
	return s.compiled.Validate(v)
}
