package vt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// replay runs ops (program output, "read", "resize COLS ROWS") through a new 12x5 terminal.
func replay(ops []string, direct, reads bool) *Terminal {
	term := NewWithOptions(12, 5, Options{Scrollback: 20})
	term.g.noOverlay = direct
	for _, op := range ops {
		var cols, rows int
		switch {
		case op == "read":
			if reads {
				term.Text()
			}
		case strings.HasPrefix(op, "resize "):
			fmt.Sscanf(op, "resize %d %d", &cols, &rows)
		default:
			term.Write([]byte(op))
			continue
		}
		if cols > 0 {
			term.Resize(cols, rows)
		}
	}
	return term
}

// replayDeferred replays ops without deferring, deferring with a read only at the end, and
// deferring with the reads in ops; it fails t unless all three leave the same screen without a
// fault, and returns the one read at the end.
func replayDeferred(t *testing.T, ops []string) *Terminal {
	t.Helper()
	direct, atEnd, often := replay(ops, true, false), replay(ops, false, false), replay(ops, false, true)
	want := state(direct)
	if got := state(atEnd); got != want {
		t.Fatalf("%q\nread at the end:\n%s\nwithout deferring:\n%s", ops, got, want)
	}
	if got := state(often); got != want {
		t.Fatalf("%q\nread often:\n%s\nwithout deferring:\n%s", ops, got, want)
	}
	for _, term := range []*Terminal{direct, atEnd, often} {
		if err := term.Fault(); err != nil {
			t.Fatal(err)
		}
	}
	return atEnd
}

// TestDeferredWritesAreInvisible checks that holding prints, moves and pens back from vt10x
// (deferred.go) leaves exactly what handing everything over at once leaves: for random streams
// of the sequences programs send, read at random points or only at the end, with resizes.
func TestDeferredWritesAreInvisible(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	n := 2000
	if testing.Short() {
		n = 300
	}
	screen := []string{"\x1b[H", "\x1b[3;1H", "\x1b[2;7H", "\x1b[5;1H", "same text", "same text", "\x1b[32m", "\x1b[m"}
	drains := 0
	for i := 0; i < n; i++ {
		tokens := randomStream(r, 1+r.IntN(60))
		for j := range tokens {
			if r.IntN(3) == 0 {
				tokens[j] = screen[r.IntN(len(screen))]
			}
		}
		var ops []string // the tokens, with "resize" and "read" between some
		for _, tok := range tokens {
			ops = append(ops, tok)
			switch r.IntN(20) {
			case 0:
				ops = append(ops, "read")
			case 1:
				ops = append(ops, fmt.Sprintf("resize %d %d", 6+r.IntN(10), 3+r.IntN(5)))
			}
		}
		atEnd := replayDeferred(t, ops)
		drains += atEnd.g.ov.drains
	}
	if drains < n/4 {
		t.Fatalf("the overlay was handed over only %d times: the test does not exercise it", drains)
	}
}

// A region scrolled one way and back (IND at its bottom, RI at its top, in either order, in
// erase styles that change or not, with text printed between and the region moved) leaves what
// handing vt10x both scrolls leaves: the scroll back cancels the waiting one and blanks the
// rows the first pushed out (deferScroll).
func TestScrollBackCancelsTheWaitingScroll(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 7))
	tokens := []string{
		"\x1b[2;4r", "\x1b[1;5r", "\x1b[3;5r", "\x1b[r", // regions (the cursor goes home)
		"\x1b[4H\n", "\x1b[5H\n", "\x1b[5H\x1bD", "\x1b[4H\x1bE", // IND, LF, NEL at a bottom
		"\x1b[2H\x1bM", "\x1b[1H\x1bM", "\x1b[3H\x1bM", // RI at a top
		"\x1bM", "\n", "\x1bD", // where the cursor is
		"line", "中文", "z", "\x1b[41m", "\x1b[44m", "\x1b[m", "\x1b[K", "\x1b[2;3H", "read",
		"\x1b[2;4r\x1b[4H\nA\x1b[2H\x1bMb", "\x1b[2;4r\x1b[2H\x1bMc\x1b[4H\nd", // one way and back
	}
	n := 3000
	if testing.Short() {
		n = 500
	}
	cancels := 0
	for i := 0; i < n; i++ {
		var ops []string
		for j := 1 + r.IntN(30); j > 0; j-- {
			ops = append(ops, tokens[r.IntN(len(tokens))])
		}
		cancels += replayDeferred(t, ops).g.ov.cancels
	}
	if cancels < n/10 {
		t.Fatalf("a scroll back cancelled a waiting one only %d times: the test does not exercise it", cancels)
	}
}
