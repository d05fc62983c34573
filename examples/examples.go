// Package examples holds the example Ticks built into tickmux (`tickmux example NAME`). Each is
// a complete Tick written with the SDK in tickmux/tick: a tcell UI on its terminal and tools for
// agents, sharing one state. They double as the SDK's largest users and as fixtures for
// `tickmux check` and `tickmux demo`.
//
// Every example has the same shape: a struct owning the state under a mutex; a tick.Tick
// describing the tools; draw and key methods for the UI; a state method building what goes in
// each update. Handlers and keys change the state, then call publish.
package examples

import (
	"context"
	"sort"
)

// Example is one example Tick.
type Example struct {
	Name    string
	Summary string // one line for `tickmux example`
	Usage   string // the arguments after the name, "" when it takes none
	// Run serves the Tick on stdin/stdout until the host ends it; args follow the name.
	Run func(ctx context.Context, args []string) error
}

var all = map[string]Example{}

// register adds an example; each example's file calls it from init.
func register(e Example) {
	if _, dup := all[e.Name]; dup {
		panic("examples: registered twice: " + e.Name)
	}
	all[e.Name] = e
}

// All returns every example, sorted by name.
func All() []Example {
	list := make([]Example, 0, len(all))
	for _, e := range all {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}

// Lookup returns the example with the given name.
func Lookup(name string) (Example, bool) {
	e, ok := all[name]
	return e, ok
}
