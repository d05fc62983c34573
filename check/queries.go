package check

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tickmux/host"
	"tickmux/tick/wire"
)

// maxQueryProbes bounds how many query tools probeQueryNoEffects calls.
const maxQueryProbes = 16

// probeQueryNoEffects calls every query tool (mutates: false) whose input_schema lets check build
// args, each on a quiet Tick: no update may follow, seq may not move, and no file in the Tick's
// working directory may be created, removed or changed (names, sizes, times). A tool that changes
// the Tick's state or files must be declared mutates: true, or its calls bypass the person's
// approval (spec 5.6). Rounds and quiet windows as in probeNoSideEffects, so updates the Tick
// sends on its own are not taken for the call's; files that change across a read alone (a log
// written on every request) are not counted.
func (c *checker) probeQueryNoEffects(ctx context.Context) {
	const step = "a query changes nothing"
	names := c.queries()
	if len(names) == 0 {
		c.r.step(step, true, "skipped: no query tool's input_schema lets check build args")
		return
	}
	for _, name := range names {
		if !c.alive() {
			return
		}
		c.queryNoEffects(ctx, step, name)
	}
}

func (c *checker) queryNoEffects(ctx context.Context, step, name string) {
	var sent json.RawMessage
	burst := func() (string, bool) {
		files0 := snapshotDir(c.dir)
		st0, err := c.read(ctx)
		if err != nil {
			c.requestFailed("tick/read", err)
			return "", false
		}
		files1 := snapshotDir(c.dir)
		noise := files0.diff(files1) // changed by a read: not the call's doing
		before := c.in.SessionStats().Updates
		prepare := c.prepareArgs(name)
		_, _, err = c.callFollowing(ctx, fmt.Sprintf("a call to %q", name), func(cat *host.Catalog) (wire.CallParams, bool) {
			p, ok := prepare(cat)
			sent = p.Args
			return p, ok
		})
		if _, answered := codeOf(err); err != nil && !answered {
			c.requestFailed(fmt.Sprintf("a call to %q", name), err)
			return "", false
		}
		c.pause(ctx, sideEffectSettle) // an update the call caused may follow its result (spec 7.2)
		n := c.in.SessionStats().Updates - before
		st1, err := c.read(ctx)
		if err != nil {
			c.requestFailed("tick/read", err)
			return "", false
		}
		changed := slices.DeleteFunc(files1.diff(snapshotDir(c.dir)), func(f string) bool { return slices.Contains(noise, f) })
		switch {
		case n > 0:
			return fmt.Sprintf("%d tick/update notifications followed a call to %q (seq %d to %d)", n, name, st0.Seq, st1.Seq), true
		case st1.Seq != st0.Seq:
			return fmt.Sprintf("seq moved from %d to %d across a call to %q", st0.Seq, st1.Seq, name), true
		case len(changed) > 0:
			return fmt.Sprintf("a call to %q changed files in its working directory: %s", name, strings.Join(changed, ", ")), true
		}
		return "", true
	}
	moved, outcome := c.effectRounds(ctx, burst)
	switch outcome {
	case roundsSkipped:
		c.r.step(step, true, "skipped %q: the Tick updates on its own, so effects cannot be told apart", name)
	case roundsFailed:
		c.r.step(step, false, "a request failed")
	case roundsClean:
		c.r.step(step, true, "called %q with %s: same seq, no update, no file changed", name, sent)
	default:
		c.r.find("C-K6", SevFailure, "%q is declared mutates: false but changes things: %s, in %d rounds each after %v without updates. A tool that can change anything beyond its result (the Tick's state, files, remote services) must be declared mutates: true; declared false, its calls bypass the person's approval (spec 5.6)",
			name, host.Printable(moved, false), sideEffectRounds, sideEffectQuiet)
		c.r.step(step, false, "%s", host.Printable(moved, false))
	}
}

// queries returns the query tools check can build args for, in catalog order.
func (c *checker) queries() []string {
	var out []string
	for _, t := range c.cat.Descriptor.Tools {
		if _, ok := buildArgs(c.cat, t.Name); ok && !t.Mutates && len(out) < maxQueryProbes {
			out = append(out, t.Name)
		}
	}
	return out
}

// prepareArgs makes the call of the query tool name with args built for cat, while cat still has
// it as a query check can build args for.
func (c *checker) prepareArgs(name string) func(cat *host.Catalog) (wire.CallParams, bool) {
	return func(cat *host.Catalog) (wire.CallParams, bool) {
		t := cat.Tool(name)
		args, ok := buildArgs(cat, name)
		return wire.CallParams{Tool: name, Args: args, Revision: cat.Revision()}, ok && t != nil && !t.Mutates
	}
}

// buildArgs finds args the tool's input_schema accepts: {} when it does, else its required
// members each given its const, first enum value, default, or a plain value of its type.
func buildArgs(cat *host.Catalog, name string) (json.RawMessage, bool) {
	t := cat.Tool(name)
	if t == nil {
		return nil, false
	}
	if cat.CheckArgs(name, json.RawMessage("{}")) == nil {
		return json.RawMessage("{}"), true
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(t.InputSchema, &schema) != nil {
		return nil, false
	}
	for _, plain := range []map[string]string{
		{"string": `""`, "integer": `0`, "number": `0`, "boolean": `false`, "array": `[]`, "object": `{}`, "null": `null`},
		{"string": `"tickmux-check"`, "integer": `1`, "number": `1`, "boolean": `true`, "array": `[]`, "object": `{}`, "null": `null`},
	} {
		args := map[string]json.RawMessage{}
		for _, m := range schema.Required {
			var p struct {
				Const   json.RawMessage   `json:"const"`
				Enum    []json.RawMessage `json:"enum"`
				Default json.RawMessage   `json:"default"`
				Type    any               `json:"type"`
			}
			_ = json.Unmarshal(schema.Properties[m], &p)
			typ, _ := p.Type.(string)
			if types, ok := p.Type.([]any); ok && len(types) > 0 {
				typ, _ = types[0].(string)
			}
			switch {
			case p.Const != nil:
				args[m] = p.Const
			case len(p.Enum) > 0:
				args[m] = p.Enum[0]
			case p.Default != nil:
				args[m] = p.Default
			case plain[typ] != "":
				args[m] = json.RawMessage(plain[typ])
			default:
				args[m] = json.RawMessage(plain["string"])
			}
		}
		b, _ := json.Marshal(args)
		if cat.CheckArgs(name, b) == nil {
			return b, true
		}
	}
	return nil, false
}

// maxDirEntries bounds the files snapshotDir looks at: check may run in a large tree.
const maxDirEntries = 4096

// dirSnapshot is what is in a directory: each path (relative) with its kind, size and time.
type dirSnapshot map[string]string

// snapshotDir walks dir ("" is the current directory), up to maxDirEntries entries.
func snapshotDir(dir string) dirSnapshot {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	snap := dirSnapshot{}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		if len(snap) >= maxDirEntries {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if d.IsDir() {
			snap[rel] = "dir" // a directory's time changes with its entries, which are compared
			return nil
		}
		snap[rel] = fmt.Sprintf("%v %d %s", info.Mode().Type(), info.Size(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	return snap
}

// diff lists what differs from s to t: "created x", "removed x", "changed x".
func (s dirSnapshot) diff(t dirSnapshot) []string {
	var out []string
	for p, v := range s {
		switch w, ok := t[p]; {
		case !ok:
			out = append(out, "removed "+p)
		case w != v:
			out = append(out, "changed "+p)
		}
	}
	for p := range t {
		if _, ok := s[p]; !ok {
			out = append(out, "created "+p)
		}
	}
	slices.Sort(out)
	return out
}
