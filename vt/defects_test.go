package vt

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Each test here is one of the defects measured in hinshun/vt10x (issue 4), shown not to reach
// a user through the guard.

func TestPrefixedSequencesDoNotMoveTheSavedCursor(t *testing.T) {
	t.Parallel()
	term := New(10, 3, nil)
	term.Write([]byte("ab\x1b7\x1b[2;5H\x1b[?u\x1b[>1u\x1b[?1001s\x1b8X"))
	if got := term.Text(); got != "abX" {
		t.Errorf("screen %q, want abX", got)
	}
}

func TestTabStopsAfterWidening(t *testing.T) {
	t.Parallel()
	term := New(10, 2, nil)
	term.Resize(30, 2)
	term.Write([]byte("\t\t\tx"))
	if c := term.Cursor(); c.X != 25 {
		t.Errorf("cursor at column %d after three tabs and x, want 25", c.X)
	}
}

func TestColourQueriesAreAnswered(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	term := NewWithOptions(10, 2, Options{Reply: &out, Foreground: RGBColor(0xff, 0x80, 0), Background: RGBColor(0, 0, 0)})
	term.Write([]byte("\x1b]10;?\x07\x1b]11;?\x1b\\"))
	term.waitReplies()
	if want := "\x1b]10;rgb:ffff/8080/0000\x1b\\\x1b]11;rgb:0000/0000/0000\x1b\\"; out.String() != want {
		t.Errorf("replies %q, want %q", out.String(), want)
	}
	out.Reset()
	quiet := New(10, 2, &out)
	quiet.Write([]byte("\x1b]10;?\x07"))
	quiet.waitReplies()
	if out.Len() != 0 {
		t.Errorf("answered %q without known colours", out.String())
	}
}

func TestDeviceAttributesAndStatus(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	term := New(10, 3, &out)
	term.Write([]byte("\x1b[c\x1b[>c\x1b[5n\x1b[2;3H\x1b[6n"))
	term.waitReplies()
	if want := "\x1b[?1;2c\x1b[>84;0;0c\x1b[0n\x1b[2;3R"; out.String() != want {
		t.Errorf("replies %q, want %q", out.String(), want)
	}
}

func TestModesAreTracked(t *testing.T) {
	t.Parallel()
	term := New(10, 3, nil)
	term.Write([]byte("\x1b[?1h\x1b=\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?1004h\x1b[?1049h\x1b[4 q\x1b[?25l\x1b]2;my \x07title\x07"))
	want := Modes{AltScreen: true, AppCursor: true, AppKeypad: true, BracketedPaste: true, FocusEvents: true,
		Mouse: MouseButton, MouseEncoding: MouseEncodingSGR}
	if got := term.Modes(); got != want {
		t.Errorf("modes %+v, want %+v", got, want)
	}
	if c := term.Cursor(); c.Shape != CursorUnderline || c.Visible {
		t.Errorf("cursor %+v, want a hidden steady underline", c)
	}
	if got := term.Title(); got != "my " {
		t.Errorf("title %q", got)
	}
}

// TestManyStylesCostNoMoreThanTheScreen paints with a hundred thousand colours and checks that
// the style table stays near what the screen shows, and that the main screen's styles survive
// the sweeps made while the alternate screen is shown.
func TestManyStylesCostNoMoreThanTheScreen(t *testing.T) {
	t.Parallel()
	term := New(20, 5, nil)
	term.Write([]byte("\x1b[38;2;1;2;3mkeep\x1b[m\x1b[?1049h"))
	var b strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm#", i>>16, i>>8&255, i&255)
	}
	term.Write([]byte(b.String()))
	if n := len(term.g.styles.ids); n > 4096 {
		t.Errorf("the style table holds %d styles for a 20x5 screen", n)
	}
	term.Write([]byte("\x1b[?1049l"))
	var s Screen
	term.Snapshot(&s)
	if c := s.Row(0)[0]; c.Rune != 'k' || c.Style.FG != RGBColor(1, 2, 3) {
		t.Errorf("the main screen's first cell is %+v after the sweeps", c)
	}
}

func TestManyClustersAreSwept(t *testing.T) {
	t.Parallel()
	term := New(20, 5, nil)
	var b strings.Builder
	for i := 0; i < 70000; i++ {
		fmt.Fprintf(&b, "%c\u0301", 0x4e00+rune(i%20000))
		if i%7 == 0 {
			b.WriteString(string(rune(0x300 + i%100)))
		}
	}
	term.Write([]byte(b.String()))
	if n := len(term.g.clusters.ids); n > 4096 {
		t.Errorf("the cluster table holds %d clusters for a 20x5 screen", n)
	}
	if err := term.Fault(); err != nil {
		t.Fatal(err)
	}
}

func TestPanicResetsAndSaysSo(t *testing.T) {
	t.Parallel()
	term := New(80, 3, nil)
	term.Write([]byte("before"))
	term.mu.Lock()
	term.recovered("a test failure")
	term.mu.Unlock()
	term.Write([]byte("after"))
	if got := term.Text(); !strings.Contains(got, "reset after an internal error") || !strings.Contains(got, "after") {
		t.Errorf("screen %q", got)
	}
	if term.Fault() == nil {
		t.Error("Fault is nil after a recovery")
	}
}

func TestScrollbackLimit(t *testing.T) {
	t.Parallel()
	term := NewWithOptions(10, 2, Options{Scrollback: 5})
	for i := 0; i < 100; i++ {
		fmt.Fprintf(term, "%d\r\n", i)
	}
	text, _ := term.Lines(0, 5)
	if term.ScrollbackLen() != 5 || strings.Join(text, ",") != "94,95,96,97,98" {
		t.Errorf("scrollback %q (%d lines)", text, term.ScrollbackLen())
	}
	none := NewWithOptions(10, 2, Options{Scrollback: -1})
	fmt.Fprint(none, "a\r\nb\r\nc\r\n")
	if none.ScrollbackLen() != 0 {
		t.Errorf("a terminal without scrollback kept %d lines", none.ScrollbackLen())
	}
}

// TestFloodKeepsMemoryBounded pours 16 MB of varied output through a terminal that is read now
// and then, as a view would, and checks that the heap ends near where it started: the
// scrollback reuses its lines and the tables sweep.
func TestFloodKeepsMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("pours 16 MB")
	}
	term := NewWithOptions(120, 30, Options{Scrollback: 1000})
	var chunk bytes.Buffer
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var before uint64
	for round := 0; round < 16; round++ {
		chunk.Reset()
		for chunk.Len() < 1<<20 {
			i := chunk.Len()
			fmt.Fprintf(&chunk, "\x1b[38;2;%d;%d;%dm%d %s\x1b[m 中文 e\u0301\r\n", i&255, round, i>>8&255, i, strings.Repeat("x", i%90))
		}
		term.Write(chunk.Bytes())
		term.Text()
		if round == 4 {
			before = heap() // the scrollback is full by now
		}
	}
	if after := heap(); after > before+8<<20 {
		t.Errorf("the heap grew from %d to %d bytes", before, after)
	}
}
