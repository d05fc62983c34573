package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

func (hs *harness) press(keys string) {
	hs.prefix()
	hs.typeText(keys)
}

func (hs *harness) tabCount() int {
	return onUIValue(hs, func() int { return max(1, len(hs.app.tabs)) })
}

func (hs *harness) curTab() int { return onUIValue(hs, func() int { return hs.app.tabIndex() }) }

// Key table (README "Using tickmux"): prefix `c` / `n` `p` / `0`…`9` / `,`: tabs.
func TestTabsLikeTmuxWindows(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.start()
	first := hs.openShell("echo in-tab-zero; exec cat", "in-tab-zero")
	// prefix c: a new tab with a shell; the first tab's pane is hidden, not ended.
	hs.press("c")
	waitUntil(t, "a second tab", func() bool { return hs.tabCount() == 2 && hs.curTab() == 1 })
	s := hs.waitFor("1:")
	if strings.Contains(s, "in-tab-zero") {
		t.Fatalf("the first tab's pane shows in the second tab:\n%s", s)
	}
	if !strings.Contains(s, "0:") || !strings.Contains(s, "*") {
		t.Fatalf("the status bar does not list the tabs:\n%s", s)
	}
	if first.Status() == host.StatusEnded {
		t.Fatal("the hidden tab's program ended")
	}
	second := hs.focus()
	// prefix n / p / digits move between tabs.
	hs.press("n")
	waitUntil(t, "next wraps to tab 0", func() bool { return hs.curTab() == 0 })
	hs.waitFor("in-tab-zero")
	if f := hs.focus(); f != first.ID() {
		t.Fatalf("focus %s in tab 0, want %s", f, first.ID())
	}
	hs.press("p")
	waitUntil(t, "previous wraps to tab 1", func() bool { return hs.curTab() == 1 })
	hs.press("0")
	waitUntil(t, "prefix 0", func() bool { return hs.curTab() == 0 })
	hs.press("1")
	waitUntil(t, "prefix 1", func() bool { return hs.curTab() == 1 && hs.focus() == second })
	// prefix , renames the tab.
	hs.rename(",", "rename tab 1", "builds")
	hs.waitFor("1:builds*")
	// A status bar click on a hidden tab's pane shows that tab.
	hs.onUI(func() { hs.app.setFocus(first.ID()); hs.app.rebuild() })
	waitUntil(t, "the click's tab", func() bool { return hs.curTab() == 0 })
	// The last pane of a tab closing closes the tab.
	hs.press("1")
	waitUntil(t, "back to tab 1", func() bool { return hs.curTab() == 1 })
	hs.press("x")
	hs.waitFor("close " + second)
	hs.typeText("y")
	waitUntil(t, "the tab closed with its last pane", func() bool { return hs.tabCount() == 1 && hs.focus() == first.ID() })
	hs.waitFor("in-tab-zero")
}

// rename presses prefix key, waits for the prompt, and replaces the old name with name.
func (hs *harness) rename(key, prompt, name string) {
	hs.t.Helper()
	hs.press(key)
	hs.waitFor(prompt)
	for range 60 {
		hs.screen.InjectKey(tcell.KeyBackspace2, 0, tcell.ModNone)
	}
	hs.typeText(name)
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
}

// Key table (README "Using tickmux"): prefix `;` / `q`, prefix `T`.
func TestLastPaneRenameAndNumbers(t *testing.T) {
	hs, tick := tickBesideShell(t, 160, 40)
	// prefix ; goes back to the pane focused before, and again.
	if hs.focus() != "shell:1" {
		t.Fatalf("focus %s", hs.focus())
	}
	hs.press(";")
	waitUntil(t, "last pane", func() bool { return hs.focus() == tick.ID() })
	hs.press(";")
	waitUntil(t, "last pane again", func() bool { return hs.focus() == "shell:1" })
	// prefix T renames the focused pane: its border and the status bar say so.
	hs.rename("T", "rename shell:1", "my-logs")
	s := hs.waitFor("shell:1 my-logs")
	if strings.Count(s, "my-logs") < 2 {
		t.Fatalf("the new name is not on both the border and the status bar:\n%s", s)
	}
	// prefix q shows pane numbers; a digit goes there.
	hs.press("q")
	hs.waitFor(" 0 ")
	hs.typeText("0")
	waitUntil(t, "pane 0", func() bool { return hs.focus() == tick.ID() })
}

// Key table (README "Using tickmux"): prefix `R`, prefix `]`.
func TestRespawnAndPasteBuffer(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.start()
	in := hs.openShell("echo run-once; exit 3", "")
	hs.waitFor("exit status 3")
	// prefix R starts it again in the same place.
	before := hs.rects()[in.ID()]
	hs.press("R")
	waitUntil(t, "respawned", func() bool { return hs.focus() != in.ID() && hs.focus() != "" })
	if r := hs.rects()[hs.focus()]; r != before {
		t.Fatalf("respawned at %v, was at %v", r, before)
	}
	hs.waitFor("run-once")

	// Copy a line in scroll mode; prefix ] pastes it into another pane.
	cat := hs.openShell("echo paste-source-$((6*7)); exec cat", "paste-source-42")
	hs.press("[")
	hs.waitFor("SCROLL")
	hs.typeText("k")
	hs.typeText("y")
	hs.waitGone("SCROLL")
	hs.press("]")
	waitUntil(t, "the paste reached cat", func() bool {
		return strings.Count(cat.Terminal().Text(), "paste-source-42") >= 2
	})
}

// Key table (README "Using tickmux"): prefix `:`, `Up`/`Down` recall.
func TestPromptHistoryAndCompletion(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes-for-completion.txt"), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(dir, "subdir-for-completion"), 0o700)
	hs := newHarness(t, 160, 40)
	hs.start()
	hs.press(":")
	hs.waitFor("command:")
	hs.onUI(func() { hs.app.prompt.dir.SetText(dir) })
	hs.typeText("!echo first-cmd; sleep 30")
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	hs.waitFor("first-cmd")
	// Up recalls it.
	hs.press(":")
	hs.waitFor("command:")
	hs.key(tcell.KeyUp, 0, tcell.ModNone)
	hs.fieldIs(hs.app.prompt.cmd, "!echo first-cmd; sleep 30")
	hs.key(tcell.KeyDown, 0, tcell.ModNone)
	hs.fieldIs(hs.app.prompt.cmd, "")
	// Tab completes a path in the directory field's directory, and a program name.
	hs.onUI(func() { hs.app.prompt.dir.SetText(dir) })
	hs.typeText("!cat notes-for")
	hs.key(tcell.KeyTab, 0, tcell.ModNone)
	hs.fieldIs(hs.app.prompt.cmd, "!cat notes-for-completion.txt ")
	hs.onUI(func() { hs.app.prompt.cmd.SetText("!sleep") })
	hs.key(tcell.KeyTab, 0, tcell.ModNone)
	hs.fieldIs(hs.app.prompt.cmd, "!sleep ")
	// Shift-Tab moves to the directory field, where Tab completes directories.
	hs.key(tcell.KeyBacktab, 0, tcell.ModNone)
	hs.onUI(func() { hs.app.prompt.dir.SetText(dir + "/subdir-for") })
	hs.key(tcell.KeyTab, 0, tcell.ModNone)
	hs.fieldIs(hs.app.prompt.dir, dir+"/subdir-for-completion/")
	hs.key(tcell.KeyEscape, 0, tcell.ModNone)
}

// fieldIs waits until a prompt field holds want (keys travel through queues first).
func (hs *harness) fieldIs(f interface{ GetText() string }, want string) {
	hs.t.Helper()
	var got string
	waitUntil(hs.t, "the field holds "+want, func() bool {
		got = onUIValue(hs, f.GetText)
		return got == want
	})
}

// Key table (README "Using tickmux"): prefix `Q`, or `quit` at the prefix `:` prompt: asks first.
func TestPromptQuitAsksFirst(t *testing.T) {
	for _, cmd := range []string{"quit", "kill-server"} {
		hs := newHarness(t, 120, 30)
		hs.start()
		hs.openShell("echo still-here; exec cat", "still-here")
		hs.press(":")
		hs.waitFor("command:")
		hs.typeText(cmd)
		hs.key(tcell.KeyEnter, 0, tcell.ModNone)
		hs.waitFor("quit tickmux and end 1 running programs?")
		hs.typeText("n")
		hs.waitGone("quit tickmux")
	}
}
