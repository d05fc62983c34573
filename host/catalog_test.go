package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// goodDescriptor is a valid describe result; cases below break it one way at a time.
const goodDescriptor = `{"protocol":3,"kind":"example.counter","title":"Counter","description":"One value.",
"revision":"1","tools":[
 {"name":"increment","description":"Add.","input_schema":{"type":"object","properties":{"amount":{"type":"integer"}},"required":["amount"],"additionalProperties":false},"mutates":true},
 {"name":"history","description":"Read.","input_schema":{"type":"object"},"mutates":false}],
"recover_with":"history","state":{"series":[{"path":"/recent","newest":"last"},{"path":"","newest":"first"}]}}`

// edit returns goodDescriptor with f applied to its decoded form.
func edit(t *testing.T, f func(d map[string]any)) string {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal([]byte(goodDescriptor), &d); err != nil {
		t.Fatal(err)
	}
	f(d)
	b, _ := json.Marshal(d)
	return string(b)
}

func tools(d map[string]any) []any { return d["tools"].([]any) }
func tool0(d map[string]any) map[string]any {
	return tools(d)[0].(map[string]any)
}

// spec: H-D1
func TestParseDescriptorRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, want string
		f          func(d map[string]any)
	}{
		{"kind blank", "kind is empty", func(d map[string]any) { d["kind"] = " \t" }},
		{"kind missing", "kind is missing", func(d map[string]any) { delete(d, "kind") }},
		{"kind not a string", "kind is not a string", func(d map[string]any) { d["kind"] = 5 }},
		{"title blank", "title is empty", func(d map[string]any) { d["title"] = "  " }},
		{"revision empty", "revision is an empty string", func(d map[string]any) { d["revision"] = "" }},
		{"revision missing", "revision is missing", func(d map[string]any) { delete(d, "revision") }},
		{"revision a number", "revision is not a string", func(d map[string]any) { d["revision"] = 1 }},
		{"tools missing", "tools is missing", func(d map[string]any) { delete(d, "tools") }},
		{"tools not an array", "tools is not an array", func(d map[string]any) { d["tools"] = map[string]any{} }},
		{"tool name blank", "has no name", func(d map[string]any) { tool0(d)["name"] = " " }},
		{"tool names repeat", `repeats the name "increment"`, func(d map[string]any) {
			tools(d)[1].(map[string]any)["name"] = "increment"
			delete(d, "recover_with")
		}},
		{"schema not an object", "has no input_schema object", func(d map[string]any) { tool0(d)["input_schema"] = []any{} }},
		{"schema missing", "has no input_schema object", func(d map[string]any) { delete(tool0(d), "input_schema") }},
		{"schema invalid type", "not a valid JSON Schema: at /type", func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"type": "objekt"}
		}},
		{"schema invalid keyword value", "/properties/a/minLength", func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"properties": map[string]any{"a": map[string]any{"minLength": -1}}}
		}},
		{"schema external ref", "external reference", func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"$ref": "file:///etc/passwd"}
		}},
		{"schema ref to a meta-schema", `at /properties/a/$ref: external reference "http://json-schema.org/draft-07/schema#" is not allowed`, func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"properties": map[string]any{"a": map[string]any{"$ref": "http://json-schema.org/draft-07/schema#"}}}
		}},
		{"schema ref cycle", "not a valid JSON Schema: at /$defs/a: a $ref cycle: #/$defs/a → #/$defs/b → #/$defs/b/allOf/0 → #/$defs/a", func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"$ref": "#/$defs/a", "$defs": map[string]any{
				"a": map[string]any{"$ref": "#/$defs/b"}, "b": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/a"}}}}}
		}},
		{"schema nested 1000 deep", "schemas nest more than 200 levels deep", func(d map[string]any) {
			s := map[string]any{}
			for range 1000 {
				s = map[string]any{"not": s}
			}
			tool0(d)["input_schema"] = s
		}},
		{"mutates missing", "has no mutates boolean", func(d map[string]any) { delete(tool0(d), "mutates") }},
		{"mutates a string", "has no mutates boolean", func(d map[string]any) { tool0(d)["mutates"] = "no" }},
		{"recover_with unknown", `recover_with names "nope"`, func(d map[string]any) { d["recover_with"] = "nope" }},
		{"recover_with mutating", "which mutates", func(d map[string]any) { d["recover_with"] = "increment" }},
		{"series path relative", "is not a JSON Pointer", func(d map[string]any) {
			d["state"] = map[string]any{"series": []any{map[string]any{"path": "recent", "newest": "last"}}}
		}},
		{"series path repeated", "declared twice", func(d map[string]any) {
			s := map[string]any{"path": "/a", "newest": "last"}
			d["state"] = map[string]any{"series": []any{s, s}}
		}},
		{"series newest bad", `newest must be "first" or "last"`, func(d map[string]any) {
			d["state"] = map[string]any{"series": []any{map[string]any{"path": "/a", "newest": "middle"}}}
		}},
		{"tool names repeat but for spaces", `repeats the name "increment"`, func(d map[string]any) {
			tools(d)[1].(map[string]any)["name"] = " increment\t"
			delete(d, "recover_with")
		}},
		{"schema type string", `input_schema can never match the args object: its type is "string"`, func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"type": "string"}
		}},
		{"schema types without object", `does not include "object"`, func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"type": []any{"array", "null"}}
		}},
		{"schema const not an object", "its const 5 is not an object", func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"const": 5}
		}},
		{"schema enum without an object", "its enum holds no object", func(d map[string]any) {
			tool0(d)["input_schema"] = map[string]any{"enum": []any{1, "a"}}
		}},
		{"series path bad tilde", "is not a JSON Pointer", func(d map[string]any) {
			d["state"] = map[string]any{"series": []any{map[string]any{"path": "/a~2b", "newest": "last"}}}
		}},
		{"series path trailing tilde", "is not a JSON Pointer", func(d map[string]any) {
			d["state"] = map[string]any{"series": []any{map[string]any{"path": "/a~", "newest": "last"}}}
		}},
		{"too big", "over the limit of 524288", func(d map[string]any) { d["description"] = strings.Repeat("d", 512<<10) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDescriptor(json.RawMessage(edit(t, c.f)))
			var de *DescriptorError
			if !errors.As(err, &de) {
				t.Fatalf("accepted; want an error containing %q", c.want)
			}
			if de.Rule != "H-D1" {
				t.Errorf("rule %s, want H-D1", de.Rule)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// spec: H-D1
func TestParseDescriptorListsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := ParseDescriptor(json.RawMessage(edit(t, func(d map[string]any) {
		d["kind"] = ""
		d["title"] = ""
		d["recover_with"] = "increment"
	})))
	var de *DescriptorError
	if !errors.As(err, &de) || len(de.Problems) != 3 {
		t.Fatalf("problems: %v", err)
	}
}

// spec: H-I2 — a version other than 3 names both versions; a protocol that is not a number
// says so rather than claiming a version mismatch.
func TestParseDescriptorVersion(t *testing.T) {
	t.Parallel()
	for v, want := range map[any]string{
		2:     "unsupported Tick protocol version 2; this host speaks Tick protocol 3",
		4:     "unsupported Tick protocol version 4; this host speaks Tick protocol 3",
		-3:    "unsupported Tick protocol version -3; this host speaks Tick protocol 3",
		"3":   `protocol must be the number 3, got the string "3"`,
		3.5:   "protocol must be the number 3, got 3.5",
		true:  "protocol must be the number 3, got true",
		"two": `protocol must be the number 3, got the string "two"`,
	} {
		_, err := ParseDescriptor(json.RawMessage(edit(t, func(d map[string]any) { d["protocol"] = v })))
		var de *DescriptorError
		if !errors.As(err, &de) || de.Rule != "H-I2" {
			t.Fatalf("protocol %v: %v", v, err)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("protocol %v: message %q, want %q", v, err, want)
		}
	}
	for _, ok := range []string{`3`, `3.0`, `3e0`, `0.3e1`} {
		raw := strings.Replace(goodDescriptor, `"protocol":3`, `"protocol":`+ok, 1)
		if _, err := ParseDescriptor(json.RawMessage(raw)); err != nil {
			t.Errorf("protocol %s (the number 3): %v", ok, err)
		}
	}
}

// spec: H-D1 — names with surrounding spaces are names; ~0 and ~1 are the pointer's escapes; a
// schema whose type includes object is fine.
func TestParseDescriptorAcceptsEdges(t *testing.T) {
	t.Parallel()
	raw := edit(t, func(d map[string]any) {
		tool0(d)["name"] = " increment "
		tool0(d)["input_schema"] = map[string]any{"type": []any{"object", "null"}}
		tools(d)[1].(map[string]any)["input_schema"] = map[string]any{"enum": []any{1, map[string]any{}}}
		d["state"] = map[string]any{"series": []any{map[string]any{"path": "/a~0b/c~1d/", "newest": "last"}}}
	})
	if _, err := ParseDescriptor(json.RawMessage(raw)); err != nil {
		t.Fatal(err)
	}
}

// spec: H-D1 — a schema may name draft-07 with $schema (many MCP tools do); its keywords then
// mean what draft-07 says (items as an array, definitions, dependencies).
func TestCheckArgsDraft07(t *testing.T) {
	t.Parallel()
	raw := edit(t, func(d map[string]any) {
		var schema map[string]any
		json.Unmarshal([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
			"definitions":{"point":{"type":"array","items":[{"type":"number"},{"type":"number"}],"additionalItems":false}},
			"properties":{"at":{"$ref":"#/definitions/point"},"label":{"type":"string"}},
			"dependencies":{"label":["at"]},"additionalProperties":false}`), &schema)
		tool0(d)["input_schema"] = schema
	})
	cat, err := ParseDescriptor(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CheckArgs("increment", json.RawMessage(`{"at":[1,2.5],"label":"here"}`)); err != nil {
		t.Fatal(err)
	}
	err = cat.CheckArgs("increment", json.RawMessage(`{"at":[1,"2",3],"label":"x","z":0}`))
	for _, want := range []string{"at /at/1: must be a number, not a string", "at /at: must have at most 2 items, not 3", "'z'"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if err := cat.CheckArgs("increment", json.RawMessage(`{"label":"x"}`)); err == nil || !strings.Contains(err.Error(), "has 'label', so it must also have 'at'") {
		t.Errorf("dependencies: %v", err)
	}
}

// Every published draft is accepted and checked as itself, ECMA-262 patterns run, and what the
// host cannot apply never refuses the Tick: the catalog says what it does not check, and args
// go to the Tick (spec 7.2).
//
// spec: 5.3
// spec: H-D1
// spec: H-K1
func TestParseDescriptorAcceptsEveryDraft(t *testing.T) {
	t.Parallel()
	schemas := []string{
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","maximum":10,"exclusiveMaximum":true}}}`,
		`{"$schema":"http://json-schema.org/draft-06/schema#","type":"object","properties":{"n":{"const":1}}}`,
		`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"type":"object","properties":{"kid":{"$recursiveRef":"#"}}}`,
		`{"type":"object","properties":{"slug":{"type":"string","pattern":"^(?!-)[a-z-]+$"},"note":{"type":"string","pattern":"^(?!\\s*$).+"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"(unclosed"}}}`,
		`{"$schema":"http://json-schema.org/draft-03/schema#","properties":{"a":{"required":true}}}`,
	}
	raw := edit(t, func(d map[string]any) {
		tools := d["tools"].([]any)
		for i, sc := range schemas {
			var schema map[string]any
			if err := json.Unmarshal([]byte(sc), &schema); err != nil {
				t.Fatal(err)
			}
			tools = append(tools, map[string]any{"name": fmt.Sprintf("t%d", i), "description": "d", "input_schema": schema, "mutates": false})
		}
		d["tools"] = tools
	})
	cat, err := ParseDescriptor(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args, misfit string }{
		{"t0", `{"n":9.5}`, `{"n":10}`},
		{"t1", `{"n":1}`, `{"n":2}`},
		{"t2", `{"kid":{"kid":{}}}`, `{"kid":{"kid":5}}`},
		{"t3", `{"slug":"a-b","note":" x"}`, `{"slug":"-a","note":"  "}`},
	} {
		if err := cat.CheckArgs(c.tool, json.RawMessage(c.args)); err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
		if err := cat.CheckArgs(c.tool, json.RawMessage(c.misfit)); err == nil {
			t.Errorf("%s %s: accepted", c.tool, c.misfit)
		}
		if u := cat.Unchecked(c.tool); u != nil {
			t.Errorf("%s: unchecked %v", c.tool, u)
		}
	}
	if u := cat.Unchecked("t4"); len(u) != 1 || !strings.Contains(u[0], `at /properties/a/pattern: the pattern "(unclosed" is not checked`) {
		t.Errorf("t4: unchecked %q", u)
	}
	if u := cat.Unchecked("t5"); len(u) != 1 || !strings.Contains(u[0], "draft-03") {
		t.Errorf("t5: unchecked %q", u)
	}
	for _, tool := range []string{"t4", "t5"} {
		if err := cat.CheckArgs(tool, json.RawMessage(`{"a":"x"}`)); err != nil {
			t.Errorf("%s: args the host cannot check were refused: %v", tool, err)
		}
	}
}

// spec: H-I3
func TestParseDescriptorIgnoresUnknownFields(t *testing.T) {
	t.Parallel()
	cat, err := ParseDescriptor(json.RawMessage(edit(t, func(d map[string]any) {
		d["future"] = map[string]any{"x": 1}
		tool0(d)["cost"] = "cheap"
		d["state"].(map[string]any)["units"] = "ms"
	})))
	if err != nil {
		t.Fatal(err)
	}
	if cat.Descriptor.Title != "Counter" || len(cat.Descriptor.Tools) != 2 || !strings.Contains(string(cat.Raw), `"future"`) {
		t.Fatalf("catalog %+v", cat.Descriptor)
	}
}

// spec: H-D1
func TestParseDescriptorAccepts(t *testing.T) {
	t.Parallel()
	cat, err := ParseDescriptor(json.RawMessage(goodDescriptor))
	if err != nil {
		t.Fatal(err)
	}
	d := cat.Descriptor
	if d.Kind != "example.counter" || d.Revision != "1" || d.RecoverWith != "history" || len(d.State.Series) != 2 {
		t.Fatalf("descriptor %+v", d)
	}
	if !d.Tool("increment").Mutates || d.Tool("history").Mutates {
		t.Fatal("mutates flags lost")
	}
	// No tools at all is a valid catalog.
	if _, err := ParseDescriptor(json.RawMessage(`{"protocol":3,"kind":"a.b","title":"T","revision":"x","tools":[]}`)); err != nil {
		t.Fatal(err)
	}
}

// spec: H-D2
func TestRevisionIsOpaque(t *testing.T) {
	t.Parallel()
	a, _ := ParseDescriptor(json.RawMessage(edit(t, func(d map[string]any) { d["revision"] = "01" })))
	b, _ := ParseDescriptor(json.RawMessage(edit(t, func(d map[string]any) { d["revision"] = "1" })))
	c, _ := ParseDescriptor(json.RawMessage(edit(t, func(d map[string]any) { d["revision"] = " 1 " })))
	if a.Revision() == b.Revision() || b.Revision() == c.Revision() {
		t.Fatal("revisions compared other than for exact equality")
	}
	if c.Revision() != " 1 " {
		t.Fatalf("revision altered: %q", c.Revision())
	}
}

// spec: H-K1
func TestCheckArgs(t *testing.T) {
	t.Parallel()
	cat, err := ParseDescriptor(json.RawMessage(goodDescriptor))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CheckArgs("increment", json.RawMessage(`{"amount":2}`)); err != nil {
		t.Fatal(err)
	}
	err = cat.CheckArgs("increment", json.RawMessage(`{"amount":"two","extra":1}`))
	if err == nil || !strings.Contains(err.Error(), "at /amount") || !strings.Contains(err.Error(), "'extra'") {
		t.Fatalf("error %v does not name each field", err)
	}
	if err := cat.CheckArgs("nope", nil); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("unknown tool: %v", err)
	}
}

func FuzzParseDescriptor(f *testing.F) {
	f.Add([]byte(goodDescriptor))
	f.Add([]byte(`{"protocol":3}`))
	f.Add([]byte(`{"protocol":3,"kind":"k","title":"t","revision":"r","tools":[{"name":"a","input_schema":{"$ref":"#/$defs/x","$defs":{"x":{"type":"object"}}},"mutates":false}],"state":{"series":[{"path":"/a","newest":"last"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, err := ParseDescriptor(data)
		if err != nil {
			if !IsDescriptorError(err) {
				t.Fatalf("error of another type: %v", err)
			}
			return
		}
		d := cat.Descriptor
		if strings.TrimSpace(d.Kind) == "" || strings.TrimSpace(d.Title) == "" || d.Revision == "" {
			t.Fatalf("accepted a blank kind, title or revision: %+v", d)
		}
		seen := map[string]bool{}
		for _, tl := range d.Tools {
			if strings.TrimSpace(tl.Name) == "" || seen[tl.Name] {
				t.Fatalf("accepted a blank or repeated tool name %q", tl.Name)
			}
			seen[tl.Name] = true
		}
		if d.RecoverWith != "" && (d.Tool(d.RecoverWith) == nil || d.Tool(d.RecoverWith).Mutates) {
			t.Fatal("accepted a bad recover_with")
		}
	})
}
