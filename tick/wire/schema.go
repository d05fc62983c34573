package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the library's messages; it needs one even for English.
var printer = message.NewPrinter(language.English)

// Schema is a compiled input_schema (spec 5.2). Both sides use it: the host checks args before
// sending a call (H-K1), the SDK checks them again on arrival (spec 7.2).
type Schema struct {
	compiled *jsonschema.Schema
}

// schemaURL is where a tool's schema lives while it is compiled; nothing is ever fetched from it.
const schemaURL = "tick:///input_schema.json"

// denyLoader refuses every external reference: a Tick's schema may not make the host read files
// or reach the network. The draft meta-schemas are built into the library and still resolve.
type denyLoader struct{}

func (denyLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s is not allowed in input_schema", url)
}

// CompileSchema checks that raw is a JSON object and a valid JSON Schema (draft 2020-12 unless it
// names another with $schema) and compiles it. Errors name the offending keyword path.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errors.New("input_schema must be a JSON object")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(trimmed))
	if err != nil {
		return nil, fmt.Errorf("input_schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(denyLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("input_schema: %w", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("input_schema is not a valid JSON Schema: %s", schemaError(err))
	}
	return &Schema{compiled: s}, nil
}

// Validate checks args against the schema. The error lists every field that does not fit, one
// per line, as "at /path: what is wrong".
func (s *Schema) Validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("args are not valid JSON: %w", err)
	}
	if err := s.compiled.Validate(v); err != nil {
		return errors.New(schemaError(err))
	}
	return nil
}

// schemaError flattens the library's error tree to lines a person can read.
func schemaError(err error) string {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		err = sve.Err // the schema broke its meta-schema: report where
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		var lines []string
		collectLeaves(ve, &lines)
		if len(lines) > 0 {
			return strings.Join(lines, "; ")
		}
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, schemaURL, "input_schema")
	return strings.ReplaceAll(msg, "\n", "; ")
}

func collectLeaves(e *jsonschema.ValidationError, out *[]string) {
	if len(e.Causes) == 0 {
		loc := "/" + strings.Join(e.InstanceLocation, "/")
		*out = append(*out, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}
