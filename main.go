// Command tickmux is a terminal multiplexer for people who work beside AI agents: it shows Ticks
// (programs that speak Tick protocol 3) and plain shells in split panes, lets agents read and call
// them through MCP or a control socket, and asks the person before any change goes out.
//
// commands.go lists every subcommand; one with logic of its own lives in cmd_NAME.go.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"tickmux/internal/flagusage"
)

// command is one subcommand of tickmux.
type command struct {
	name    string
	usage   string   // one line, after "tickmux "
	summary string   // one line for the main help
	aliases []string // other names it answers to (tmux's: list-sessions)
	verb    bool     // a control-socket verb (package agent): it takes --socket and --json
	hidden  bool     // listed apart in the main help: started by tickmux itself, or for scripts and tests
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
	lead := globalPrefix(args) // the global flags before the command, moved after it
	args = hoistCommand(args)
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			if rest := args[1+lead:]; len(rest) > 0 {
				return helpCommand(rest[0], std)
			}
			usage(std.out)
			return 0
		case "--version", "-version":
			fmt.Fprintln(std.out, version())
			return 0
		}
		if c, ok := lookup(args[0]); ok {
			if len(args) > 1+lead && isHelpFlag(args[1+lead]) {
				return helpCommand(c.name, std)
			}
			return c.run(append(takenGlobals(c, args[1:1+lead]), args[1+lead:]...), std)
		}
		if !strings.HasPrefix(args[0], "-") {
			return unknownCommand(std, nil, args)
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
	fmt.Fprintln(w, "Options:")
	for _, o := range [][2]string{
		{"--socket PATH", "the control socket (default $TICKMUX_SOCKET, else $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock)"},
		{"--log PATH", "the server's log file (default $XDG_STATE_HOME/tickmux/tickmux.log)"},
		{"--config PATH", "the config file (default $XDG_CONFIG_HOME/tickmux/config.toml, which may be absent; a file named here must exist and be valid)"},
		{"-s, -t NAME", "a named session (new -s, attach -t, kill-server -t): a server on NAME.sock in the socket's directory"},
		{"--json", "print JSON for scripts (the control-socket commands, check, log, sessions)"},
		{"--version", "print tickmux's version and the commit it was built from"},
		{"-h, --help", "this help; tickmux help COMMAND, or tickmux COMMAND --help, prints one command's usage"},
	} {
		fmt.Fprintf(w, "  %-15s %s\n", o[0], o[1])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "--socket, --log and --config may come before any command (tickmux --socket S demo), which")
	fmt.Fprintln(w, "ignores one it has no use for; after the command come the flags its usage shows. The")
	fmt.Fprintln(w, "control-socket commands (ls, call, open...) all take --socket and --json. A word that is no")
	fmt.Fprintln(w, "command is an error: tickmux -- CMD runs a program.")
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

// globalFlags take a value and, before the command, are taken by every command: `tickmux
// --socket S demo` is `tickmux demo --socket S`, and `tickmux --socket S log` is `tickmux log`
// (the journal is the user's, not one server's): a command with no use for one ignores it.
var globalFlags = map[string]bool{"socket": true, "log": true, "config": true}

// hoistCommand moves a subcommand named after leading global flags to the front, and so the
// help and the version: `tickmux --socket S help` is `tickmux help --socket S`.
func hoistCommand(args []string) []string {
	i := globalPrefix(args)
	if i == 0 || i >= len(args) {
		return args
	}
	if _, ok := lookup(args[i]); !ok && !isMeta(args[i]) && args[i] != "help" {
		return args
	}
	out := append([]string{args[i]}, args[:i]...)
	return append(out, args[i+1:]...)
}

// globalPrefix is how many of args are global flags (globalFlags) and their values, from the
// start: what hoistCommand moves after the command.
func globalPrefix(args []string) int {
	i := 0
	for i < len(args) {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || !globalFlags[name] {
			break
		}
		if !hasValue {
			i++ // the value
		}
		i++
	}
	return min(i, len(args))
}

// isMeta reports whether a is an option that stands for a command of its own: the help or the
// version.
func isMeta(a string) bool {
	return isHelpFlag(a) || a == "--version" || a == "-version"
}

// takenGlobals keeps of the global flags given before command c (lead: flags and their values)
// those c takes, as its usage line names them (the control-socket verbs all take --socket): a
// command with no use for one ignores it.
func takenGlobals(c *command, lead []string) []string {
	var out []string
	for i := 0; i < len(lead); i++ {
		a := lead[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		n := 1
		if !hasValue {
			n = 2
		}
		if (c.verb && name == "socket") || regexp.MustCompile(`(^|[\s\[|])--?`+name+`\b`).MatchString(c.usage) {
			out = append(out, lead[i:min(i+n, len(lead))]...)
		}
		i += n - 1
	}
	return out
}

// printFlags prints fs's flags as flagusage does, but a one-letter flag with one dash (-n N,
// -t NAME), as the usage lines write it and tmux's are; Go's flag package takes either.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	var b bytes.Buffer
	flagusage.Print(&b, fs)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "  --"); ok && len(rest) > 1 && (rest[1] == ' ' || rest[1] == '\n') {
			line = "  -" + rest
		}
		io.WriteString(w, line)
	}
}

// unknownCommand says that word, given where a command goes, is none: with the command it is
// closest to, and how to run a program of that name (tickmux -- CMD: a bare word is never taken
// for a program, so a typo starts nothing). flags are the options given before it.
func unknownCommand(std stdio, flags, args []string) int {
	word := args[0]
	msg := fmt.Sprintf("tickmux: unknown command %q", word)
	if near := nearestCommand(word); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	prog := append(append(append([]string{"tickmux"}, flags...), "--"), args...)
	fmt.Fprintf(std.err, "%s\nto run a program: %s; every command: tickmux help\n", msg, shellJoin(prog))
	return 2
}

// shellJoin joins argv for a shell, quoting what needs it.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
		}) {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// misspelt are words people type for a command that is named otherwise: the hint names the
// command (tmux's list-sessions is an alias, not a hint).
var misspelt = map[string]string{"list": "ls", "kill": "kill-server", "kill-session": "kill-server", "journal": "log"}

// nearestCommand is the command word is most likely a typo of (at most two edits away, one for
// a word of three letters or fewer; being the start of a command's name counts as one edit), or
// "". Of two as near, the first in the help's order wins, then the words of misspelt.
func nearestCommand(word string) string {
	best, bestD := "", 3
	if len(word) <= 3 {
		bestD = 2
	}
	consider := func(name, target string) {
		d := editDistance(word, name)
		if len(word) >= 2 && strings.HasPrefix(name, word) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = target, d
		}
	}
	for _, c := range mainCommands() { // in the help's order: of two as near, the first
		if c.hidden {
			continue
		}
		consider(c.name, c.name)
		for _, a := range c.aliases {
			consider(a, c.name)
		}
	}
	for _, w := range slices.Sorted(maps.Keys(misspelt)) {
		consider(w, misspelt[w])
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b: insertions, deletions,
// substitutions and transpositions of two neighbours (lsit → list is one).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
