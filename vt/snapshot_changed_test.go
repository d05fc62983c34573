package vt

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// SnapshotChanged copies only the rows whose hash changed: a reader that keeps the rows it copied
// (as a pane keeps what it drew) has, after every write, the screen a whole Snapshot gives, over
// random output with text, wide characters, marks, colours (enough RGB colours for the style ids
// to be swept and given again: a row that shows the same character with an id that now means
// another style must be copied), moves, erases and scrolls.
func TestSnapshotChangedKeepsTheScreen(t *testing.T) {
	const cols, rows = 20, 6
	rng := rand.New(rand.NewPCG(29, 3))
	term := New(cols, rows, nil)
	var s, full Screen
	var hashes []uint64
	var changed []bool
	kept := make([][]Cell, rows)
	keptWrap := make([]bool, rows)
	pieces := []string{"a", "Z", " ", "中", "😀", "e\u0301", "\r\n", "\x1b[H", "\x1b[2J", "\x1b[K", "\x1bM", "\x1b[2;4r", "\x1b[r", "\x1b[3;5H", "\x1b[m", "\x1b[1m", "\n"}
	var fill strings.Builder // style ids nearly all taken: the random colours below get old ids
	for i := 0; i < 4090; i++ {
		fmt.Fprintf(&fill, "\x1b[38;2;%d;%d;7mq", i/256, i%256)
	}
	term.Write([]byte(fill.String()))
	reused := 0
	for step := 0; step < 2500; step++ {
		var b strings.Builder
		for n := rng.IntN(3); n >= 0; n-- {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm", rng.IntN(256), rng.IntN(256), rng.IntN(256))
			}
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		term.Write([]byte(b.String()))
		hashes, changed = term.SnapshotChanged(&s, hashes, changed)
		for y := 0; y < rows; y++ {
			if changed[y] {
				kept[y] = append([]Cell(nil), s.Row(y)...)
				keptWrap[y] = s.Wrapped[y]
			}
		}
		term.Snapshot(&full)
		for y := 0; y < rows; y++ {
			if !reflect.DeepEqual(kept[y], full.Row(y)) || keptWrap[y] != full.Wrapped[y] {
				t.Fatalf("step %d (%q): row %d kept as\n%v\nthe screen shows\n%v", step, b.String(), y, kept[y], full.Row(y))
			}
		}
		if s.Cursor != full.Cursor {
			t.Fatalf("step %d: cursor %+v, want %+v", step, s.Cursor, full.Cursor)
		}
		reused = int(term.g.styles.reused)
	}
	if reused == 0 {
		t.Fatal("no style id was given again: the test did not cover it")
	}

	// An echo copies its row, not the screen.
	term.Write([]byte("\x1b[2J\x1b[3;1H$ "))
	hashes, changed = term.SnapshotChanged(&s, hashes, changed)
	term.Write([]byte("x"))
	_, changed = term.SnapshotChanged(&s, hashes, changed)
	for y, c := range changed {
		if c != (y == 2) {
			t.Fatalf("after one character on row 2, rows copied: %v", changed)
		}
	}
}

// A style id freed by a sweep and given to another style: a cell that shows the same character
// with the same id shows another style, and its row is copied again.
func TestSnapshotChangedSeesAnIDGivenAgain(t *testing.T) {
	const cols, rows = 80, 60
	term := New(cols, rows, nil)
	var b strings.Builder
	for i := 0; i < 4096; i++ { // every id taken, each by a cell on the screen
		fmt.Fprintf(&b, "\x1b[38;2;%d;%d;9mq", i/256, i%256)
	}
	term.Write([]byte(b.String()))
	var s Screen
	hashes, changed := term.SnapshotChanged(&s, nil, nil)
	_, idA, _ := term.g.e.glyph(0, 0)
	// The first cell's style goes (its id is free at the next sweep) and a new style, which the
	// sweep makes room for, takes that id, in the same character at the same place.
	term.Write([]byte("\x1b[H\x1b[mq\x1b[38;2;200;1;1m\x1b[Hq"))
	term.g.settle()
	if _, id, _ := term.g.e.glyph(0, 0); id != idA || term.g.styles.reused == 0 {
		t.Fatalf("the test did not give id %d again (the cell has %d)", idA, id)
	}
	_, changed = term.SnapshotChanged(&s, hashes, changed)
	if !changed[0] || s.Row(0)[0].Style.FG != RGBColor(200, 1, 1) {
		t.Fatalf("row 0 not copied again (changed %v, style %+v)", changed[0], s.Row(0)[0].Style)
	}
}
