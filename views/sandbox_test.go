package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// needSandbox skips a test where bubblewrap cannot make a sandbox.
func needSandbox(t *testing.T) {
	t.Helper()
	if _, err := host.SandboxAvailable(); err != nil {
		if os.Getenv("CI") == "true" { // scripts/install-test-deps installs bubblewrap: a skip would hide its absence
			t.Fatalf("no sandbox here: %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
}

// A sandboxed pane says so on its border and in the side panel's line for the focused pane, a
// badge after the id in its own style, which no title can draw; an unsandboxed one does not.
// While bwrap leads the pane's process group the border names the program, not bwrap.
func TestSandboxedPaneSaysSo(t *testing.T) {
	needSandbox(t)
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "sbx"), []byte("#!/bin/sh\necho sandbox=$TICKMUX_SANDBOX\nexec sleep 300\n"), 0o755)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	hs := newHarness(t, 160, 40)
	hs.start()
	plain := hs.openShell("echo plain-pane; exec sleep 300", "plain-pane")
	var in *host.Instance
	var err error
	hs.onUI(func() { in, err = hs.app.Open(host.OpenSpec{Shell: true, Sandbox: true, Argv: []string{"sbx"}}) })
	if err != nil {
		t.Fatal(err)
	}
	hs.waitFor("sandbox=1")
	// The panel shows the focused pane, the new one.
	scr := hs.waitFor(in.ID() + "  sandboxed  sbx  ready")
	if !strings.Contains(scr, in.ID()+"  sandboxed  sbx · ready ") {
		t.Errorf("the sandboxed pane's border lacks %q:\n%s", in.ID()+"  sandboxed  sbx · ready ", scr)
	}
	// The badge is drawn in the Sandboxed style, the title's text is not.
	if st := onUIValue(hs, func() tcell.Style { return styleAt(hs, in.ID()+"  sandboxed", len(in.ID())+2) }); st != hs.app.theme.Sandboxed {
		t.Errorf("the border's badge has style %v, want the theme's Sandboxed", st)
	}
	if !strings.Contains(scr, plain.ID()+" sleep · ready ─") {
		t.Errorf("the unsandboxed pane's border is not %q:\n%s", plain.ID()+" sleep · ready ─", scr)
	}
	hs.onUI(func() { hs.app.setFocus(plain.ID()); hs.app.rebuild() })
	scr = hs.waitFor(plain.ID() + "  /bin/sh -c echo plain-pane; exec sleep 300  ready")
	if strings.Contains(scr, "ready · sandboxed │") {
		t.Errorf("the panel says the unsandboxed pane is sandboxed:\n%s", scr)
	}
}

// prefix S opens a sandboxed shell ($SHELL) beside the focused pane, in its directory, focused.
// Key table (README "Using tickmux"): prefix `S`.
func TestPrefixSOpensASandboxedShell(t *testing.T) {
	needSandbox(t)
	dir := filepath.Join(t.TempDir(), "work-sbx")
	os.Mkdir(dir, 0o755)
	shell := filepath.Join(t.TempDir(), "shell.sh")
	os.WriteFile(shell, []byte("#!/bin/sh\necho \"in=$(basename $(pwd)) sandbox=$TICKMUX_SANDBOX procs=$(ps -e -o pid= | wc -l)\"\nexec sleep 300\n"), 0o755)
	t.Setenv("SHELL", shell)
	hs := newHarness(t, 160, 40)
	hs.start()
	var first *host.Instance
	var err error
	hs.onUI(func() {
		first, err = hs.app.Open(host.OpenSpec{Shell: true, Dir: dir, Argv: []string{"/bin/sh", "-c", "echo first; exec sleep 300"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	hs.waitFor("first")
	before := hs.rects()[first.ID()]
	hs.press("S")
	waitUntil(t, "a new pane focused", func() bool { return hs.focus() != first.ID() && hs.focus() != "" })
	id := hs.focus()
	// bwrap, the shell, the $(...) subshell, ps and wc: nothing of the host's.
	scr := hs.waitFor("in=work-sbx sandbox=1 procs=5")
	if !strings.Contains(scr, id+"  sandboxed  shell.sh · ready") {
		t.Errorf("the new pane's border does not say sandboxed:\n%s", scr)
	}
	after := hs.rects()
	if after[id].Y != after[first.ID()].Y || after[id].X <= after[first.ID()].X || after[first.ID()].W >= before.W {
		t.Errorf("the sandboxed shell is not to the right of the pane split: %v and %v (was %v)", after[first.ID()], after[id], before)
	}
	in := hs.h.Get(id)
	if in == nil || !in.Sandboxed() {
		t.Fatalf("%s is not sandboxed", id)
	}
}

// Where bubblewrap cannot start, prefix S opens nothing, sandboxed or not, and the status line
// says why.
func TestPrefixSWithoutBubblewrap(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.start()
	first := hs.openShell("echo first; exec sleep 300", "first")
	t.Setenv("PATH", t.TempDir()) // no bwrap on it
	hs.press("S")
	hs.waitFor("bubblewrap (bwrap) is not on PATH")
	if ids := onUIValue(hs, func() []string { return hs.app.tab.layout.IDs() }); len(ids) != 1 || ids[0] != first.ID() {
		t.Fatalf("panes after a refused prefix S: %v", ids)
	}
	if n := len(hs.h.Instances()); n != 1 {
		t.Fatalf("%d instances after a refused prefix S, want 1", n)
	}
}

// prefix R starts an ended sandboxed pane's program again in a sandbox.
// Key table (README "Using tickmux"): prefix `R`.
func TestRespawnKeepsTheSandbox(t *testing.T) {
	needSandbox(t)
	hs := newHarness(t, 160, 40)
	hs.start()
	var in *host.Instance
	var err error
	hs.onUI(func() {
		in, err = hs.app.Open(host.OpenSpec{Shell: true, Sandbox: true, Argv: []string{"/bin/sh", "-c", "echo run sandbox=$TICKMUX_SANDBOX; exit 3"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	hs.waitFor("exit status 3")
	hs.press("R")
	waitUntil(t, "respawned", func() bool { return hs.focus() != in.ID() && hs.focus() != "" })
	id := hs.focus()
	if again := hs.h.Get(id); again == nil || !again.Sandboxed() {
		t.Fatalf("%s came back unsandboxed", id)
	}
	hs.waitFor(id + "  sandboxed  /bin/sh -c echo run sandbox=$TICKMUX_SANDBOX; exit 3 · ended (exit")
	if scr := hs.text(); !strings.Contains(scr, "run sandbox=1") {
		t.Fatalf("the respawned program did not run sandboxed:\n%s", scr)
	}
}

// styleAt is the style of the cell off columns into the first place the screen shows text (UI
// goroutine).
func styleAt(hs *harness, text string, off int) tcell.Style {
	cells, w, h := hs.screen.GetContents()
	for y := 0; y < h; y++ {
		row := make([]rune, w)
		for x := range w {
			row[x] = ' '
			if c := cells[y*w+x]; len(c.Runes) > 0 {
				row[x] = c.Runes[0]
			}
		}
		if i := strings.Index(string(row), text); i >= 0 {
			return cells[y*w+len([]rune(string(row)[:i]))+off].Style
		}
	}
	return tcell.StyleDefault
}

// An unsandboxed program that names itself " sandboxed " (its terminal title) gets the word on
// its border, never the badge: the title is drawn in the title's style.
func TestATitleCannotDrawTheSandboxBadge(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.start()
	in := hs.openShell(`printf '\033]0; sandboxed \007'; exec sleep 300`, "")
	hs.waitFor(in.ID() + "  sandboxed  · ready")
	if st := onUIValue(hs, func() tcell.Style { return styleAt(hs, in.ID()+"  sandboxed", len(in.ID())+2) }); st == hs.app.theme.Sandboxed {
		t.Fatalf("a program's title drew the sandbox badge")
	}
}
