// Command tickmux is a terminal multiplexer for people who work beside AI agents: it shows Ticks
// (programs that speak Tick protocol 3) and plain shells in split panes, lets agents read and call
// them through MCP or a control socket, and asks the person before any change goes out.
//
// commands.go lists every subcommand; one with logic of its own lives in cmd_NAME.go.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one subcommand of tickmux.
type command struct {
	name    string
	usage   string // one line, after "tickmux "
	summary string // one line for the main help
	hidden  bool   // left out of the main help (example Ticks, test helpers)
	run     func(args []string, stdio stdio) int
}

// stdio is what a subcommand may read and write; tests substitute their own.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

func run(args []string, std stdio) int {
	args = hoistCommand(args)
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			usage(std.out)
			return 0
		}
		if c, ok := lookup(args[0]); ok {
			return c.run(args[1:], std)
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(std.err, "tickmux: unknown command %q; run 'tickmux help' for the list\n", args[0])
			return 2
		}
	}
	// No subcommand: start tickmux or attach to the running one (cmd_tui.go).
	return runTUI(args, std)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tickmux [COMMAND] [ARGS]")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  tickmux %-44s %s\n", "[--socket PATH] [--log PATH]", "start tickmux with a shell, or attach to the running one")
	fmt.Fprintf(w, "  tickmux %-44s %s\n", "[--socket PATH] [--log PATH] -- CMD [ARG...]", "the same, opening the Tick CMD")
	for _, c := range mainCommands() {
		if c.hidden {
			continue
		}
		if len(c.usage) > 44 {
			fmt.Fprintf(w, "  tickmux %s\n  %-52s %s\n", c.usage, "", c.summary)
			continue
		}
		fmt.Fprintf(w, "  tickmux %-44s %s\n", c.usage, c.summary)
	}
}

// globalFlags take a value and may come before the subcommand: `tickmux --socket S demo` is
// `tickmux demo --socket S`.
var globalFlags = map[string]bool{"socket": true, "log": true, "config": true}

// hoistCommand moves a subcommand named after leading global flags to the front.
func hoistCommand(args []string) []string {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !globalFlags[name] {
			return args
		}
		i++
		if !hasValue {
			i++ // the value
		}
	}
	if i == 0 || i >= len(args) {
		return args
	}
	if _, ok := lookup(args[i]); !ok {
		return args
	}
	out := append([]string{args[i]}, args[:i]...)
	return append(out, args[i+1:]...)
}
