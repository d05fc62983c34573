package tick

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tickmux/tick/wire"
)

func noop(context.Context, json.RawMessage) (any, error) { return nil, nil }

// TestNewChecksLikeAHost: New refuses every descriptor a host would refuse (spec 5.3, H-D1).
func TestNewChecksLikeAHost(t *testing.T) {
	t.Parallel()
	good := func() Tick {
		return Tick{Kind: "test.k", Title: "T", Tools: []ToolSpec{
			{Name: "q", Description: "query", Handler: noop},
			{Name: "m", Description: "mutate", Mutates: true, Handler: noop},
		}}
	}
	tests := []struct {
		name   string
		change func(*Tick)
		err    string // "" when New must accept
	}{
		{"good", func(*Tick) {}, ""},
		{"no tools", func(t *Tick) { t.Tools = nil }, ""},
		{"recover with a query", func(t *Tick) { t.RecoverWith = "q" }, ""},
		{"series", func(t *Tick) {
			t.State = &wire.StateDeclaration{Series: []wire.Series{{Path: "", Newest: wire.NewestLast}, {Path: "/a", Newest: wire.NewestFirst}}}
		}, ""},
		{"blank kind", func(t *Tick) { t.Kind = "  " }, "Kind"},
		{"blank title", func(t *Tick) { t.Title = "" }, "Title"},
		{"blank tool name", func(t *Tick) { t.Tools[0].Name = " " }, "empty Name"},
		{"duplicate tool", func(t *Tick) { t.Tools[1].Name = "q" }, "two tools"},
		{"no handler", func(t *Tick) { t.Tools[0].Handler = nil }, "no Handler"},
		{"schema not an object", func(t *Tick) { t.Tools[0].InputSchema = json.RawMessage(`true`) }, "object"},
		{"schema invalid", func(t *Tick) { t.Tools[0].InputSchema = json.RawMessage(`{"type":"objekt"}`) }, "not a valid JSON Schema"},
		{"schema not JSON", func(t *Tick) { t.Tools[0].InputSchema = json.RawMessage(`{`) }, "not valid JSON"},
		{"external ref", func(t *Tick) { t.Tools[0].InputSchema = json.RawMessage(`{"$ref":"file:///etc/passwd"}`) }, "not allowed"},
		{"recover with unknown", func(t *Tick) { t.RecoverWith = "zz" }, "not in the catalog"},
		{"recover with mutating", func(t *Tick) { t.RecoverWith = "m" }, "mutates"},
		{"series path", func(t *Tick) {
			t.State = &wire.StateDeclaration{Series: []wire.Series{{Path: "a", Newest: wire.NewestLast}}}
		}, "JSON Pointer"},
		{"series twice", func(t *Tick) {
			t.State = &wire.StateDeclaration{Series: []wire.Series{{Path: "/a", Newest: wire.NewestLast}, {Path: "/a", Newest: wire.NewestLast}}}
		}, "twice"},
		{"series newest", func(t *Tick) { t.State = &wire.StateDeclaration{Series: []wire.Series{{Path: "/a", Newest: "middle"}}} }, "Newest"},
		{"descriptor too large", func(t *Tick) { t.Description = strings.Repeat("d", maxDescriptorBytes) }, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := good()
			tt.change(&tk)
			_, err := New(tk)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.err != "" && err == nil:
				t.Fatalf("accepted, want an error about %q", tt.err)
			case tt.err != "" && !strings.Contains(err.Error(), tt.err):
				t.Fatalf("error %q does not mention %q", err, tt.err)
			}
		})
	}
}

// TestRevisionFollowsTheCatalog: the revision changes when any declared part of any tool does,
// and only then (spec 5.5).
func TestRevisionFollowsTheCatalog(t *testing.T) {
	t.Parallel()
	base := ToolSpec{Name: "a", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: noop}
	rev := func(tools ...ToolSpec) string {
		t.Helper()
		c, err := newCatalog(Tick{Kind: "k", Title: "t", Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		return c.revision
	}
	r0 := rev(base)
	same := base
	same.InputSchema = json.RawMessage("{ \"type\" :\n \"object\" }") // the same schema, spaced out
	same.Handler = func(context.Context, json.RawMessage) (any, error) { return 1, nil }
	if rev(same) != r0 {
		t.Fatal("the revision changed with whitespace or the handler")
	}
	for name, change := range map[string]func(*ToolSpec){
		"name":        func(s *ToolSpec) { s.Name = "b" },
		"description": func(s *ToolSpec) { s.Description = "e" },
		"schema":      func(s *ToolSpec) { s.InputSchema = json.RawMessage(`{"type":"object","required":["x"]}`) },
		"mutates":     func(s *ToolSpec) { s.Mutates = true },
	} {
		s := base
		change(&s)
		if rev(s) == r0 {
			t.Errorf("the revision did not change with the tool's %s", name)
		}
	}
	if rev(base, ToolSpec{Name: "z", Handler: noop}) == r0 {
		t.Error("the revision did not change when a tool was added")
	}
}

// TestUpdateRefusesWhatAHostWould: null state, unencodable state, oversized state (spec 8.2).
func TestUpdateRefusesWhatAHostWould(t *testing.T) {
	t.Parallel()
	s, err := New(Tick{Kind: "k", Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]any{
		"nil":          nil,
		"typed nil":    (map[string]int)(nil),
		"unencodable":  make(chan int),
		"over the cap": strings.Repeat("x", maxStateData),
	} {
		if err := s.Update(data); err == nil {
			t.Errorf("Update(%s) succeeded", name)
		}
	}
	if err := s.Update(map[string]int{}); err != nil {
		t.Fatalf("Update({}): %v", err)
	}
}
