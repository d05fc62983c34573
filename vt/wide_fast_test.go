package vt

import (
	"fmt"
	"strings"
	"testing"
)

// parsedBy writes frames to term and returns how many bytes vt10x parsed for them.
func parsedBy(term *Terminal, frames ...[]byte) int {
	term.Text() // everything before is handed over
	before := term.g.e.parsed
	for _, f := range frames {
		term.Write(f)
	}
	term.Text()
	return term.g.e.parsed - before
}

// TestWideCharacterKeepsTheFastPath: a pane that once showed a wide character (a status glyph,
// a CJK line) hands vt10x exactly what a fresh pane hands it for the same redraws, so the
// deferred path that leaves unchanged cells out still applies (issue 29: a single ✅ made every
// later full-screen redraw 7-10x slower for the life of the pane).
func TestWideCharacterKeepsTheFastPath(t *testing.T) {
	t.Parallel()
	frame := func(n int) []byte {
		var b strings.Builder
		b.WriteString("\x1b[H")
		for y := 0; y < 20; y++ {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[1;34mmetric %-4d\x1b[m %8d %s", y+1, y, n*31+y, strings.Repeat("#", y*3))
		}
		return []byte(b.String())
	}
	for _, poison := range []string{
		"✅ done\r\n", // scrolls off below
		"中文字符测试 日本語\r\n\x1b[H\x1b[2J", // then clear
		"\x1b[5;10H😀\x1bc",            // then a full reset
		"\x1b[20;70H한",                // still on screen, away from the frame's cells
	} {
		fresh, used := NewWithOptions(80, 24, Options{Scrollback: 100}), NewWithOptions(80, 24, Options{Scrollback: 100})
		used.Write([]byte(poison))
		parsedBy(fresh, frame(0))
		parsedBy(used, frame(0))
		want := parsedBy(fresh, frame(1), frame(2), frame(2))
		got := parsedBy(used, frame(1), frame(2), frame(2))
		if got != want {
			t.Errorf("after %q vt10x parsed %d bytes for three redraws, a fresh pane %d", poison, got, want)
		}
		if fresh.Text() != used.Text() && !strings.Contains(used.Text(), "한") {
			t.Errorf("after %q the screens differ:\n%s\nfresh:\n%s", poison, used.Text(), fresh.Text())
		}
	}
}

// TestWideCellsInEveryFrameLeaveTheRestDeferred: frames that draw wide characters on some rows
// every time still hand vt10x only what changed around them, not every ASCII cell.
func TestWideCellsInEveryFrameLeaveTheRestDeferred(t *testing.T) {
	t.Parallel()
	frames := wideFrames(120, 30)
	one := len(frames) / 40 // a few frames' worth
	term := NewWithOptions(120, 30, Options{Scrollback: 100})
	parsedBy(term, frames[:one])
	got := parsedBy(term, frames[one:2*one])
	if got*3 > one {
		t.Errorf("vt10x parsed %d of %d bytes written: unchanged ASCII cells beside wide ones are not left out", got, one)
	}
}
