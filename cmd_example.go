package main

import (
	"context"
	"fmt"
	"io"

	"tickmux/examples"
)

// runExample serves one example Tick on stdin/stdout. The Tick takes over stdout for the
// protocol, so anything it has to tell a person goes to stderr, which tickmux shows in its pane.
func runExample(args []string, std stdio) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		listExamples(std.out)
		return 0
	}
	ex, ok := examples.Lookup(args[0])
	if !ok {
		fmt.Fprintf(std.err, "tickmux: there is no example Tick %q\n\n", args[0])
		listExamples(std.err)
		return 2
	}
	if err := ex.Run(context.Background(), args[1:]); err != nil {
		fmt.Fprintf(std.err, "tickmux example %s: %v\n", ex.Name, err)
		return 1
	}
	return 0
}

func listExamples(w io.Writer) {
	fmt.Fprintln(w, "usage: tickmux example NAME [ARGS]   (run one under tickmux, or check it: tickmux check -- tickmux example NAME)")
	fmt.Fprintln(w)
	for _, ex := range examples.All() {
		fmt.Fprintf(w, "  %-30s %s\n", ex.Name+" "+ex.Usage, ex.Summary)
	}
}
