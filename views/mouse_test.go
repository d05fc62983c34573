package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

func (hs *harness) click(x, y int) {
	hs.screen.InjectMouse(x, y, tcell.Button1, tcell.ModNone)
	hs.sync()
	hs.screen.InjectMouse(x, y, tcell.ButtonNone, tcell.ModNone)
	hs.sync()
}

// tickBesideShell runs the UI with a fake Tick and, split beside it with prefix %, a shell.
func tickBesideShell(t *testing.T, w, h int) (*harness, *host.Instance) {
	t.Helper()
	hs := newHarness(t, w, h)
	a := hs.openTick("plain")
	hs.start()
	hs.prefix()
	hs.typeText("%")
	hs.waitFor("shell:1")
	return hs, a
}

func (hs *harness) focus() string { return onUIValue(hs, func() string { return hs.app.tab.focus }) }
func (hs *harness) rects() map[string]Rect {
	return onUIValue(hs, func() map[string]Rect { return hs.app.paneRects() })
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Key table (README "Using tickmux"): a mouse click moves the focus; drag a border to resize.
func TestMouseFocusesAndDragsBorders(t *testing.T) {
	hs, a := tickBesideShell(t, 120, 40)
	rects := hs.rects()
	ra := rects[a.ID()]

	// A click in the Tick's pane focuses it.
	hs.click(ra.X+3, ra.Y+3)
	waitUntil(t, "the click focused "+a.ID(), func() bool { return hs.focus() == a.ID() })

	// Dragging the border between the panes moves it.
	border := ra.X + ra.W // the first column of the second pane
	hs.screen.InjectMouse(border, 10, tcell.Button1, tcell.ModNone)
	hs.sync()
	hs.screen.InjectMouse(border-10, 10, tcell.Button1, tcell.ModNone)
	hs.sync()
	hs.screen.InjectMouse(border-10, 10, tcell.ButtonNone, tcell.ModNone)
	hs.sync()
	waitUntil(t, "the drag moved the border", func() bool {
		r := hs.rects()
		return r[a.ID()].W <= ra.W-8
	})
}

// Key table (README "Using tickmux"): prefix `{` `}` (swap), `H J K L` (resize), `w` (float).
func TestSwapResizeAndFloat(t *testing.T) {
	hs, a := tickBesideShell(t, 120, 40)
	ids := func() string {
		return strings.Join(onUIValue(hs, func() []string { return hs.app.tab.layout.IDs() }), " ")
	}

	// Swap: the focused shell trades places with the Tick.
	hs.prefix()
	hs.typeText("}")
	waitUntil(t, "swap", func() bool { return ids() == "shell:1 "+a.ID() })

	// Resize with keys.
	before := hs.rects()["shell:1"].W
	hs.prefix()
	hs.typeText("L")
	waitUntil(t, "resize", func() bool {
		return hs.rects()["shell:1"].W > before
	})

	// Float the shell over the Tick, hide it by moving the focus, show it again, put it back.
	hs.prefix()
	hs.typeText("F") // float (tmux's w is choose-tree)
	waitUntil(t, "float", func() bool { return ids() == a.ID() })
	scr := hs.waitFor("floating")
	if !strings.Contains(scr, "VIEWTICK") {
		t.Fatalf("the tiled Tick is not drawn under the float:\n%s", scr)
	}
	hs.prefix()
	hs.typeText("h")
	hs.waitGone("floating")
	if f := hs.focus(); f != a.ID() {
		t.Fatalf("focus %s after leaving the float", f)
	}
	hs.prefix()
	hs.typeText("F") // float (tmux's w is choose-tree)
	hs.waitFor("floating")
	hs.prefix()
	hs.typeText("F") // float (tmux's w is choose-tree)
	hs.waitGone("floating")
	waitUntil(t, "unfloat, back where it was", func() bool { return ids() == "shell:1 "+a.ID() })
}

// Key table (README "Using tickmux"): prefix `t`; docs/reference.md CONFIGURATION `side_panel = "auto"`.
func TestPanelToggleAndAutoWidth(t *testing.T) {
	hs := newHarness(t, 90, 30) // under 100 columns: no panel by default
	hs.openTick("plain")
	hs.start()
	scr := hs.waitFor("VIEWTICK")
	if strings.Contains(scr, "agent panel") {
		t.Fatal("the panel shows below 100 columns")
	}
	hs.prefix()
	hs.typeText("t")
	hs.waitFor("agent panel")
	hs.prefix()
	hs.typeText("t")
	hs.waitGone("agent panel")
}

// Key table (README "Using tickmux"): a mouse click moves the focus (here on the status bar).
func TestStatusBarClickFocuses(t *testing.T) {
	hs, a := tickBesideShell(t, 120, 30)
	scr := hs.waitFor(" " + a.ID() + " ")
	last := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	bar := []rune(last[len(last)-1])
	x := strings.Index(string(bar), a.ID())
	if x < 0 {
		t.Fatalf("status bar %q", string(bar))
	}
	col := len([]rune(string(bar)[:x]))
	hs.click(col+1, 29)
	waitUntil(t, "the click on the status bar focused "+a.ID(), func() bool { return hs.focus() == a.ID() })
}
