package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// Issue 42 item 20: a click on a tab's name on the status bar shows that tab, as tmux's status
// line does; a click on an instance still focuses its pane.
func TestClickATabOnTheStatusBar(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.start()
	hs.openShell("echo tab-zero; exec cat", "tab-zero")
	hs.press("c")
	waitUntil(t, "a second tab", func() bool { return hs.tabCount() == 2 && hs.curTab() == 1 })
	col := func(text string) int {
		t.Helper()
		bar := hs.statusLine()
		i := strings.Index(bar, text)
		if i < 0 {
			t.Fatalf("the status bar does not show %q: %q", text, bar)
		}
		return len([]rune(bar[:i]))
	}
	hs.click(col("0:")+1, 39)
	waitUntil(t, "the click showed tab 0", func() bool { return hs.curTab() == 0 })
	hs.waitFor("tab-zero")
	hs.click(col("1:")+2, 39)
	waitUntil(t, "the click showed tab 1", func() bool { return hs.curTab() == 1 })
	// Between the tabs, and past them: no tab.
	hs.click(col("1:")-1, 39)
	hs.sync()
	if hs.curTab() != 1 {
		t.Fatal("a click between the tabs changed the tab")
	}
}

// Issue 42 item 20: the paste buffers keep the last 20 copies, newest first; prefix ] pastes the
// newest.
func TestPasteBuffersKeepTheLast20(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.start()
	bufs := onUIValue(hs, func() []string {
		for i := 1; i <= 25; i++ {
			hs.app.addPasteBuffer(fmt.Sprintf("copy %d", i))
		}
		return append([]string(nil), hs.app.pasteBuffers()...)
	})
	if len(bufs) != 20 || bufs[0] != "copy 25" || bufs[19] != "copy 6" {
		t.Fatalf("the buffers: %q", bufs)
	}
	if got := onUIValue(hs, func() string { return hs.app.pasteBuf }); got != "copy 25" {
		t.Fatalf("prefix ] would paste %q, not the newest", got)
	}
	// A copy that reached the newest buffer alone (scroll mode's copy) is listed first.
	bufs = onUIValue(hs, func() []string {
		hs.app.pasteBuf = "copy 26"
		return append([]string(nil), hs.app.pasteBuffers()...)
	})
	if len(bufs) != 20 || bufs[0] != "copy 26" || bufs[1] != "copy 25" {
		t.Fatalf("the buffers after a copy: %q", bufs[:3])
	}
}

// Issue 42 item 20: the paste buffers' chooser (tmux's choose-buffer) lists each buffer by its
// size and first line, newest first, in a box; Enter pastes the one chosen into the focused pane,
// as a paste; Esc closes it and pastes nothing. With no buffer it says so and opens nothing.
func TestChooseBufferPastesTheOneChosen(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.start()
	cat := hs.openShell("printf 'cat-ready\\n'; exec cat", "cat-ready")
	hs.onUI(func() { hs.app.tree.showBuffers(); hs.app.rebuild() })
	if onUIValue(hs, func() bool { return hs.app.tree.open }) {
		t.Fatal("the chooser opened with no buffer")
	}
	hs.waitFor("no paste buffers")
	hs.onUI(func() {
		hs.app.addPasteBuffer("older-buffer-text\nits second line\n")
		hs.app.addPasteBuffer("newest-buffer-text")
		hs.app.tree.showBuffers()
	})
	s := hs.waitFor("choose a paste buffer")
	for _, want := range []string{"(0) 18 bytes: newest-buffer-text", "(1) 34 bytes: older-buffer-text (+1 lines)", "Enter paste"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the chooser lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "newest-buffer-text") > strings.Index(s, "older-buffer-text") {
		t.Fatalf("the newest is not first:\n%s", s)
	}
	hs.typeText("j")
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	hs.waitGone("choose a paste buffer")
	waitUntil(t, "the older buffer reached cat", func() bool {
		return strings.Contains(cat.Terminal().Text(), "its second line")
	})
	if strings.Contains(cat.Terminal().Text(), "newest-buffer-text") {
		t.Fatal("the newest buffer was pasted too")
	}
	// Esc closes the chooser and pastes nothing.
	hs.onUI(func() { hs.app.tree.showBuffers() })
	hs.waitFor("choose a paste buffer")
	hs.key(tcell.KeyEscape, 0, tcell.ModNone)
	hs.waitGone("choose a paste buffer")
	// prefix ] pastes the newest.
	hs.press("]")
	waitUntil(t, "the newest buffer reached cat", func() bool {
		return strings.Contains(cat.Terminal().Text(), "newest-buffer-text")
	})
}

// Issue 42 item 20: prefix = opens the paste buffers' chooser (the default binding of
// choose-buffer, tmux's key). App.do (views/keys.go, not this change's) must run the action:
// `case keymap.ChooseBuffer: a.tree.showBuffers()`; the skip goes with that line.
func TestPrefixEqualsChoosesABuffer(t *testing.T) {
	hs := newHarness(t, 160, 40)
	hs.start()
	hs.openShell("printf 'cat-ready\\n'; exec cat", "cat-ready")
	hs.onUI(func() { hs.app.addPasteBuffer("only-buffer-text") })
	hs.press("=")
	hs.waitFor("(0) 16 bytes: only-buffer-text")
}
