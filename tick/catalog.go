package tick

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"tickmux/tick/wire"
)

// Tick is what a Tick program declares about itself: the fields of its descriptor (spec 5.2)
// except protocol and revision, which the SDK fills in, and a Handler beside each tool.
type Tick struct {
	// Kind says what the program is: lower-case names separated by dots, publisher first, such as
	// "example.counter" (spec 5.4).
	Kind string
	// Title is a short name shown to people and models.
	Title string
	// Description is one or two sentences on what the Tick shows and does.
	Description string
	// Tools is the catalog. The revision is derived from it (see ToolSpec).
	Tools []ToolSpec
	// RecoverWith names a tool with Mutates false that rebuilds what latest-only updates dropped
	// (spec 9); empty when missed changes cannot be recovered.
	RecoverWith string
	// State declares the time-ordered arrays of the state's data (spec 5.2); nil declares none.
	State *wire.StateDeclaration
}

// ToolSpec is one tool of the catalog and the code that runs it.
//
// The catalog's revision is a digest of every tool's name, description, input schema and mutates
// flag, so it changes exactly when one of them changes (spec 5.5); handlers are not part of it.
type ToolSpec struct {
	// Name is unique within the catalog.
	Name string
	// Description is written for a model deciding whether to call the tool.
	Description string
	// InputSchema is the JSON Schema of args; its top level is an object. Nil means the tool
	// takes no arguments: {"type":"object","additionalProperties":false}.
	InputSchema json.RawMessage
	// Mutates says whether a call can change anything outside its own result: the Tick's state,
	// what the UI shows, files, remote services (spec 5.6). Declaring a mutating tool false lets
	// it run without the person's approval.
	Mutates bool
	// Handler runs a call whose args already fit InputSchema. See Handler for errors and panics.
	Handler Handler
}

// noArgs is the input schema of a tool that declares none.
var noArgs = json.RawMessage(`{"type":"object","additionalProperties":false}`)

// Descriptor limits (HOST.md, limits table).
const (
	maxDescriptorBytes = 512 << 10 // tick/describe result, re-encoded
	maxStateBytes      = 512 << 10 // tick/read result and tick/update params, re-encoded
	maxResultBytes     = 8 << 20   // a tick/call result, re-encoded
)

// catalog is one immutable version of the Tick's descriptor with everything needed to answer
// tick/describe and check a tick/call against it. SetTools swaps in a new one.
type catalog struct {
	revision string
	describe json.RawMessage // the encoded tick/describe result
	tools    map[string]*tool
}

// tool is a ToolSpec ready to run: its schema compiled.
type tool struct {
	spec   ToolSpec
	schema *wire.Schema
}

// newCatalog checks t the way a host checks a descriptor (spec 5.3, H-D1), so that a Tick the
// SDK serves can never fail initialization for a reason its author could have been told about.
func newCatalog(t Tick) (*catalog, error) {
	if strings.TrimSpace(t.Kind) == "" {
		return nil, errors.New("tick: Kind is empty; name the program, such as \"example.counter\"")
	}
	if strings.TrimSpace(t.Title) == "" {
		return nil, errors.New("tick: Title is empty; give the Tick a short name people will see")
	}
	c := &catalog{tools: make(map[string]*tool, len(t.Tools))}
	tools := make([]wire.Tool, 0, len(t.Tools))
	for i, spec := range t.Tools {
		if strings.TrimSpace(spec.Name) == "" {
			return nil, fmt.Errorf("tick: tool %d has an empty Name", i)
		}
		if _, dup := c.tools[spec.Name]; dup {
			return nil, fmt.Errorf("tick: two tools are named %q; names must be unique", spec.Name)
		}
		if spec.Handler == nil {
			return nil, fmt.Errorf("tick: tool %q has no Handler", spec.Name)
		}
		raw := spec.InputSchema
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = noArgs
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return nil, fmt.Errorf("tick: tool %q: input_schema is not valid JSON: %w", spec.Name, err)
		}
		schema, err := wire.CompileSchema(compact.Bytes())
		if err != nil {
			return nil, fmt.Errorf("tick: tool %q: %w", spec.Name, err)
		}
		spec.InputSchema = json.RawMessage(compact.Bytes())
		c.tools[spec.Name] = &tool{spec: spec, schema: schema}
		tools = append(tools, wire.Tool{Name: spec.Name, Description: spec.Description, InputSchema: spec.InputSchema, Mutates: spec.Mutates})
	}
	if t.RecoverWith != "" {
		r, ok := c.tools[t.RecoverWith]
		if !ok {
			return nil, fmt.Errorf("tick: RecoverWith names %q, which is not in the catalog", t.RecoverWith)
		}
		if r.spec.Mutates {
			return nil, fmt.Errorf("tick: RecoverWith names %q, which mutates; it must be a query tool", t.RecoverWith)
		}
	}
	if err := checkStateDeclaration(t.State); err != nil {
		return nil, err
	}

	toolsJSON, err := json.Marshal(tools)
	if err != nil {
		return nil, fmt.Errorf("tick: encoding the catalog: %w", err)
	}
	sum := sha256.Sum256(toolsJSON)
	c.revision = hex.EncodeToString(sum[:6])

	d := wire.Descriptor{
		Protocol:    wire.ProtocolVersion,
		Kind:        t.Kind,
		Title:       t.Title,
		Description: t.Description,
		Revision:    c.revision,
		Tools:       tools,
		RecoverWith: t.RecoverWith,
		State:       t.State,
	}
	c.describe, err = json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("tick: encoding the descriptor: %w", err)
	}
	if len(c.describe) > maxDescriptorBytes {
		return nil, fmt.Errorf("tick: the descriptor is %d bytes encoded; the limit is %d (spec 5.3)", len(c.describe), maxDescriptorBytes)
	}
	return c, nil
}

// checkStateDeclaration applies spec 5.3 to state.series: each path "" or starting with "/",
// no path twice, newest "first" or "last".
func checkStateDeclaration(s *wire.StateDeclaration) error {
	if s == nil {
		return nil
	}
	seen := make(map[string]bool, len(s.Series))
	for _, ser := range s.Series {
		if ser.Path != "" && !strings.HasPrefix(ser.Path, "/") {
			return fmt.Errorf("tick: state series path %q must be \"\" or start with \"/\" (a JSON Pointer)", ser.Path)
		}
		if seen[ser.Path] {
			return fmt.Errorf("tick: state series path %q is declared twice", ser.Path)
		}
		seen[ser.Path] = true
		if ser.Newest != wire.NewestFirst && ser.Newest != wire.NewestLast {
			return fmt.Errorf("tick: state series %q: Newest must be %q or %q", ser.Path, wire.NewestFirst, wire.NewestLast)
		}
	}
	return nil
}
