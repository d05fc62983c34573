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

// CompileSchema checks that raw is a JSON object and a valid JSON Schema (draft 2020-12, or the
// draft $schema names: draft-04, -06, -07 or 2019-09) and compiles it. External references are
// refused: a Tick's schema never makes the host read a file or the network. Errors name the
// offending keyword path. What the host cannot apply (a pattern it cannot run, a $schema it does
// not know) is never a reason to refuse: Unchecked lists it.
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

// Unchecked lists, one sentence each, what of the schema is not applied to args (spec 7.2: the
// Tick checks its args itself): "at /properties/a/pattern: the pattern ... is not checked: ...".
func (s *Schema) Unchecked() []string {
	return problemStrings(s.compiled.Unchecked())
}

// Validate checks args against the schema. The error lists every part that does not fit, as
// "at /path: what is wrong", separated by "; ".
func (s *Schema) Validate(args json.RawMessage) error {
	_, err := s.Check(args)
	return err
}

// Check is Validate that also lists the parts of args not checked against a pattern that ran
// past its time budget (they were taken as fitting), one sentence each.
func (s *Schema) Check(args json.RawMessage) (skipped []string, err error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := jsonschema.Decode(args)
	if err != nil {
		return nil, fmt.Errorf("args are not valid JSON: %w", err)
	}
	sk, err := s.compiled.Check(v)
	return problemStrings(sk), err
}

func problemStrings(ps []jsonschema.Problem) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}
