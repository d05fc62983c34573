package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"tickmux/tick/wire"
)

// Catalog is a descriptor that passed validation (H-D1), with every input_schema compiled.
// It never changes once built; a new describe makes a new Catalog.
type Catalog struct {
	Descriptor wire.Descriptor
	// Raw is the descriptor as the host re-encoded it (compact), unknown fields included.
	Raw     json.RawMessage
	schemas map[string]*wire.Schema
}

// Revision is the catalog's revision (H-D2: compared for equality only).
func (c *Catalog) Revision() string { return c.Descriptor.Revision }

// Tool returns the named tool, or nil.
func (c *Catalog) Tool(name string) *wire.Tool { return c.Descriptor.Tool(name) }

// CheckArgs validates args against the tool's input_schema (H-K1). The error lists each field
// that does not fit.
func (c *Catalog) CheckArgs(tool string, args json.RawMessage) error {
	_, err := c.checkArgs(tool, args)
	return err
}

// checkArgs is CheckArgs that also lists what of args was not checked (Unchecked, and patterns
// that ran past their time budget on these args), one sentence each.
func (c *Catalog) checkArgs(tool string, args json.RawMessage) ([]string, error) {
	s, ok := c.schemas[tool]
	if !ok || s == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTool, tool)
	}
	skipped, err := s.Check(args)
	if err != nil {
		return nil, err
	}
	return append(s.Unchecked(), skipped...), nil
}

// Unchecked lists, one sentence each, what of the tool's input_schema the host does not apply
// to args: a pattern it cannot run, a $schema it does not know (H-D1 never refuses a Tick for
// those). The args go to the Tick all the same, which checks them itself (spec 7.2). Nil when
// the host checks the whole schema, or the tool is unknown.
func (c *Catalog) Unchecked(tool string) []string {
	if s := c.schemas[tool]; s != nil {
		return s.Unchecked()
	}
	return nil
}

// DescriptorError lists every way a describe result breaks H-D1 (or H-I2).
type DescriptorError struct {
	Rule     string   // "H-D1", or "H-I2" for a version mismatch
	Problems []string // one sentence each
}

func (e *DescriptorError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid tick/describe result: " + e.Problems[0]
	}
	return "invalid tick/describe result: " + strings.Join(e.Problems, "; ")
}

// ParseDescriptor validates a tick/describe result (H-D1, H-I2, H-I3) and compiles its schemas.
func ParseDescriptor(raw json.RawMessage) (*Catalog, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, &DescriptorError{Rule: "H-D1", Problems: []string{"it is not valid JSON"}}
	}
	if n := wire.EncodedLen(compact.Bytes()); n > MaxDescribeBytes {
		return nil, &DescriptorError{Rule: "H-D1", Problems: []string{
			fmt.Sprintf("it is %d bytes re-encoded, over the limit of %d (512 KiB)", n, MaxDescribeBytes)}}
	}
	var top map[string]json.RawMessage
	if compact.Bytes()[0] != '{' || json.Unmarshal(compact.Bytes(), &top) != nil {
		return nil, &DescriptorError{Rule: "H-D1", Problems: []string{"it is not a JSON object"}}
	}

	// The version comes first: a Tick of another version may shape everything else differently.
	if why := checkProtocol(top); why != "" {
		return nil, &DescriptorError{Rule: "H-I2", Problems: []string{why}}
	}

	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	str := func(name string, required, nonBlank bool) string {
		v, ok := top[name]
		if !ok || string(v) == "null" {
			if required {
				bad("%s is missing", name)
			}
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			bad("%s is not a string", name)
			return ""
		}
		if nonBlank && strings.TrimSpace(s) == "" {
			bad("%s is empty", name)
		}
		return s
	}

	var d wire.Descriptor
	d.Protocol = wire.ProtocolVersion
	d.Kind = str("kind", true, true)
	d.Title = str("title", true, true)
	d.Description = str("description", false, false)
	d.Revision = str("revision", true, false)
	if _, ok := top["revision"]; ok && d.Revision == "" && string(top["revision"]) == `""` {
		bad("revision is an empty string")
	}
	d.RecoverWith = str("recover_with", false, false)

	schemas := map[string]*wire.Schema{}
	trimmed := map[string]bool{} // names compared without surrounding spaces (H-D1)
	var rawTools []json.RawMessage
	if v, ok := top["tools"]; !ok || string(v) == "null" {
		bad("tools is missing (a Tick with no tools has \"tools\": [])")
	} else if json.Unmarshal(v, &rawTools) != nil {
		bad("tools is not an array")
	}
	for i, rt := range rawTools {
		t, tprobs := parseTool(rt)
		for _, p := range tprobs {
			bad("tools[%d] %s", i, p)
		}
		if len(tprobs) > 0 && t.Name == "" {
			continue
		}
		if key := strings.TrimSpace(t.Name); trimmed[key] {
			bad("tools[%d] repeats the name %q (names are compared without surrounding spaces)", i, key)
			continue
		} else {
			trimmed[key] = true
		}
		if len(tprobs) == 0 {
			s, err := wire.CompileSchema(t.InputSchema)
			if err != nil {
				bad("tool %q: %v", t.Name, err)
				continue
			}
			if why := neverAnObject(t.InputSchema); why != "" {
				bad("tool %q: input_schema can never match the args object: %s", t.Name, why)
				continue
			}
			schemas[t.Name] = s
		} else {
			schemas[t.Name] = nil
		}
		d.Tools = append(d.Tools, t)
	}
	if d.Tools == nil {
		d.Tools = []wire.Tool{}
	}

	if d.RecoverWith != "" {
		switch t := d.Tool(d.RecoverWith); {
		case t == nil:
			bad("recover_with names %q, which is not in the catalog", d.RecoverWith)
		case t.Mutates:
			bad("recover_with names %q, which mutates; it must be a query (mutates: false)", d.RecoverWith)
		}
	} else if v, ok := top["recover_with"]; ok && string(v) == `""` {
		bad("recover_with is an empty string")
	}

	if v, ok := top["state"]; ok && string(v) != "null" {
		st, sprobs := parseStateDeclaration(v)
		probs = append(probs, sprobs...)
		d.State = st
	}

	if len(probs) > 0 {
		return nil, &DescriptorError{Rule: "H-D1", Problems: probs}
	}
	return &Catalog{Descriptor: d, Raw: json.RawMessage(compact.Bytes()), schemas: schemas}, nil
}

func parseTool(raw json.RawMessage) (wire.Tool, []string) {
	var t wire.Tool
	var probs []string
	var m map[string]json.RawMessage
	if bytes.TrimSpace(raw)[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return t, []string{"is not an object"}
	}
	if json.Unmarshal(m["name"], &t.Name) != nil || strings.TrimSpace(t.Name) == "" {
		t.Name = ""
		probs = append(probs, "has no name (a non-empty string)")
	}
	if v, ok := m["description"]; ok && json.Unmarshal(v, &t.Description) != nil {
		probs = append(probs, "has a description that is not a string")
	}
	if v, ok := m["input_schema"]; !ok || len(bytes.TrimSpace(v)) == 0 || bytes.TrimSpace(v)[0] != '{' {
		probs = append(probs, "has no input_schema object")
	} else {
		t.InputSchema = v
	}
	// mutates decides whether the person is asked: it must be stated, never guessed.
	if v, ok := m["mutates"]; !ok || json.Unmarshal(v, &t.Mutates) != nil {
		probs = append(probs, "has no mutates boolean")
	}
	if len(probs) > 0 && t.Name != "" {
		for i := range probs {
			probs[i] = fmt.Sprintf("(%q) %s", t.Name, probs[i])
		}
	}
	return t, probs
}

func parseStateDeclaration(raw json.RawMessage) (*wire.StateDeclaration, []string) {
	var probs []string
	var m map[string]json.RawMessage
	if bytes.TrimSpace(raw)[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, []string{"state is not an object"}
	}
	decl := &wire.StateDeclaration{}
	v, ok := m["series"]
	if !ok || string(v) == "null" {
		return decl, nil
	}
	var rawSeries []json.RawMessage
	if json.Unmarshal(v, &rawSeries) != nil {
		return nil, []string{"state.series is not an array"}
	}
	seen := map[string]bool{}
	for i, rs := range rawSeries {
		var s wire.Series
		var sm map[string]json.RawMessage
		if bytes.TrimSpace(rs)[0] != '{' || json.Unmarshal(rs, &sm) != nil {
			probs = append(probs, fmt.Sprintf("state.series[%d] is not an object", i))
			continue
		}
		if json.Unmarshal(sm["path"], &s.Path) != nil {
			probs = append(probs, fmt.Sprintf("state.series[%d] has no path string", i))
			continue
		}
		if !validPointer(s.Path) {
			probs = append(probs, fmt.Sprintf("state.series[%d].path %q is not a JSON Pointer (RFC 6901: \"\" or starting with /, ~ only in ~0 and ~1)", i, s.Path))
		}
		if seen[s.Path] {
			probs = append(probs, fmt.Sprintf("state.series[%d].path %q is declared twice", i, s.Path))
		}
		seen[s.Path] = true
		if json.Unmarshal(sm["newest"], &s.Newest) != nil || (s.Newest != wire.NewestFirst && s.Newest != wire.NewestLast) {
			probs = append(probs, fmt.Sprintf("state.series[%d].newest must be \"first\" or \"last\"", i))
		}
		decl.Series = append(decl.Series, s)
	}
	return decl, probs
}

// IsDescriptorError reports whether err is a rejected descriptor.
func IsDescriptorError(err error) bool {
	var de *DescriptorError
	return errors.As(err, &de)
}

// checkProtocol says what is wrong with the protocol member, "" when it is the number 3 (H-I2).
func checkProtocol(top map[string]json.RawMessage) string {
	v, ok := top["protocol"]
	if !ok {
		return fmt.Sprintf("it has no protocol field; this host speaks Tick protocol %d", wire.ProtocolVersion)
	}
	n, isInt, nonNeg := parseInteger(v)
	switch {
	case v[0] == '"':
		return fmt.Sprintf("protocol must be the number %d, got the string %s", wire.ProtocolVersion, shortJSON(v))
	case !isInt:
		return fmt.Sprintf("protocol must be the number %d, got %s", wire.ProtocolVersion, shortJSON(v))
	case !nonNeg || n != wire.ProtocolVersion:
		return fmt.Sprintf("unsupported Tick protocol version %s; this host speaks Tick protocol %d", shortJSON(v), wire.ProtocolVersion)
	}
	return ""
}

// neverAnObject says why a (valid) input_schema can match no JSON object at its top level, ""
// when it may match one. args are always an object (spec 7.1), so such a tool could never be
// called (H-D1). It reads the top-level type, const and enum; deeper reasoning is the schema's.
func neverAnObject(schema json.RawMessage) string {
	var top struct {
		Type  json.RawMessage   `json:"type"`
		Const json.RawMessage   `json:"const"`
		Enum  []json.RawMessage `json:"enum"`
	}
	if json.Unmarshal(schema, &top) != nil {
		return ""
	}
	isObject := func(v json.RawMessage) bool {
		v = bytes.TrimSpace(v)
		return len(v) > 0 && v[0] == '{'
	}
	if top.Type != nil {
		var one string
		var many []string
		switch {
		case json.Unmarshal(top.Type, &one) == nil:
			if one != "object" {
				return fmt.Sprintf("its type is %q", one)
			}
		case json.Unmarshal(top.Type, &many) == nil:
			if !slices.Contains(many, "object") {
				return fmt.Sprintf("its type %s does not include \"object\"", shortJSON(top.Type))
			}
		}
	}
	if top.Const != nil && !isObject(top.Const) {
		return fmt.Sprintf("its const %s is not an object", shortJSON(top.Const))
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(schema, &raw) == nil && raw["enum"] != nil && !slices.ContainsFunc(top.Enum, isObject) {
		return "its enum holds no object"
	}
	return ""
}

// validPointer reports whether p is an RFC 6901 JSON Pointer: "" or "/"-separated reference
// tokens in which "~" appears only as "~0" or "~1".
func validPointer(p string) bool {
	if p != "" && p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return false
		}
	}
	return true
}
