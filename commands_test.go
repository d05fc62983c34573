package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
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
			for _, line := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
					t.Errorf("tickmux %q shows a flag with one dash: %q", args, line)
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
