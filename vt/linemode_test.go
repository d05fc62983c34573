package vt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// state is everything a reader can see of a terminal.
func state(t *Terminal) string {
	var s Screen
	t.Snapshot(&s)
	var b strings.Builder
	fmt.Fprintf(&b, "cursor %+v\n", s.Cursor)
	n := t.ScrollbackLen()
	text, wrapped := t.Lines(0, n+s.Rows)
	for i := range text {
		fmt.Fprintf(&b, "%v %q\n", wrapped[i], text[i])
	}
	for y := 0; y < s.Rows; y++ {
		for x, c := range s.Row(y) {
			if c.Style != (Style{}) {
				fmt.Fprintf(&b, "(%d,%d)%+v ", x, y, c.Style)
			}
		}
	}
	return b.String()
}

// TestLineModeIsInvisible checks that the fast path for scrolling text leaves exactly what the
// slow path leaves, whether the screen is read often (vt10x catching up often) or only at the end.
func TestLineModeIsInvisible(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	starts := 0
	pieces := []string{"hello", "world wide web", "x", "0123456789abcdef", "\r\n", "\n", "\r", "\b", "\t",
		"中", "e\u0301", "😀", "\u0301", "ｗ", "\u200d", "\U000F0001",
		"\x1b[31m", "\x1b[44m", "\x1b[m", "\x1b[1;4m", "\x1b[2A", "\x1b[K", "\x1b(0q\x1b(B", "\x1b[?7l", "\x1b[?7h", "\x1bD", "\x1bE"}
	for i := 0; i < 1000; i++ {
		var in []string
		for j := 0; j < 1+r.IntN(80); j++ {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(3) > 0 {
				p = pieces[r.IntN(16)] // mostly text and line ends
			}
			in = append(in, p)
		}
		slow := NewWithOptions(9, 4, Options{Scrollback: 50})
		slow.g.noLineMode = true
		lazy := NewWithOptions(9, 4, Options{Scrollback: 50})
		eager := NewWithOptions(9, 4, Options{Scrollback: 50})
		for _, p := range in {
			slow.Write([]byte(p))
			lazy.Write([]byte(p))
			eager.Write([]byte(p))
			eager.Text()
		}
		starts += lazy.g.lm.starts
		want := state(slow)
		if got := state(lazy); got != want {
			t.Fatalf("%q\nread at the end:\n%s\nslow path:\n%s", strings.Join(in, ""), got, want)
		}
		if got := state(eager); got != want {
			t.Fatalf("%q\nread after every write:\n%s\nslow path:\n%s", strings.Join(in, ""), got, want)
		}
	}
	if starts < 100 {
		t.Fatalf("line mode began only %d times: the test does not exercise it", starts)
	}
}
