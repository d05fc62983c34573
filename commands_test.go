package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// README "Commands": `tickmux help` lists every command people run, once, in the order of
// mainCommands (by name), and leaves out the hidden ones (example, serve, server).
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
	var want, hidden []string
	for _, c := range mainCommands() {
		if c.hidden {
			hidden = append(hidden, c.name)
			continue
		}
		want = append(want, c.name)
	}
	if !slices.Equal(listed, want) {
		t.Errorf("help lists %q, want %q", listed, want)
	}
	if !slices.IsSorted(want) {
		t.Errorf("the visible commands in mainCommands are not in name order: %q", want)
	}
	for _, h := range hidden {
		if strings.Contains(out.String(), "tickmux "+h+" ") {
			t.Errorf("help shows the hidden command %q", h)
		}
	}
	if len(hidden) != 3 {
		t.Errorf("hidden commands %q, want example, serve and server", hidden)
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
