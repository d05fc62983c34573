package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/host"
	"tickmux/host/trim"
	"tickmux/internal/flagusage"
	"tickmux/tick/wire"
)

// The CLI verbs: each is a client of the control socket (named "tickmux-cli" on approval cards),
// human-readable by default and JSON with --json (the control protocol's result, or
// {"error": {...}} on failure). Exit codes: 0 done, 1 the request failed (or wait saw no news
// before its timeout), 2 usage, 3 no tickmux is running.

// CLIClientName names the CLI on approval cards.
const CLIClientName = "tickmux-cli"

// Exit codes of the verbs.
const (
	ExitOK         = 0
	ExitFailed     = 1
	ExitUsage      = 2
	ExitNotRunning = 3
)

// Verb is one tickmux subcommand that talks to the running tickmux.
type Verb struct {
	Name    string
	Usage   string // after "tickmux "
	Summary string
	run     func(r *runner, args []string) int
}

// Run runs the verb with its arguments (the subcommand name excluded).
func (v Verb) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return v.run(&runner{verb: v, in: stdin, out: stdout, errw: stderr}, args)
}

// The verbs.
var (
	Ls = Verb{Name: "ls", Usage: "ls", Summary: "list the Ticks and shells in the running tickmux", run: runLs}

	Open = Verb{Name: "open", Usage: "open [--cwd DIR] [--shell] [--sandbox] [--host NAME] -- CMD [ARG...]",
		Summary: "open a Tick (or a shell) in a new pane, once the person approves", run: runOpen}

	Describe = Verb{Name: "describe", Usage: "describe ID", Summary: "show a Tick's tools and catalog revision", run: runDescribe}

	Read = Verb{Name: "read", Usage: "read [--full] ID", Summary: "show a Tick's latest state", run: runRead}

	Call = Verb{Name: "call", Usage: "call [--revision R] [--no-wait] ID TOOL [ARGS-JSON]",
		Summary: "call a Tick's tool (mutating tools wait for the person's approval)", run: runCall}

	Wait = Verb{Name: "wait", Usage: "wait [--timeout D] [--after ID=SEQ]... [--call CALL]... [ID...]",
		Summary: "wait until a Tick's state changes and show the news", run: runWait}

	Send = Verb{Name: "send", Usage: "send [--enter] ID TEXT|-",
		Summary: "type text into a pane, once the person approves", run: runSend}

	Screen = Verb{Name: "screen", Usage: "screen ID", Summary: "print what a pane's terminal shows", run: runScreen}

	Close = Verb{Name: "close", Usage: "close ID", Summary: "end a Tick or shell and close its pane, once the person approves", run: runClose}

	MCPVerb = Verb{Name: "mcp", Usage: "mcp [--socket PATH] [--call-wait D]",
		Summary: "serve MCP on stdio for agents (claude mcp add tickmux -- tickmux mcp)", run: runMCP}

	ServeVerb = Verb{Name: "serve", Usage: "serve [--socket PATH] [--open 'CMD ARG...']...",
		Summary: "run a headless tickmux (no screen: nobody can approve changes)", run: runServe}
)

// runner holds one verb's invocation.
type runner struct {
	verb     Verb
	in       io.Reader
	out      io.Writer
	errw     io.Writer
	fs       *flag.FlagSet
	socket   string
	json     bool
	progress string // the last progress message shown
	method   string // the request being made
}

// flags makes the verb's flag set with the flags every verb has.
func (r *runner) flags() *flag.FlagSet {
	fs := flag.NewFlagSet(r.verb.Name, flag.ContinueOnError)
	fs.SetOutput(r.errw)
	fs.StringVar(&r.socket, "socket", "", "the control socket `PATH` (default $"+EnvSocket+", else $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock)")
	if r.verb.Name != "mcp" && r.verb.Name != "serve" && r.verb.Name != "hook" {
		fs.BoolVar(&r.json, "json", false, "print JSON for scripts")
	}
	fs.Usage = func() {
		fmt.Fprintf(r.errw, "usage: tickmux %s\n\n%s\n\n", r.verb.Usage, r.verb.Summary)
		flagusage.Print(r.errw, fs)
	}
	r.fs = fs
	return fs
}

// parse parses flags placed anywhere among the positional arguments; everything after "--" (or,
// with rest, after the first positional argument) is positional. It reports false after printing
// the usage.
func (r *runner) parse(args []string, min, max int, rest bool) ([]string, bool) {
	var pos []string
	for {
		if err := r.fs.Parse(args); err != nil {
			return nil, false
		}
		left := r.fs.Args()
		if len(left) == 0 {
			break
		}
		if used := len(args) - len(left); rest || (used > 0 && args[used-1] == "--") {
			pos = append(pos, left...)
			break
		}
		pos = append(pos, left[0])
		args = left[1:]
	}
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		r.fs.Usage()
		return nil, false
	}
	return pos, true
}

// context is cancelled by Ctrl-C or SIGTERM: the request is withdrawn on the server.
func (r *runner) context() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// do dials the running tickmux, makes one request and prints the answer: raw JSON with --json,
// else what human writes. It returns the exit code.
func (r *runner) do(method string, params any, human func(raw json.RawMessage) int) int {
	r.method = method
	ctx, stop := r.context()
	defer stop()
	c, err := Dial(ctx, SocketPath(r.socket), CLIClientName)
	if err != nil {
		return r.fail(err)
	}
	defer c.Close()
	var raw json.RawMessage
	if err := c.Do(ctx, method, params, &raw, r.showProgress); err != nil {
		return r.fail(err)
	}
	if r.json {
		fmt.Fprintf(r.out, "%s\n", raw)
		return ExitOK
	}
	return human(raw)
}

// showProgress tells the person at the CLI what the request waits for, once per change.
func (r *runner) showProgress(p Progress) {
	if r.json || p.Message == r.progress {
		return
	}
	r.progress = p.Message
	fmt.Fprintf(r.errw, "tickmux %s: %s\n", r.verb.Name, host.Printable(p.Message, false))
}

// fail reports err and returns its exit code.
func (r *runner) fail(err error) int {
	e := errorOf(err)
	if r.json {
		raw, _ := encode(struct {
			Error *Error `json:"error"`
		}{e})
		fmt.Fprintf(r.out, "%s\n", raw)
	} else {
		msg := e.Message
		// H-E1: a failed change always says what it may have done; a failed look says so when
		// it is not "nothing".
		if abandonedEffect(r.method) != wire.EffectNone || e.Effect != wire.EffectNone {
			msg = e.Error()
		}
		fmt.Fprintf(r.errw, "tickmux %s: %s\n", r.verb.Name, host.Printable(msg, false))
	}
	if e.Reason == ReasonNotRunning {
		return ExitNotRunning
	}
	return ExitFailed
}

func (r *runner) usageError(format string, args ...any) int {
	fmt.Fprintf(r.errw, "tickmux %s: %s\n", r.verb.Name, fmt.Sprintf(format, args...))
	return ExitUsage
}

// decodeInto decodes an answer for human output.
func (r *runner) decodeInto(raw json.RawMessage, v any) bool {
	if err := json.Unmarshal(raw, v); err != nil {
		fmt.Fprintf(r.errw, "tickmux %s: cannot read tickmux's answer: %v\n", r.verb.Name, err)
		return false
	}
	return true
}

// request is a verb that makes one request: it parses the common flags, its own (flags) and its
// positional arguments, builds the params (build), makes the request and prints the answer
// (print, unless --json). P is the params, R the answer printed.
type request[P, R any] struct {
	method   string
	min, max int  // how many positional arguments (max -1: any number)
	rest     bool // everything from the first positional argument on is positional
	// flags defines the verb's own flags, when it has any, and returns what builds the params
	// from the positional arguments; build's code, when not ExitOK, ends the verb (a usage error).
	flags func(r *runner, fs *flag.FlagSet) (build func(pos []string) (P, int))
	print func(r *runner, p P, res R) int // p: the params sent
}

// run is the verb's body.
func (q request[P, R]) run(r *runner, args []string) int {
	build := q.flags(r, r.flags())
	pos, ok := r.parse(args, q.min, q.max, q.rest)
	if !ok {
		return ExitUsage
	}
	params, code := build(pos)
	if code != ExitOK {
		return code
	}
	return r.do(q.method, params, func(raw json.RawMessage) int {
		var res R
		if !r.decodeInto(raw, &res) {
			return ExitFailed
		}
		return q.print(r, params, res)
	})
}

// noFlags is the flags of a verb that has only the common ones; params makes its params.
func noFlags[P any](params func(pos []string) P) func(*runner, *flag.FlagSet) func([]string) (P, int) {
	return func(*runner, *flag.FlagSet) func([]string) (P, int) {
		return func(pos []string) (P, int) { return params(pos), ExitOK }
	}
}

var runLs = request[ListParams, ListResult]{method: MethodList,
	flags: noFlags(func([]string) ListParams { return ListParams{Hosts: true} }),
	print: func(r *runner, _ ListParams, res ListResult) int {
		printLocal(r.out, res)
		PrintHosts(r.out, res.Hosts, time.Now())
		if res.Note != "" {
			fmt.Fprintln(r.out, safe(res.Note))
		}
		return ExitOK
	},
}.run

// printLocal prints this host's instances, as ls shows them.
func printLocal(w io.Writer, res ListResult) {
	if len(res.Ticks) == 0 {
		fmt.Fprintln(w, "nothing is open in tickmux")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tSTATUS\tTITLE\tKIND\tSEQ\tUPDATES\tDECISIONS")
	for _, t := range res.Ticks {
		seq, updates, decisions := "-", "-", "-"
		if t.Seq != nil {
			seq = strconv.FormatUint(*t.Seq, 10)
		}
		if t.Updates != nil {
			updates = strconv.FormatUint(*t.Updates, 10)
		}
		if t.Decisions != nil {
			decisions = strconv.Itoa(*t.Decisions)
		}
		kind := t.Kind
		if kind == "" {
			kind = "-"
		}
		status := t.Status
		if t.Sandboxed {
			status += ",sandboxed"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Type, status, safe(t.Title), safe(kind), seq, updates, decisions)
	}
	tw.Flush()
	for _, t := range res.Ticks {
		if a := t.Agent; a != nil {
			line := fmt.Sprintf("%s: %s %s for %s", t.ID, a.Name, a.State, time.Duration(a.ForS)*time.Second)
			if a.Detail != "" {
				line += " (" + a.Detail + ")"
			}
			fmt.Fprintln(w, safe(line+", session "+a.Session))
		}
	}
}

// PrintHosts prints the other hosts of a list (ListResult.Hosts) as ls shows them, after the
// local list: a heading per host, then what runs there with each id named after its host
// (gpu:hosted:2). Every string from a host is escaped.
func PrintHosts(w io.Writer, hosts []HostListing, now time.Time) {
	for _, h := range hosts {
		fmt.Fprintln(w)
		fmt.Fprintln(w, safe(HostLine(h, now)))
		if h.State != HostUp {
			continue
		}
		if h.Note != "" {
			fmt.Fprintln(w, "  "+safe(h.Note))
			continue
		}
		if len(h.Ticks) == 0 {
			fmt.Fprintln(w, "  nothing is open there")
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, t := range h.Ticks {
			kind := t.Kind
			if kind == "" {
				kind = "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", safe(h.Name+":"+t.ID), safe(t.Title), safe(t.Status), safe(kind))
		}
		tw.Flush()
		for _, a := range h.Agents {
			line := fmt.Sprintf("%s:%s: %s %s, session %s", h.Name, a.Pane, a.Agent, a.State, a.Session)
			if a.Pane == "" {
				line = fmt.Sprintf("%s: %s %s, session %s", h.Name, a.Agent, a.State, a.Session)
			}
			fmt.Fprintln(w, "  "+safe(line))
		}
	}
}

// HostLine is a host's state in one line: "host gpu (up)", "host gpu: unreachable since 23:05
// (REASON), next try in 12s", "host gpu: connecting since 23:05".
func HostLine(h HostListing, now time.Time) string {
	if h.State == HostUp {
		return fmt.Sprintf("host %s (%s)", h.Name, HostStatus(h, now))
	}
	return fmt.Sprintf("host %s: %s", h.Name, HostStatus(h, now))
}

// HostStatus is a host's state in words: "up" (with the name the host gives itself when it is
// another), "unreachable since 23:05 (REASON), next try in 12s", "unreachable since 23:05,
// trying again (last try: REASON)", "connecting since 23:05". Since is from when the host was
// lost (Down), when it was.
func HostStatus(h HostListing, now time.Time) string {
	since := func(at string) string {
		if t, err := time.Parse(time.RFC3339, at); err == nil {
			return " since " + clock(t.Local(), now)
		}
		return ""
	}
	lost := since(h.Down)
	if lost == "" {
		lost = since(h.Since)
	}
	switch {
	case h.State == HostUp:
		if h.Hostname != "" && h.Hostname != h.Name {
			return "up, " + h.Hostname
		}
		return "up"
	case h.State == HostUnreachable:
		line := "unreachable" + lost
		if h.Reason != "" {
			line += " (" + h.Reason + ")"
		}
		if h.NextTryInS != nil {
			if *h.NextTryInS > 0 {
				line += fmt.Sprintf(", next try in %s", time.Duration(*h.NextTryInS)*time.Second)
			} else {
				line += ", trying again now"
			}
		}
		return line
	case h.State == HostConnecting && h.Down != "":
		line := "unreachable" + lost + ", trying again"
		if h.Reason != "" {
			line += " (last try: " + h.Reason + ")"
		}
		return line
	}
	line := h.State + since(h.Since)
	if h.Reason != "" {
		line += " (last try: " + h.Reason + ")"
	}
	return line
}

// clock writes t as a time of day when it is today, else with its date.
func clock(t, now time.Time) string {
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

var runOpen = request[OpenParams, TickInfo]{method: MethodOpen, max: -1, rest: true,
	flags: func(r *runner, fs *flag.FlagSet) func([]string) (OpenParams, int) {
		cwd := fs.String("cwd", "", "the working `DIR` (default: this one; with --host, that host's default)")
		shell := fs.Bool("shell", false, "open a plain terminal program (default $SHELL) instead of a Tick")
		sandbox := fs.Bool("sandbox", false, "run it in a sandbox (bubblewrap) whatever the config's sandbox setting")
		onHost := fs.String("host", "", "open it on the other host `NAME` of the config's [[hosts]], shown here")
		return func(argv []string) (OpenParams, int) {
			if len(argv) == 0 && !*shell {
				fs.Usage()
				return OpenParams{}, ExitUsage
			}
			if *onHost != "" {
				// A directory of that host: nothing here resolves it.
				if *cwd != "" && !filepath.IsAbs(*cwd) {
					return OpenParams{}, r.fail(failure(ReasonBadRequest, "--cwd %q: with --host it is a directory on that host, and must be absolute", *cwd))
				}
				return OpenParams{Command: argv, Cwd: *cwd, Shell: *shell, Sandbox: *sandbox, Host: *onHost}, ExitOK
			}
			dir, err := absDir(*cwd)
			if err != nil {
				return OpenParams{}, r.fail(err)
			}
			return OpenParams{Command: argv, Cwd: dir, Shell: *shell, Sandbox: *sandbox}, ExitOK
		}
	},
	print: func(r *runner, _ OpenParams, t TickInfo) int {
		if t.Host != "" {
			fmt.Fprintf(r.out, "%s:%s opened on %s: %s\n", safe(t.Host), safe(t.ID), safe(t.Host), safe(strings.Join(t.Command, " ")))
			return ExitOK
		}
		if t.Kind != "" {
			fmt.Fprintf(r.out, "%s %s: %s (%s)\n", t.ID, t.Status, safe(t.Title), safe(t.Kind))
		} else {
			fmt.Fprintf(r.out, "%s %s: %s\n", t.ID, t.Status, safe(t.Title))
		}
		return ExitOK
	},
}.run

var runDescribe = request[IDParams, Description]{method: MethodDescribe, min: 1, max: 1,
	flags: noFlags(func(pos []string) IDParams { return IDParams{ID: pos[0]} }),
	print: func(r *runner, _ IDParams, d Description) int {
		fmt.Fprintf(r.out, "%s  %s (%s), revision %q\n", d.ID, safe(d.Title), safe(d.Kind), safe(d.Revision))
		if d.Description != "" {
			fmt.Fprintln(r.out, safe(d.Description))
		}
		if d.RecoverWith != "" {
			fmt.Fprintf(r.out, "recover with: %s\n", safe(d.RecoverWith))
		}
		if d.State != nil {
			for _, s := range d.State.Series {
				fmt.Fprintf(r.out, "series: %q, newest %s\n", safe(s.Path), safe(s.Newest))
			}
		}
		fmt.Fprintln(r.out, "\ntools:")
		for _, t := range d.Tools {
			mark := ""
			if t.Mutates {
				mark = "  [mutates: the person approves each call]"
			}
			fmt.Fprintf(r.out, "  %s%s\n", safe(t.Name), mark)
			if t.Description != "" {
				fmt.Fprintf(r.out, "      %s\n", safe(t.Description))
			}
			fmt.Fprintf(r.out, "      args: %s\n", safe(string(t.InputSchema)))
			for _, u := range t.NotChecked {
				fmt.Fprintf(r.out, "      not checked by tickmux: %s\n", safe(u))
			}
		}
		return ExitOK
	},
}.run

var runRead = request[ReadParams, trim.Entry]{method: MethodRead, min: 1, max: 1,
	flags: func(_ *runner, fs *flag.FlagSet) func([]string) (ReadParams, int) {
		full := fs.Bool("full", false, "the whole state, not trimmed to the 16 KiB delivery budget")
		return func(pos []string) (ReadParams, int) { return ReadParams{ID: pos[0], Full: *full}, ExitOK }
	},
	print: func(r *runner, _ ReadParams, e trim.Entry) int {
		r.printEntry(e, false)
		return ExitOK
	},
}.run

// printEntry writes a state for a person: a header, the data indented, what the trim dropped.
func (r *runner) printEntry(e trim.Entry, merged bool) {
	fmt.Fprintf(r.out, "%s seq %d at %s", e.ID, e.Seq, safe(e.At))
	if merged {
		fmt.Fprintf(r.out, ", %d merged", e.Merged)
	}
	if e.RecoverWith != "" {
		fmt.Fprintf(r.out, " (recover with %s)", safe(e.RecoverWith))
	}
	fmt.Fprintln(r.out)
	fmt.Fprintln(r.out, indentJSON(e.Data))
	for _, d := range e.Trimmed {
		fmt.Fprintf(r.out, "trimmed: %s at %q: %d dropped\n", d.What, safe(d.Pointer), d.Dropped)
	}
}

var runCall = request[CallParams, json.RawMessage]{method: MethodCall, min: 2, max: 3,
	flags: func(r *runner, fs *flag.FlagSet) func([]string) (CallParams, int) {
		revision := fs.String("revision", "", "the catalog revision `R` the call was prepared against (default: the current one)")
		noWait := fs.Bool("no-wait", false, "do not wait for the person: print a ticket (call:kept-N) that tickmux wait --call collects; the card stays until answered")
		return func(pos []string) (CallParams, int) {
			p := CallParams{ID: pos[0], Tool: pos[1], Revision: *revision}
			if *noWait {
				// A second is enough for the card to go up; the call then outlives this process.
				p.TicketAfterS, p.Keep = ptr(noWaitAfter.Seconds()), true
			}
			if len(pos) == 3 {
				p.Args = json.RawMessage(pos[2])
				if !json.Valid(p.Args) || !bytes.HasPrefix(bytes.TrimSpace(p.Args), []byte("{")) {
					return p, r.usageError("ARGS-JSON must be a JSON object, such as '{\"amount\": 2}'")
				}
			}
			return p, ExitOK
		}
	},
	// The answer is a CallResult or, with --no-wait, a Ticket: which one its status says.
	print: func(r *runner, _ CallParams, raw json.RawMessage) int {
		var res CallResult
		if !r.decodeInto(raw, &res) {
			return ExitFailed
		}
		if res.Status != StatusOK { // a ticket
			var tk Ticket
			if !r.decodeInto(raw, &tk) {
				return ExitFailed
			}
			fmt.Fprintf(r.out, "%s %s\n", safe(tk.Call), safe(tk.Status))
			fmt.Fprintf(r.errw, "tickmux call: %s is under way; tickmux wait --call %s gives its outcome\n", safe(tk.Call), safe(tk.Call))
			return ExitOK
		}
		fmt.Fprintln(r.out, indentJSON(res.Result))
		return ExitOK
	},
}.run

// noWaitAfter is how long call --no-wait waits before it answers with a ticket.
const noWaitAfter = time.Second

var runWait = request[waitRequest, WaitResult]{method: MethodWait, max: -1,
	flags: func(_ *runner, fs *flag.FlagSet) func([]string) (waitRequest, int) {
		timeout := fs.Duration("timeout", 0, "give up after this long (default: wait until news)")
		after := map[string]uint64{}
		fs.Func("after", "`ID=SEQ`: count news for ID after SEQ (default: after its state when the wait starts)", func(s string) error {
			id, seq, ok := strings.Cut(s, "=")
			n, err := strconv.ParseUint(seq, 10, 64)
			if !ok || id == "" || err != nil {
				return errors.New("want ID=SEQ, such as hosted:1=12")
			}
			after[id] = n
			return nil
		})
		var calls []string
		fs.Func("call", "`CALL`: wait for the outcome of this ticket from call --no-wait (repeat for more); with no ID, state news does not end the wait", func(s string) error {
			if s == "" {
				return errors.New("an empty call")
			}
			calls = append(calls, s)
			return nil
		})
		return func(ids []string) (waitRequest, int) {
			p := WaitParams{IDs: ids, AfterSeq: after, FromNow: true, Calls: calls}
			if *timeout > 0 {
				p.TimeoutS = ptr(timeout.Seconds())
			}
			return waitRequest{p, *timeout}, ExitOK
		}
	},
	print: func(r *runner, p waitRequest, res WaitResult) int {
		for i, e := range res.Entries {
			if i > 0 {
				fmt.Fprintln(r.out)
			}
			r.printEntry(e, true)
		}
		for _, g := range res.Gone {
			fmt.Fprintf(r.out, "%s: %s\n", g.ID, safe(g.Reason))
		}
		code := ExitOK
		for _, o := range res.Calls {
			fmt.Fprintf(r.out, "%s: %s\n", safe(o.Call), safe(o.Status))
			if o.Status == StatusOK {
				fmt.Fprintln(r.out, indentJSON(o.Result))
				continue
			}
			code = ExitFailed
			if o.Error != nil {
				fmt.Fprintf(r.out, "%s (effect: %s)\n", safe(o.Error.Message), o.Error.Effect)
			}
		}
		if res.TimedOut {
			fmt.Fprintf(r.errw, "tickmux wait: no news within %v\n", p.timeout)
			return ExitFailed
		}
		return code
	},
}.run

// waitRequest is wait's params (sent as WaitParams) and its timeout, for the message.
type waitRequest struct {
	WaitParams
	timeout time.Duration
}

var runSend = request[SendParams, SendResult]{method: MethodSend, min: 2, max: 2,
	flags: func(r *runner, fs *flag.FlagSet) func([]string) (SendParams, int) {
		enter := fs.Bool("enter", false, "press Enter after the text")
		return func(pos []string) (SendParams, int) {
			text := pos[1]
			if text == "-" {
				b, err := io.ReadAll(r.in)
				if err != nil {
					return SendParams{}, r.usageError("cannot read the text from stdin: %v", err)
				}
				text = string(b)
			}
			if *enter {
				text += "\r"
			}
			return SendParams{ID: pos[0], Text: text}, ExitOK
		}
	},
	print: func(r *runner, _ SendParams, res SendResult) int {
		fmt.Fprintf(r.out, "typed %d bytes into %s\n", res.Bytes, res.ID)
		return ExitOK
	},
}.run

var runScreen = request[IDParams, ScreenResult]{method: MethodScreen, min: 1, max: 1,
	flags: noFlags(func(pos []string) IDParams { return IDParams{ID: pos[0]} }),
	print: func(r *runner, _ IDParams, res ScreenResult) int {
		fmt.Fprintln(r.out, host.Printable(res.Text, true))
		return ExitOK
	},
}.run

var runClose = request[IDParams, CloseResult]{method: MethodClose, min: 1, max: 1,
	flags: noFlags(func(pos []string) IDParams { return IDParams{ID: pos[0]} }),
	print: func(r *runner, _ IDParams, res CloseResult) int {
		fmt.Fprintf(r.out, "closed %s\n", res.ID)
		return ExitOK
	},
}.run

func runMCP(r *runner, args []string) int {
	fs := r.flags()
	callWait := fs.Duration("call-wait", DefaultCallWait, "how long call_tick and query_tick wait before they answer with a ticket (keep it below the client's request timeout)")
	if _, ok := r.parse(args, 0, 0, false); !ok {
		return ExitUsage
	}
	ctx, stop := r.context()
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(r.errw, format+"\n", args...) }
	m := NewMCP(mcpSocket(r.socket, logf), MCPOptions{Logf: logf, CallWait: *callWait})
	defer m.Close()
	in, ok := r.in.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(r.in)
	}
	err := m.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopWriteCloser{r.out}})
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(r.errw, "tickmux mcp: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

func runServe(r *runner, args []string) int {
	fs := r.flags()
	var opens [][]string
	fs.Func("open", "open this Tick at start (a `COMMAND` line, split at spaces; repeat for more)", func(s string) error {
		argv := strings.Fields(s)
		if len(argv) == 0 {
			return errors.New("an empty command")
		}
		opens = append(opens, argv)
		return nil
	})
	if _, ok := r.parse(args, 0, 0, false); !ok {
		return ExitUsage
	}
	ctx, stop := r.context()
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(r.errw, "tickmux serve: "+format+"\n", args...) }
	// No approver: nobody can answer a card without a screen, so every change an agent asks for
	// is refused at once. Only tests answer approvals headless, in-process (agent/agenttest).
	h := host.New(host.Config{Logf: logf})
	defer h.Close()
	srv, err := Serve(h, SocketPath(r.socket), Options{Logf: logf})
	if err != nil {
		fmt.Fprintf(r.errw, "tickmux: %v\n", err)
		return ExitFailed
	}
	defer srv.Close()
	for _, argv := range opens {
		if _, err := h.Open(host.OpenSpec{Argv: argv}); err != nil {
			fmt.Fprintf(r.errw, "tickmux serve: cannot open %q: %v\n", argv, err)
		}
	}
	fmt.Fprintf(r.errw, "tickmux serve: listening on %s (headless: nobody can approve, so mutating calls, open, close and send are refused)\n", srv.Path())
	<-ctx.Done()
	return ExitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// safe escapes untrusted text for a terminal (H-SEC2).
// safe escapes a text a Tick or an agent sent and caps it: a Tick's 400,000-character
// description is not printed whole (--json gives it all).
func safe(s string) string { return host.Printable(host.Cap(s, maxPrinted), false) }

// maxPrinted is how many characters of one Tick text field a verb prints for a person.
const maxPrinted = 2000

// indentJSON pretty-prints untrusted JSON for a terminal.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return safe(string(raw))
	}
	return host.Printable(b.String(), true)
}
