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
	"runtime/debug"
	"strings"
)

// command is one subcommand of tickmux.
type command struct {
	name    string
	usage   string // one line, after "tickmux "
	summary string // one line for the main help
	hidden  bool   // listed apart in the main help: started by tickmux itself, or for scripts and tests
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
			if len(args) > 1 {
				return helpCommand(args[1], std)
			}
			usage(std.out)
			return 0
		case "--version", "-version":
			fmt.Fprintln(std.out, version())
			return 0
		}
		if c, ok := lookup(args[0]); ok {
			if len(args) > 1 && isHelpFlag(args[1]) {
				return helpCommand(c.name, std)
			}
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

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// usage is `tickmux help`: every command in mainCommands, and the options.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tickmux [OPTIONS] [COMMAND] [ARGS]")
	fmt.Fprintln(w)
	line := func(u, summary string) {
		if len(u) > 44 {
			fmt.Fprintf(w, "  tickmux %s\n  %-52s %s\n", u, "", summary)
			return
		}
		fmt.Fprintf(w, "  tickmux %-44s %s\n", u, summary)
	}
	line("[--socket PATH] [--log PATH] [--config PATH] [--sandbox]", "start tickmux with a shell, or attach to the running one")
	line("[--socket PATH] [--log PATH] [--config PATH] [--sandbox] [--plain] -- CMD [ARG...]", "the same, opening the Tick CMD (--plain: the plain program CMD, as tmux new CMD)")
	for _, c := range mainCommands() {
		if !c.hidden {
			line(c.usage, c.summary)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Started by tickmux itself, or for scripts and tests:")
	for _, c := range mainCommands() {
		if c.hidden {
			line(c.usage, c.summary)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Options (each command's usage shows which it takes):")
	for _, o := range [][2]string{
		{"--socket PATH", "the control socket (default $TICKMUX_SOCKET, else $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock)"},
		{"--log PATH", "the server's log file (default $XDG_STATE_HOME/tickmux/tickmux.log)"},
		{"--config PATH", "the config file (default $XDG_CONFIG_HOME/tickmux/config.toml, which may be absent; a file named here must exist)"},
		{"--json", "print JSON for scripts (the control-socket commands and check)"},
		{"--version", "print tickmux's version and the commit it was built from"},
		{"-h, --help", "this help; tickmux help COMMAND, or tickmux COMMAND --help, prints one command's usage"},
	} {
		fmt.Fprintf(w, "  %-15s %s\n", o[0], o[1])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "--socket, --log and --config may come before the command: tickmux --socket S demo.")
}

// helpCommand is `tickmux help NAME` and `tickmux NAME --help`: that command's usage, its summary
// and its flags, on stdout. Every command prints its own when asked with --help.
func helpCommand(name string, std stdio) int {
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(std.err, "tickmux help: unknown command %q; run 'tickmux help' for the list\n", name)
		return 2
	}
	c.run([]string{"--help"}, stdio{in: strings.NewReader(""), out: std.out, err: std.out})
	return 0
}

// usageHead prints the first lines of command name's usage: the line from mainCommands and its
// summary. It reports false when there is no such command.
func usageHead(w io.Writer, name string) bool {
	c, ok := lookup(name)
	if !ok {
		return false
	}
	fmt.Fprintf(w, "usage: tickmux %s\n\n%s\n\n", c.usage, c.summary)
	return true
}

// version is what `tickmux --version` prints: the module's version and the commit it was built
// from, as the go command stamped them (debug.ReadBuildInfo).
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "tickmux (no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	s := "tickmux " + v + " " + info.GoVersion
	var rev, at, modified string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			at = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if rev == "" {
		return s + " (no commit recorded: built outside a git checkout, or with -buildvcs=false)"
	}
	s += " commit " + rev
	if at != "" {
		s += " of " + at
	}
	if modified == "true" {
		s += " with local changes"
	}
	return s
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
