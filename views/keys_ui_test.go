package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/vt"
)

// openShell opens a plain program in a pane through the UI goroutine and waits for it to draw.
func (hs *harness) openShell(script, ready string) *host.Instance {
	hs.t.Helper()
	var in *host.Instance
	var err error
	hs.onUI(func() {
		in, err = hs.app.Open(host.OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", script}})
	})
	if err != nil {
		hs.t.Fatal(err)
	}
	if ready != "" {
		hs.waitFor(ready)
	}
	return in
}

// Key table (README "Using tickmux"): prefix `g`, then `C-g`: outside locked mode no key without the prefix is taken.
func TestCtrlGReachesThePane(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.start()
	hs.openShell("printf 'cat-ready\\n'; exec cat -v", "cat-ready")
	hs.key(tcell.KeyCtrlG, 'g', tcell.ModCtrl)
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	hs.waitFor("^G")
	if m := onUIValue(hs, func() keymap.Mode { return hs.app.view.mode }); m != keymap.ModeRoot {
		t.Fatalf("a bare C-g switched tickmux to %s mode", m)
	}
}

// cursorLine is the text of the scroll-mode cursor's line in the focused pane.
func (hs *harness) cursorLine() string {
	return onUIValue(hs, func() string {
		v, ok := hs.app.focusedPane().term.(*TerminalView)
		if !ok || v.sm == nil {
			return "<not in scroll mode>"
		}
		cells, _ := v.term.Line(v.sm.line, []vt.Cell(nil))
		text, _ := lineText(cells)
		return strings.TrimRight(text, " ")
	})
}

// waitCursorLine polls the scroll-mode cursor's line until it is want or 5 s have passed, and
// returns the last line seen: keys reach the UI through tcell's and tview's queues, so a fixed
// pause after them is not enough on a loaded machine.
func (hs *harness) waitCursorLine(want string) string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := hs.cursorLine()
		if got == want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Key table (README "Using tickmux"): prefix `[`: scroll mode and its search.
func TestScrollModeSearchThroughTheKeys(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.start()
	hs.openShell("i=1; while [ $i -le 2000 ]; do echo line $i; i=$((i+1)); done; echo all-printed; exec sleep 60", "all-printed")
	hs.prefix()
	hs.typeText("[")
	hs.waitFor("SCROLL")
	// Every key of the query is the query's: 'l', 'i', 'n', 'e', ' ' and the digits are
	// scroll-mode keys too, and Enter would copy.
	hs.typeText("?line 1234")
	hs.waitFor("(search up) line 1234")
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	if got := hs.waitCursorLine("line 1234"); got != "line 1234" {
		t.Fatalf("after ?line 1234 Enter the cursor is on %q", got)
	}
	if m := onUIValue(hs, func() keymap.Mode { return hs.app.view.mode }); m != keymap.ModeScroll {
		t.Fatalf("the search left scroll mode (%s)", m)
	}
	hs.waitFor("line 1234")

	// n repeats towards older lines, N the other way.
	hs.typeText("?line 12")
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	if got := hs.waitCursorLine("line 1233"); got != "line 1233" {
		t.Fatalf("after ?line 12 the cursor is on %q, want line 1233", got)
	}
	hs.typeText("n")
	if got := hs.waitCursorLine("line 1232"); got != "line 1232" {
		t.Fatalf("after n the cursor is on %q, want line 1232", got)
	}
	hs.typeText("N")
	if got := hs.waitCursorLine("line 1233"); got != "line 1233" {
		t.Fatalf("after N the cursor is on %q, want line 1233", got)
	}
	// / searches towards newer lines, as tmux's vi copy mode (issue 42 item 19).
	hs.typeText("/line 124")
	hs.waitFor("(search down) line 124")
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	if got := hs.waitCursorLine("line 1240"); got != "line 1240" {
		t.Fatalf("after /line 124 from line 1233 the cursor is on %q, want line 1240", got)
	}
	// Esc while typing a query cancels the query only.
	hs.typeText("/zz")
	hs.key(tcell.KeyEscape, 0, tcell.ModNone)
	if m := onUIValue(hs, func() keymap.Mode { return hs.app.view.mode }); m != keymap.ModeScroll {
		t.Fatalf("Esc in the query left scroll mode (%s)", m)
	}
	hs.typeText("q")
	hs.waitGone("SCROLL")
}
