package views

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
)

// Issue 42 item 21: on a small terminal the panes share their borders, as tmux's do: one line
// between them with the title on it, so each pane gives up one row and at most one column, not
// two of each. A wide terminal keeps the boxes (pane_borders = "auto"); "shared" and "boxed" force
// either.
func TestSharedBordersOnASmallTerminal(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 80, 24)
	tick := hs.openTick("plain")
	hs.start()
	hs.prefix()
	hs.typeText("%") // a shell beside the Tick
	txt := hs.waitFor("shell:1")
	first := strings.SplitN(txt, "\n", 2)[0]
	if strings.ContainsAny(txt, "┌┏└┗┐┓┘┛") || !strings.HasPrefix(first, "─ hosted:1") {
		t.Fatalf("not tmux's borders at 80x24:\n%s", txt)
	}
	// The Tick's terminal: the whole pane but its title line and its line at the right; the
	// shell's, at the right edge: the whole pane but its title line.
	rects := onUIValue(hs, func() map[string]Rect { return hs.app.paneRects() })
	var shell string
	hs.onUI(func() {})
	shell = onUIValue(hs, func() string { return hs.app.tab.focus })
	for id, wantW := range map[string]int{tick.ID(): rects[tick.ID()].W - 1, shell: rects[shell].W} {
		in := hs.h.Get(id)
		deadline := 0
		for {
			c, r := in.Process().Size()
			if c == wantW && r == rects[id].H-1 {
				break
			}
			if deadline++; deadline > 400 {
				t.Fatalf("%s is %dx%d, want %dx%d (rect %+v)", id, c, r, wantW, rects[id].H-1, rects[id])
			}
			hs.sync()
		}
	}
	// Boxed, forced: each pane its own box again.
	hs.onUI(func() { hs.app.cfg.PaneBorders = config.BordersBoxed; hs.app.full = true })
	hs.key(tcell.KeyCtrlL, 0, tcell.ModCtrl)
	hs.waitFor("┏━ shell:1")
}

// A wide terminal keeps each pane's box; pane_borders = "shared" shares them there too.
func TestSharedBordersWhenAsked(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 160, 40)
	hs.openTick("plain")
	hs.start()
	hs.waitFor("┏━ hosted:1")
	hs.onUI(func() { hs.app.cfg.PaneBorders = config.BordersShared; hs.app.full = true })
	hs.prefix()
	hs.typeText("%")
	txt := hs.waitFor("shell:1")
	if strings.Contains(txt, "┏━ shell:1") || !strings.HasPrefix(txt, "─ hosted:1") {
		t.Errorf("pane_borders = shared kept the boxes:\n%s", txt)
	}
}
