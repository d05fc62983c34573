package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"tickmux/tick/wire"
)

// Spec 5.5: a Tick must change its revision whenever any tool's name, description, input schema
// or mutates changes. A Tick that breaks this could declare a tool mutating, then, under the
// same revision, declare it a query and get it run with no card. So approvals use a sticky
// mutates: a tool once declared mutating at a revision stays mutating until the revision changes,
// and a changed tool list under the same revision is recorded as a violation (log, the instance's
// RevisionViolations, an EventCatalog so views show it). A violation also drops every grant
// (allow for this revision) of the instance: what the person allowed was another catalog, even
// though its revision reads the same, so the next mutating call needs a card again.

// stickyMutates is an instance's memory of what was declared mutating at its current revision.
// It is guarded by Instance.mu.
type stickyMutates struct {
	revision   string
	mutating   map[string]bool
	tools      string   // the tools at revision, as data (see toolsKey)
	violations []string // each a sentence a person reads
}

// adopt notes a new catalog (Instance.mu held). It returns a violation to record, or "".
func (s *stickyMutates) adopt(cat *Catalog) string {
	key := toolsKey(cat.Descriptor.Tools)
	if s.mutating == nil || s.revision != cat.Revision() {
		s.revision, s.tools, s.mutating = cat.Revision(), key, map[string]bool{}
		for _, t := range cat.Descriptor.Tools {
			if t.Mutates {
				s.mutating[t.Name] = true
			}
		}
		return ""
	}
	for _, t := range cat.Descriptor.Tools {
		if t.Mutates {
			s.mutating[t.Name] = true
		}
	}
	if key == s.tools {
		return ""
	}
	s.tools = key
	return fmt.Sprintf("the tools changed under the same revision %q (spec 5.5 requires a new revision)", cat.Revision())
}

// record keeps a violation's sentence for RevisionViolations (Instance.mu held).
func (s *stickyMutates) record(v string) {
	if len(s.violations) < 20 {
		s.violations = append(s.violations, v)
	}
}

// mutates reports whether a call to tool at revision needs approval (Instance.mu held).
func (s *stickyMutates) mutates(revision string, tool *wire.Tool) bool {
	return tool.Mutates || (s.revision == revision && s.mutating[tool.Name])
}

// toolsKey is the tools as data, the way spec 5.5 compares them: by name, whatever their order,
// with schemas compared as JSON values (key order does not matter).
func toolsKey(tools []wire.Tool) string {
	type entry struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Schema      any    `json:"input_schema"`
		Mutates     bool   `json:"mutates"`
	}
	list := make([]entry, 0, len(tools))
	for _, t := range tools {
		var schema any
		if json.Unmarshal(t.InputSchema, &schema) != nil {
			schema = string(t.InputSchema)
		}
		list = append(list, entry{t.Name, t.Description, schema, t.Mutates})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(list) // maps encode with sorted keys
	return b.String()
}

// noteCatalog records a catalog the instance adopts (Instance.mu held); on a violation of spec
// 5.5 it drops every grant of the instance, records and logs the violation, and reports it. The
// grants go under the lock that adopts the catalog: a call that finds the new catalog finds no
// grant for it.
func (in *Instance) noteCatalog(cat *Catalog) bool {
	v := in.sticky.adopt(cat)
	if v == "" {
		return false
	}
	dropped := 0
	if d, ok := in.host.approver.(GrantDropper); ok {
		dropped = d.DropGrants(in.id)
	}
	switch dropped {
	case 0:
		v += "; every mutating call to it needs a card, and tools once declared mutating at that revision still need approval"
	case 1:
		v += "; its 1 grant (allow for this revision) was dropped: every mutating call to it needs a card again"
	default:
		v += fmt.Sprintf("; its %d grants (allow for this revision) were dropped: every mutating call to it needs a card again", dropped)
	}
	in.sticky.record(v)
	in.host.logf("%s: %s", in.id, v)
	return true
}

// RevisionViolations lists the times the Tick changed its tools without changing its revision
// (spec 5.5), oldest first (at most 20).
func (in *Instance) RevisionViolations() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.sticky.violations...)
}

// needsApproval reports whether a call to tool at revision needs the person: the tool is
// mutating now, or was declared mutating earlier at the same revision.
func (in *Instance) needsApproval(revision string, tool *wire.Tool) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.sticky.mutates(revision, tool)
}

// ToolNeedsApproval reports whether a call to the named tool at the current revision needs the
// person's approval (what views show as MUTATES).
func (in *Instance) ToolNeedsApproval(name string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.catalog == nil {
		return false
	}
	t := in.catalog.Tool(name)
	return t != nil && in.sticky.mutates(in.catalog.Revision(), t)
}
