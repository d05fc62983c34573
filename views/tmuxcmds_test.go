package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// prompt types line at the `:` prompt and Enter.
func (hs *harness) prompt(line string) {
	hs.prefix()
	hs.typeText(":")
	hs.typeText(line)
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
}

// Issue 42 item 17: tmux's commands at the `:` prompt, with tmux's names and flags.
func TestPromptRunsTmuxCommands(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 160, 40)
	hs.openTick("plain")
	hs.start()
	count := func() (panes, tabs int) {
		hs.onUI(func() {})
		return onUIValue(hs, func() int { return len(hs.app.panes) }), onUIValue(hs, func() int { return len(hs.app.tabs) })
	}
	hs.prompt("split-window -h")
	hs.waitFor("shell:1")
	if p, _ := count(); p != 2 {
		t.Fatalf("split-window -h: %d panes", p)
	}
	hs.prompt("split-window -v echo split-$((6*7)); sleep 30")
	hs.waitFor("split-42")
	hs.prompt("new-window -n build")
	hs.waitFor("1:build*")
	hs.prompt("rename-window logs")
	hs.waitFor("1:logs*")
	hs.prompt("kill-window")
	hs.waitFor("kill tab 1 (logs)")
	hs.typeText("y")
	hs.waitGone("1:logs")
	hs.prompt("select-layout even-vertical")
	hs.waitFor("layout: even-vertical")
	hs.prompt("select-layout sideways")
	hs.waitFor("select-layout sideways: use even-horizontal")
	hs.key(tcell.KeyEscape, 0, tcell.ModNone)
	hs.prompt("resize-pane -Z")
	hs.waitFor("Z zoomed")
	hs.prompt("resize-pane -Z")
	hs.waitGone("Z zoomed")
	hs.prompt("kill-pane")
	hs.waitFor("and end its program?")
	hs.typeText("y")
	if p, _ := count(); p != 2 {
		t.Errorf("kill-pane: %d panes left, want 2", p)
	}
}

// source-file reads the config again: a key bound there works at once, and a broken file is
// said, with nothing changed.
func TestPromptSourceFile(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("[keys.prefix]\n\"v\" = \"split-right\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, 160, 40)
	hs.openTick("plain")
	hs.start()
	hs.prompt("source-file " + path)
	hs.waitFor("read " + path + " again")
	hs.prefix()
	hs.typeText("v")
	hs.waitFor("shell:1")
	if err := os.WriteFile(path, []byte("theme = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hs.prompt("source-file " + path)
	txt := hs.waitFor("theme takes a string")
	if !strings.Contains(txt, "config.toml") {
		t.Errorf("the error does not name the file:\n%s", txt)
	}
}
