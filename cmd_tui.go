package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"tickmux/agent"
	"tickmux/config"
	"tickmux/host"
	"tickmux/internal/sockpath"
	"tickmux/keymap"
	"tickmux/server"
	"tickmux/views"
)

// runTUI is tickmux with no subcommand: `tickmux` opens a shell, `tickmux -- CMD...` a Tick.
func runTUI(args []string, std stdio) int { return tui(args, std, false) }

// runDemo is `tickmux demo`: the bundled example Ticks in a ready layout.
func runDemo(args []string, std stdio) int { return tui(args, std, true) }

// tuiFlags are the TUI's options.
type tuiFlags struct {
	socket   string
	logPath  string
	config   string
	demo     bool   // tickmux server: open the demo layout
	sandbox  bool   // tickmux and tickmux server: the program (or shell) opened runs sandboxed
	plain    bool   // tickmux and tickmux server: CMD runs as a plain program, not as a Tick
	size     string // tickmux server: COLSxROWS of the terminal that started it
	restore  string // tickmux server: restore this snapshot generation (tickmux restore N)
	session  string // tickmux new -s, attach -t, kill-server -t: the session's name
	detached bool   // tickmux new -d: start the session without showing it
	argv     []string
	dashdash bool // argv came after "--"
}

// parseTUIFlags parses the options of name (tickmux, tickmux demo, server, attach, kill-server,
// new): each takes the flags it has a use for, and its usage line lists them all.
func parseTUIFlags(args []string, std stdio, name string) (*tuiFlags, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(std.err)
	f := &tuiFlags{}
	fs.StringVar(&f.socket, "socket", os.Getenv("TICKMUX_SOCKET"), "the control socket `PATH` (default $TICKMUX_SOCKET, else $XDG_RUNTIME_DIR/tickmux/default.sock)")
	starts := name != "tickmux attach" && name != "tickmux kill-server" // it may start a server
	if starts {
		fs.StringVar(&f.logPath, "log", "", "the server's log file `PATH` (default $XDG_STATE_HOME/tickmux/tickmux.log)")
	}
	switch {
	case starts:
		fs.StringVar(&f.config, "config", config.DefaultPath(), "the config file `PATH` (may be absent only at the default path)")
	case name == "tickmux attach":
		fs.StringVar(&f.config, "config", config.DefaultPath(), "the config file `PATH`: a running server keeps its own, but one named here is read and its errors said, as a start would")
	}
	if name == "tickmux" || name == "tickmux server" || name == "tickmux new" {
		fs.BoolVar(&f.sandbox, "sandbox", false, "run the shell, or CMD, in a sandbox (bubblewrap) whatever the config's sandbox setting")
		fs.BoolVar(&f.plain, "plain", false, "run CMD as a plain program (top, vim), not as a Tick, as tmux new CMD does")
	}
	switch name {
	case "tickmux server":
		fs.BoolVar(&f.demo, "demo", false, "open the demo layout")
		fs.StringVar(&f.size, "size", "", "`COLSxROWS` of the terminal the first view will have")
		fs.StringVar(&f.restore, "restore", "", "restore the snapshot `NAME` (tickmux restore N starts it so)")
	case "tickmux new":
		fs.StringVar(&f.session, "s", "", "the session's `NAME`: its server listens on NAME.sock in the socket's directory (default: the first number free, as tmux)")
		fs.BoolVar(&f.detached, "d", false, "start the session without showing it here (no terminal needed)")
	case "tickmux attach", "tickmux kill-server", "tickmux reload":
		fs.StringVar(&f.session, "t", "", "the session `NAME` (tickmux sessions lists them): NAME.sock in the socket's directory")
	}
	fs.Usage = func() {
		if !usageHead(std.err, strings.TrimPrefix(name, "tickmux ")) {
			fmt.Fprintln(std.err, "usage: tickmux [--socket PATH] [--log PATH] [--config PATH] [--sandbox] [--plain] [-- CMD [ARG...]]")
			fmt.Fprintln(std.err, "       tickmux COMMAND ...   (tickmux help lists the commands)")
			fmt.Fprintln(std.err)
		}
		printFlags(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.argv = fs.Args()
	f.dashdash = len(f.argv) > 0 && len(args) > len(f.argv) && args[len(args)-len(f.argv)-1] == "--"
	if f.session != "" {
		sock, err := sessionSocket(f.socket, f.session)
		if err != nil {
			fmt.Fprintf(std.err, "%s: %v\n", name, err)
			return nil, err
		}
		f.socket = sock
	}
	return f, nil
}

// tui is `tickmux`, `tickmux -- CMD` and `tickmux demo`: it starts a server in the background
// when none runs on the socket (package server), then attaches this terminal to it. Every error
// before the attach is printed on the normal screen, with the terminal untouched.
func tui(args []string, std stdio, demo bool) int {
	name := "tickmux"
	if demo {
		name = "tickmux demo"
	}
	f, err := parseTUIFlags(args, std, name)
	if err != nil {
		return 2
	}
	if len(f.argv) > 0 && !f.dashdash {
		// A word where a command goes (tickmux --socket S lsit): never a program to start.
		if demo {
			fmt.Fprintf(std.err, "tickmux demo: takes no arguments (got %q)\n", f.argv)
			return 2
		}
		return unknownCommand(std, args[:len(args)-len(f.argv)], f.argv)
	}
	return startAndAttach(name, f, agent.SocketPath(f.socket), demo, std)
}

// startAndAttach starts a server on sock when none runs there, then attaches this terminal to it
// (with f.detached, only starts it). name is the command, for messages.
func startAndAttach(name string, f *tuiFlags, sock string, demo bool, std stdio) int {
	if !f.detached {
		if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
			fmt.Fprintf(std.err, "%s: needs a terminal (stdin and stdout must be a TTY); for scripts use the CLI verbs (tickmux help)\n", name)
			return 2
		}
		if os.Getenv("TERM") == "" {
			fmt.Fprintf(std.err, "%s: TERM is not set, so tickmux cannot know how to draw on this terminal\n", name)
			return 2
		}
	}
	if !configPathOK(name, f.config, std) {
		return 2
	}
	p := viewParams()
	switch {
	case !sockpath.Running(sock):
		// None runs: start one. It reads the config (a running one has its own) and says
		// what is wrong with it.
		err := server.Start(serverArgs(f, sock, demo))
		switch {
		case err == nil:
		case errors.Is(err, sockpath.ErrAlreadyRunning):
			// Another tickmux started one at the same moment: use it.
		default:
			if _, cerr := config.Load(f.config); cerr != nil {
				fmt.Fprintf(std.err, "%s: %v\n", name, cerr) // the server failed on it
				return 2
			}
			fmt.Fprintf(std.err, "%s: %v\n", name, err)
			return 1
		}
	case demo:
		fmt.Fprintf(std.err, "tickmux demo: a tickmux already runs on %s; attaching to it (run tickmux kill-server first for a fresh demo)\n", sock)
	case len(f.argv) > 0 || f.sandbox:
		// A running server opens CMD (with no CMD and --sandbox, a shell; with --plain, CMD as a
		// plain program) for this view.
		p.Open, p.Sandbox, p.Plain = f.argv, f.sandbox, f.plain
		p.Dir, _ = os.Getwd()
	}
	if f.detached {
		return 0
	}
	return server.Attach(sock, os.Stdin, os.Stdout, std.err, p)
}

// serverArgs are the arguments of the `tickmux server` this command starts.
func serverArgs(f *tuiFlags, sock string, demo bool) []string {
	cols, rows := server.WindowSize(int(os.Stdout.Fd()))
	args := server.ServerArgs(sock, f.config, f.logPath, cols, rows, demo, f.argv)
	if f.sandbox { // before the "--" that may end them
		args = append([]string{"--sandbox"}, args...)
	}
	if f.plain {
		args = append([]string{"--plain"}, args...)
	}
	return args
}

// openInitial opens what tickmux starts with: a shell, the given Tick, or the demo (whose hint
// names the keys of km); the shell or the Tick in a sandbox when asked (--sandbox), whatever the
// config says; CMD as a plain program when asked (--plain), as tmux new CMD runs it. Where the
// sandbox cannot start, nothing does: the server fails saying why.
func openInitial(a *views.App, argv []string, demo, sandbox, plain bool, km *keymap.Keymap) error {
	switch {
	case demo:
		return openDemo(a, km)
	case len(argv) > 0:
		_, err := a.Open(host.OpenSpec{Argv: argv, Sandbox: sandbox, Shell: plain})
		return err
	}
	_, err := a.Open(host.OpenSpec{Shell: true, Sandbox: sandbox})
	return err
}

// openDemo lays out the bundled example Ticks: counter and clock on the left, notes, logtail and
// jobs on the right; and, focused and as wide as the screen below them, a shell whose first
// lines say what to type to see an approval card (a call of the counter's increment).
func openDemo(a *views.App, km *keymap.Keymap) error {
	self := selfExe
	if self == "" {
		return fmt.Errorf("cannot find the tickmux binary to run the examples")
	}
	ex := func(name string, args ...string) host.OpenSpec {
		return host.OpenSpec{Argv: append([]string{self, "example", name}, args...)}
	}
	counter, err := a.OpenBeside(ex("counter"), "", views.SideBySide)
	if err != nil {
		return err
	}
	// The shell first, below the counter: it then spans the whole width under every Tick, with
	// room for its hint at 80x24 too.
	shell, err := a.OpenBeside(demoShell(counter.ID(), km), counter.ID(), views.Stacked)
	if err != nil {
		return err
	}
	notes, err := a.OpenBeside(ex("notes"), counter.ID(), views.SideBySide)
	if err != nil {
		return err
	}
	if _, err := a.OpenBeside(ex("clock"), counter.ID(), views.Stacked); err != nil {
		return err
	}
	logtail, err := a.OpenBeside(ex("logtail"), notes.ID(), views.Stacked)
	if err != nil {
		return err
	}
	if _, err := a.OpenBeside(ex("jobs"), logtail.ID(), views.Stacked); err != nil {
		return err
	}
	a.NamePane(shell.ID(), "shell")
	a.Focus(shell.ID())
	return nil
}

// demoShell is the demo's shell: it prints what to type to see an approval card (a call of the
// counter's increment tool; tickmux is on the pane's PATH, the binary in use: putSelfOnPath) and
// the keys that answer it, then becomes the person's shell.
func demoShell(counter string, km *keymap.Keymap) host.OpenSpec {
	hint := "To see an agent's call wait for you, type:\r\n" +
		"  tickmux call " + counter + ` increment '{"amount":2}'` + "\r\n" +
		fmt.Sprintf("A card asks first: %s, then %s allows it (%s denies).\r\n", keyFor(km, keymap.ModePrefix, keymap.Approvals, true),
			keyFor(km, keymap.ModeCard, keymap.AllowOnce, false), keyFor(km, keymap.ModeCard, keymap.Deny, false))
	// The hint is written on the pane's terminal before the shell starts: the pane runs the
	// person's shell and nothing else, so its command line (the panel, ls, a send card) shows
	// no plumbing of the demo's (issue 42 item 6).
	return host.OpenSpec{Shell: true, Preface: []byte(hint)}
}

// keyFor names the first key of km bound to action in mode, after the prefix when prefixed.
func keyFor(km *keymap.Keymap, mode keymap.Mode, action keymap.Action, prefixed bool) string {
	keys := km.KeysFor(mode, action)
	if len(keys) == 0 {
		return "(unbound: " + string(action) + ")"
	}
	if prefixed {
		return km.Prefix.String() + " " + keys[0].String()
	}
	return keys[0].String()
}

// configPathOK reports whether the config named with --config (none: the default, which may be
// missing) is there and valid; else it says what is wrong with it, as a start with it would. Only
// the default path is not read here (a server starting reads it and says what is wrong): a
// running server has its own config, as tmux's -f on attach, but a file named on the command
// line that would not start one is not passed over in silence.
func configPathOK(name, path string, std stdio) bool {
	if path == "" || path == config.DefaultPath() {
		return true
	}
	if _, err := config.Load(path); err != nil { // its message names the file and the default
		fmt.Fprintf(std.err, "%s: %v\n", name, err)
		return false
	}
	return true
}
