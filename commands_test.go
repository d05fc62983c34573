package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tickmux/agent"
)

// README "Commands": `tickmux help` lists every command of mainCommands, once, in its order (by
// name): those people run, then those tickmux starts itself or scripts use (example, serve,
// server); and the global options.
func TestHelpListsTheCommandTable(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"help"}, stdio{out: &out, err: &out}); code != 0 {
		t.Fatalf("tickmux help exited %d: %s", code, out.String())
	}
	var listed []string
	for _, line := range strings.Split(out.String(), "\n") {
		rest, ok := strings.CutPrefix(line, "  tickmux ")
		if !ok || strings.HasPrefix(rest, "[") {
			continue // the usage line, a summary on its own line, or the default command
		}
		listed = append(listed, strings.Fields(rest)[0])
	}
	var want, visible, hidden []string
	for _, c := range mainCommands() {
		if c.hidden {
			hidden = append(hidden, c.name)
		} else {
			visible = append(visible, c.name)
		}
	}
	want = append(append(want, visible...), hidden...)
	if !slices.Equal(listed, want) {
		t.Errorf("help lists %q, want %q", listed, want)
	}
	if !slices.IsSorted(visible) || !slices.IsSorted(hidden) {
		t.Errorf("the commands in mainCommands are not in name order: %q, %q", visible, hidden)
	}
	for _, opt := range []string{"--socket PATH", "--log PATH", "--config PATH", "--json", "--version", "--help"} {
		if !strings.Contains(out.String(), "\n  "+opt) && !strings.Contains(out.String(), ", "+opt) {
			t.Errorf("help does not list the option %s:\n%s", opt, out.String())
		}
	}
}

// `tickmux help NAME` and `tickmux NAME --help` print that command's own usage (its line from
// mainCommands, its summary, its flags with two dashes) on stdout and exit 0, for every command.
func TestHelpForEachCommand(t *testing.T) {
	for _, c := range mainCommands() {
		for _, args := range [][]string{{"help", c.name}, {c.name, "--help"}, {c.name, "-h"}} {
			var out, errw bytes.Buffer
			code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errw})
			if code != 0 || errw.Len() > 0 {
				t.Errorf("tickmux %q exited %d, stderr %q", args, code, errw.String())
			}
			if !strings.HasPrefix(out.String(), "usage: tickmux "+c.name) {
				t.Errorf("tickmux %q printed another usage:\n%s", args, out.String())
			}
			// Two dashes, but one for a one-letter flag (-n N, -t NAME), as the usage writes it.
			for _, line := range strings.Split(out.String(), "\n") {
				name, ok := strings.CutPrefix(line, "  -")
				if !ok {
					continue
				}
				long := strings.HasPrefix(name, "-")
				name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), " ")
				if long == (len(name) == 1) {
					t.Errorf("tickmux %q shows a flag with the wrong dashes: %q", args, line)
				}
			}
		}
	}
	// A boolean flag takes no value: its description is not read as the value's name.
	var out bytes.Buffer
	run([]string{"help", "call"}, stdio{out: &out, err: &out})
	if !strings.Contains(out.String(), "\n  --no-wait\n") {
		t.Errorf("call's --no-wait is not shown as a boolean:\n%s", out.String())
	}
	if code := run([]string{"help", "no-such"}, stdio{out: &out, err: &out}); code != 2 {
		t.Errorf("help for an unknown command exited %d", code)
	}
}

// `tickmux --version` prints the version and the Go release it was built with.
func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"--version"}, stdio{out: &out, err: &out}); code != 0 || !strings.HasPrefix(out.String(), "tickmux ") || !strings.Contains(out.String(), "go1.") {
		t.Fatalf("tickmux --version exited %d: %q", code, out.String())
	}
}

// Every command is listed once: a second entry with the same name would never run.
func TestCommandNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range mainCommands() {
		if seen[c.name] {
			t.Errorf("command %q is listed twice", c.name)
		}
		seen[c.name] = true
		if c.run == nil || c.usage == "" || c.summary == "" {
			t.Errorf("command %q lacks its run, usage or summary", c.name)
		}
	}
}

// Issue 42 item 2: the global options (--socket, --log, --config) come before any command, the
// help and the version included, and a command with no use for one given there ignores it: nothing is taken
// for a Tick to start, and no "flag provided but not defined".
func TestGlobalOptionsEverywhere(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("theme = \"light\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		out  string // what stdout starts with
	}{
		{[]string{"--socket", sock, "help"}, 0, "usage: tickmux [OPTIONS]"},
		{[]string{"--socket=" + sock, "--log", filepath.Join(dir, "l"), "help", "call"}, 0, "usage: tickmux call"},
		{[]string{"--socket", sock, "--help"}, 0, "usage: tickmux [OPTIONS]"},
		{[]string{"--socket", sock, "--version"}, 0, "tickmux "},
		{[]string{"--socket", sock, "log", "--dir", dir}, 0, ""},
		{[]string{"--socket", sock, "--config", cfg, "log", "--dir", dir}, 0, ""},
		{[]string{"--config", cfg, "ls", "--socket", sock}, agent.ExitNotRunning, ""}, // no server: said so, not a usage error
		{[]string{"--config", cfg, "--log", filepath.Join(dir, "l"), "sessions", "--socket", sock}, 1, ""},
		{[]string{"--socket", sock, "doctor", "--help"}, 0, "usage: tickmux doctor"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		if code != c.code || !strings.HasPrefix(out.String(), c.out) || strings.Contains(errb.String(), "not defined") || strings.Contains(errb.String(), "needs a terminal") {
			t.Errorf("tickmux %q: exit %d (want %d)\nstdout %q\nstderr %q", c.args, code, c.code, out.String(), errb.String())
		}
	}
	if _, err := os.Stat(sock); err == nil {
		t.Errorf("a server was started on %s", sock)
	}
	// After the command, its own flags only: one it does not take is a usage error.
	var out, errb bytes.Buffer
	if code := run([]string{"log", "--socket", sock}, stdio{out: &out, err: &errb}); code != 2 || !strings.HasPrefix(errb.String(), "flag provided but not defined: -socket\nusage: tickmux log") {
		t.Errorf("tickmux log --socket S: exit %d, %q", code, errb.String())
	}
}

// Issue 42 item 2: a word where a command goes that is no command is an error (exit 2) with the
// command it is likely a typo of and how to run a program of that name, never a Tick started,
// before and after global options.
func TestUnknownCommandIsNoTick(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	for _, c := range []struct {
		args       []string
		first, how string
	}{
		{[]string{"lsit"}, `tickmux: unknown command "lsit" (did you mean ls?)`, "to run a program: tickmux -- lsit"},
		{[]string{"--socket", sock, "lsit", "-l"}, `tickmux: unknown command "lsit" (did you mean ls?)`, "to run a program: tickmux --socket " + sock + " -- lsit -l"},
		{[]string{"--plain", "top"}, `tickmux: unknown command "top"`, "to run a program: tickmux --plain -- top"},
		{[]string{"atach"}, `tickmux: unknown command "atach" (did you mean attach?)`, "tickmux -- atach"},
		{[]string{"--socket", sock, "sesions"}, `tickmux: unknown command "sesions" (did you mean sessions?)`, ""},
		{[]string{"kill-session"}, `tickmux: unknown command "kill-session" (did you mean kill-server?)`, ""},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		first, _, _ := strings.Cut(errb.String(), "\n")
		if code != 2 || first != c.first || !strings.Contains(errb.String(), c.how) {
			t.Errorf("tickmux %q: exit %d, stderr:\n%s\nwant the first line %q and %q", c.args, code, errb.String(), c.first, c.how)
		}
	}
	if _, err := os.Stat(sock); err == nil {
		t.Errorf("a server was started on %s", sock)
	}
	// tmux's names answer too.
	for _, alias := range []string{"list-sessions", "new-session", "attach-session"} {
		var out bytes.Buffer
		if code := run([]string{alias, "--help"}, stdio{in: strings.NewReader(""), out: &out, err: &out}); code != 0 {
			t.Errorf("tickmux %s --help: exit %d: %s", alias, code, out.String())
		}
	}
}

// Issue 42 item 2: `tickmux attach --config FILE` reads FILE and fails with its error, exit 2, as
// a start with it would: a broken config is not passed over in silence because a server runs.
func TestAttachReadsTheConfigItIsGiven(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.toml")
	if err := os.WriteFile(broken, []byte("scrollback = \"lots\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"attach", "--config", broken}, {"--config", broken, "attach"}, {"attach", "--config", filepath.Join(dir, "none.toml")}} {
		var out, errb bytes.Buffer
		code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		if code != 2 || !strings.HasPrefix(errb.String(), "tickmux attach: ") || !strings.Contains(errb.String(), dir) {
			t.Errorf("tickmux %q: exit %d, stderr %q; want exit 2 and the config's error", args, code, errb.String())
		}
	}
}

// Issue 42 item 2: each command's usage line (with its subcommands' lines, for hosts) names every
// flag it takes, written as its flag list writes it (-n N, --dir DIR), and no flag it does not
// take. The control-socket verbs (package
// agent) all take --socket and --json, which the help's options say, and their usage lines leave
// out.
func TestUsageLinesListTheFlags(t *testing.T) {
	common := map[string]bool{"--socket": true, "--json": true}
	verbs := map[string]bool{}
	for _, v := range []agent.Verb{agent.Ls, agent.Open, agent.Describe, agent.Read, agent.Call, agent.Wait, agent.Send, agent.Screen, agent.Close, agent.MCPVerb, agent.ServeVerb, agent.HookVerb} {
		verbs[v.Name] = true
	}
	// restore prints its own usage line (cmd_restore.go), which leaves out --config and --log.
	knownGaps := map[string]string{"restore": "--config --log"}
	inUsage := regexp.MustCompile(`(?:^|[\s\[|])(--?[a-z][a-z0-9-]*)`)
	for _, c := range mainCommands() {
		var out bytes.Buffer
		run([]string{"help", c.name}, stdio{in: strings.NewReader(""), out: &out, err: &out})
		lines := strings.Split(out.String(), "\n")
		usage := strings.TrimPrefix(lines[0], "usage: tickmux "+c.name)
		if c.usage != strings.TrimPrefix(lines[0], "usage: tickmux ") && c.name != "restore" && c.name != "example" {
			t.Errorf("%s: tickmux help prints %q, its --help %q", c.name, c.usage, lines[0])
		}
		said := map[string]bool{}
		for _, l := range append([]string{usage}, lines[1:]...) {
			if l != usage && !strings.HasPrefix(l, "  tickmux "+c.name+" ") { // a subcommand's own usage (hosts add)
				continue
			}
			for _, m := range inUsage.FindAllStringSubmatch(l, -1) {
				said[m[1]] = true
			}
		}
		listed := map[string]bool{}
		for _, l := range lines {
			if rest, ok := strings.CutPrefix(l, "  -"); ok {
				listed["-"+strings.Fields(rest)[0]] = true
			}
		}
		for f := range listed {
			if !said[f] && !(verbs[c.name] && common[f]) && !strings.Contains(knownGaps[c.name], f) {
				t.Errorf("%s: takes %s, which its usage line %q leaves out", c.name, f, lines[0])
			}
		}
		for f := range said {
			if !listed[f] {
				t.Errorf("%s: its usage line %q names %s, which it does not take", c.name, lines[0], f)
			}
		}
	}
}
