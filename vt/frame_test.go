package vt

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// normRow is a row as a receiver must show it: a right half whose left half is gone is a blank.
func normRow(row []Cell) []Cell {
	out := slices.Clone(row)
	for x := range out {
		switch c := out[x]; {
		case c.Width == 0 && (x == 0 || out[x-1].Width != 2):
			out[x] = Cell{Rune: ' ', Width: 1, Style: c.Style}
		case c.Width == 1 && RuneWidth(c.Rune) == 2:
			out[x] = Cell{Rune: '\uFFFD', Width: 1, Style: c.Style}
		}
	}
	return out
}

// sameScreen fails unless b shows what a shows: every cell with its style and marks, the
// wrapped rows (but the last), the cursor, the modes and the title.
func sameScreen(t *testing.T, a, b *Terminal, what string) {
	t.Helper()
	var sa, sb Screen
	a.Snapshot(&sa)
	b.Snapshot(&sb)
	if sa.Cols != sb.Cols || sa.Rows != sb.Rows {
		t.Fatalf("%s: size %dx%d, the receiver %dx%d", what, sa.Cols, sa.Rows, sb.Cols, sb.Rows)
	}
	for y := 0; y < sa.Rows; y++ {
		ra, rb := normRow(sa.Row(y)), normRow(sb.Row(y))
		for x := range ra {
			ca, cb := ra[x], rb[x]
			if ca.Rune != cb.Rune || ca.Width != cb.Width || ca.Style != cb.Style || !slices.Equal(ca.Comb, cb.Comb) {
				t.Fatalf("%s: row %d column %d: %+v, the receiver %+v\nsender:\n%s\nreceiver:\n%s", what, y, x, ca, cb, sa.Text(), sb.Text())
			}
		}
		if y < sa.Rows-1 && sa.Wrapped[y] != sb.Wrapped[y] {
			t.Fatalf("%s: row %d wrapped %v, the receiver's %v", what, y, sa.Wrapped[y], sb.Wrapped[y])
		}
	}
	ca, cb := sa.Cursor, sb.Cursor
	if ca.X != cb.X || ca.Y != cb.Y || ca.Shape != cb.Shape || ca.Visible != cb.Visible {
		t.Fatalf("%s: cursor %+v, the receiver's %+v", what, ca, cb)
	}
	if ma, mb := a.Modes(), b.Modes(); ma != mb {
		t.Fatalf("%s: modes %+v, the receiver's %+v", what, ma, mb)
	}
	if sa.Title != sb.Title {
		t.Fatalf("%s: title %q, the receiver's %q", what, sa.Title, sb.Title)
	}
}

// sameHistory fails unless b's newest n scrollback lines are a's.
func sameHistory(t *testing.T, a, b *Terminal, n int, what string) {
	t.Helper()
	ha, hb := a.ScrollbackLen(), b.ScrollbackLen()
	if hb < min(n, ha) {
		t.Fatalf("%s: the receiver keeps %d lines of scrollback, want %d at least", what, hb, min(n, ha))
	}
	la, _ := a.Lines(ha-min(n, ha), ha)
	lb, _ := b.Lines(hb-min(n, ha), hb)
	if !slices.Equal(la, lb) {
		t.Fatalf("%s: scrollback\n%q\nthe receiver's\n%q", what, la, lb)
	}
}

func TestFrameShowsTheScreen(t *testing.T) {
	a := New(30, 8, nil)
	a.Write([]byte("\x1b]2;my title\a\x1b[1;31mred bold\x1b[0m plain \x1b[38;2;1;2;3;48;5;200mrgb\x1b[m\r\n" +
		"wide 中文 and e\u0301 marks\r\n\x1b[4:3m\x1b[58;5;9mcurly\x1b[m\r\n" +
		strings.Repeat("w", 45) + "\r\n" + // wraps
		"\x1b[44m    \x1b[K\x1b[m\r\n" + // a coloured erase
		"\x1b[?1h\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?1004h\x1b=\x1b[5 q\x1b[?25l\x1b[3;7H"))
	var f Framer
	b := New(30, 8, nil)
	frame := f.Frame(a, nil)
	b.Write(frame)
	sameScreen(t, a, b, "first frame")
	if again := f.Frame(a, nil); len(again) != 0 {
		t.Fatalf("nothing changed, yet the frame is %q", again)
	}

	// One row changes: the frame carries that row, not the others.
	a.Write([]byte("\x1b[8;1Hlast row\x1b[?1002l\x1b[?1006l\x1b[?25h\x1b]2;new\a"))
	frame = f.Frame(a, nil)
	if strings.Contains(string(frame), "red bold") || strings.Contains(string(frame), "curly") {
		t.Fatalf("a frame for one row carries others: %q", frame)
	}
	b.Write(frame)
	sameScreen(t, a, b, "a changed row")

	// The alternate screen and back.
	a.Write([]byte("\x1b[?1049h\x1b[Hon the alternate screen"))
	b.Write(f.Frame(a, nil))
	sameScreen(t, a, b, "alternate screen")
	a.Write([]byte("\x1b[?1049l"))
	b.Write(f.Frame(a, nil))
	sameScreen(t, a, b, "back from the alternate screen")

	// A resize on both sides: the next frame is whole.
	a.Resize(20, 5)
	b.Resize(20, 5)
	b.Write(f.Frame(a, nil))
	sameScreen(t, a, b, "resized")
}

func TestFrameCarriesTheScrollback(t *testing.T) {
	a := New(20, 5, nil)
	for i := range 50 {
		fmt.Fprintf(a, "line %d\r\n", i)
	}
	f := Framer{FirstHistory: 30}
	b := New(20, 5, nil)
	b.Write(f.Frame(a, nil))
	sameScreen(t, a, b, "first frame")
	if got := b.ScrollbackLen(); got != 30 {
		t.Fatalf("the first frame carried %d lines of scrollback, want 30", got)
	}
	sameHistory(t, a, b, 30, "first frame")

	for i := range 3 {
		fmt.Fprintf(a, "\x1b[32mmore %d\x1b[m\r\n", i)
	}
	b.Write(f.Frame(a, nil))
	sameScreen(t, a, b, "three more lines")
	sameHistory(t, a, b, 33, "three more lines")

	// A burst: a screen's rows of it in a frame, the rest in the next frames, in order.
	for i := range 1000 {
		fmt.Fprintf(a, "burst %d\r\n", i)
	}
	frames := 0
	for {
		before := b.ScrollbackLen()
		b.Write(f.Frame(a, nil))
		frames++
		if got := b.ScrollbackLen() - before; got > 5 {
			t.Fatalf("a frame pushed %d lines, more than a screen's rows (5)", got)
		}
		sameScreen(t, a, b, "burst")
		if !f.Pending() {
			break
		}
	}
	if frames != 200 {
		t.Errorf("1000 lines went in %d frames, want 200 of 5", frames)
	}
	sameHistory(t, a, b, 1003, "burst")

	// A flood: more than framerBacklog behind, the newest lines only.
	for i := range framerBacklog + 500 {
		fmt.Fprintf(a, "flood %d\r\n", i)
	}
	b.Write(f.Frame(a, nil))
	if f.Pending() {
		t.Error("lines still pending after a flood's frame")
	}
	sameScreen(t, a, b, "flood")
	sameHistory(t, a, b, 5, "flood")

	// The scrollback cleared there (ED 3, as clear does): the lines after it are all new.
	a.Write([]byte("\x1b[H\x1b[2J\x1b[3J"))
	for i := range 9 {
		fmt.Fprintf(a, "after %d\r\n", i)
	}
	for b.Write(f.Frame(a, nil)); f.Pending(); b.Write(f.Frame(a, nil)) {
	}
	if a.ScrollbackLen() != 5 {
		t.Fatalf("the sender keeps %d lines after the clear, want 5", a.ScrollbackLen())
	}
	sameHistory(t, a, b, 5, "after a clear")

	// A full ring: lines still found by their place.
	small := NewWithOptions(20, 5, Options{Scrollback: 10})
	for i := range 30 {
		fmt.Fprintf(small, "s %d\r\n", i)
	}
	g := Framer{FirstHistory: 10}
	c := New(20, 5, nil)
	c.Write(g.Frame(small, nil))
	fmt.Fprintf(small, "s 30\r\ns 31\r\n")
	n := c.ScrollbackLen()
	c.Write(g.Frame(small, nil))
	if got := c.ScrollbackLen() - n; got != 2 {
		t.Fatalf("2 lines scrolled off a full ring, %d pushed", got)
	}
	sameHistory(t, small, c, 10, "full ring")
}

// Random output, as TestSnapshotChangedKeepsTheScreen writes it, framed now and then: the
// receiver always shows what the sender shows.
func TestFrameKeepsTheReceiverInStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 40))
	a := New(20, 6, nil)
	b := New(20, 6, nil)
	var f Framer
	for step := 0; step < 3000; step++ {
		var w strings.Builder
		switch rng.IntN(40) {
		case 0:
			cols, rows := 8+rng.IntN(20), 3+rng.IntN(8)
			a.Resize(cols, rows)
			b.Resize(cols, rows)
		case 1, 2, 3, 4:
			w.WriteString(strings.Join(randomStream(rng, 1+rng.IntN(8)), ""))
		default:
			for n := rng.IntN(4); n >= 0; n-- {
				if rng.IntN(4) == 0 {
					fmt.Fprintf(&w, "\x1b[38;2;%d;%d;%dm", rng.IntN(256), rng.IntN(256), rng.IntN(256))
				}
				w.WriteString(snapshotPieces[rng.IntN(len(snapshotPieces))])
			}
		}
		a.Write([]byte(w.String()))
		if rng.IntN(3) == 0 {
			continue // changes pile up until the next frame
		}
		frame := f.Frame(a, nil)
		checkFrameBytes(t, frame)
		b.Write(frame)
		sameScreen(t, a, b, fmt.Sprintf("step %d (%q)", step, w.String()))
	}
	if a.Fault() != nil || b.Fault() != nil {
		t.Fatalf("a terminal was reset: %v %v", a.Fault(), b.Fault())
	}
}

// frameSeq is every sequence a Framer writes.
var frameSeq = regexp.MustCompile(`^\x1b(\[[0-9;:]*[HmK]|\[\?[0-9]+[hl]|\[[0-6] q|=|>|\]2;[^\x00-\x1f\x7f]*\x07)`)

// checkFrameBytes fails unless frame holds only text (no control character but the CR and LF
// that write history lines and scroll them off) and the Framer's own sequences.
func checkFrameBytes(t *testing.T, frame []byte) {
	t.Helper()
	s := string(frame)
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == 0x1b:
			m := frameSeq.FindString(s[i:])
			if m == "" {
				t.Fatalf("a sequence the Framer does not write at %d: %q", i, s[i:min(len(s), i+20)])
			}
			i += len(m)
		case c == '\n' || c == '\r':
			i++
		case c < 0x20 || c == 0x7f:
			t.Fatalf("control character %#x at %d in %q", c, i, s[max(0, i-20):min(len(s), i+20)])
		default:
			r := []rune(s[i:min(len(s), i+4)])[0]
			if r >= 0x80 && r < 0xa0 {
				t.Fatalf("C1 control %U in the frame", r)
			}
			i += len(string(r))
		}
	}
}

// What the program wrote never passes through: clipboard, queries, titles with escapes,
// hyperlinks and sixels become cells or nothing, and the frame holds only its own sequences.
func TestFrameLetsNothingThrough(t *testing.T) {
	a := New(40, 6, nil)
	hostile := "\x1b]52;c;cHduZWQ=\a\x1b]2;evil\x1b[31m\x9b31m title\a\x1b]8;;http://x\aLINK\x1b]8;;\a" +
		"\x1b[6n\x1b[c\x1bPq#0;2;0;0;0~-\x1b\\\x9d2;c1\x9c\u009b6n plain \x1b]0;\x07\x1b[?1049h\x1b[?1049l" +
		"\xc2\x9b31m \x1b[2 q\x1bP$qm\x1b\\"
	a.Write([]byte(hostile))
	var f Framer
	frame := f.Frame(a, nil)
	checkFrameBytes(t, frame)
	b := New(40, 6, nil)
	b.Write(frame)
	sameScreen(t, a, b, "hostile output")
	if _, ok := b.TakeClipboard(); ok {
		t.Fatal("the program's OSC 52 reached the receiver")
	}
}
