package vt

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// snapReader is a reader of SnapshotChanged that keeps the rows it copied, as a pane keeps what
// it drew.
type snapReader struct {
	r        RowHashes
	changed  []bool
	s        Screen
	kept     [][]Cell
	keptWrap []bool
}

// snap takes a snapshot and keeps the rows it copied.
func (rd *snapReader) snap(term *Terminal) {
	rd.changed = term.SnapshotChanged(&rd.s, &rd.r, rd.changed)
	if len(rd.kept) != rd.s.Rows {
		rd.kept, rd.keptWrap = make([][]Cell, rd.s.Rows), make([]bool, rd.s.Rows)
	}
	for y := 0; y < rd.s.Rows; y++ {
		if rd.changed[y] {
			rd.kept[y] = append([]Cell(nil), rd.s.Row(y)...)
			rd.keptWrap[y] = rd.s.Wrapped[y]
		}
	}
}

// check compares what the reader kept with a whole snapshot, taken at once after its own.
func (rd *snapReader) check(t *testing.T, term *Terminal, what string) {
	t.Helper()
	var full Screen
	term.Snapshot(&full)
	if len(rd.kept) != full.Rows {
		t.Fatalf("%s: %d rows kept, the screen has %d", what, len(rd.kept), full.Rows)
	}
	for y := 0; y < full.Rows; y++ {
		if !reflect.DeepEqual(rd.kept[y], full.Row(y)) || rd.keptWrap[y] != full.Wrapped[y] {
			t.Fatalf("%s: row %d kept as\n%q (wrapped %v)\nthe screen shows\n%q (wrapped %v)", what, y,
				rowText(rd.kept[y]), rd.keptWrap[y], rowText(full.Row(y)), full.Wrapped[y])
		}
	}
	if rd.s.Cursor != full.Cursor {
		t.Fatalf("%s: cursor %+v, want %+v", what, rd.s.Cursor, full.Cursor)
	}
}

// snapshotPieces are the sequences TestSnapshotChangedKeepsTheScreen writes at random: text that
// wraps, wide characters, marks, moves, erases, edits, scrolls, modes and resets.
var snapshotPieces = []string{
	"a", "Z", " ", "中", "😀", "e\u0301", "\u0301", "\r\n", "\r", "\n", "\b", "\t", "\x1b[H", "\x1b[3;5H",
	"\x1b[m", "\x1b[1m", "\x1b[7m", "\x1b[41m", "the quick brown fox jumps over", "0123456789abcdefghijklmnop",
	// erases: ED, EL, ECH
	"\x1b[J", "\x1b[0J", "\x1b[1J", "\x1b[2J", "\x1b[3J", "\x1b[K", "\x1b[0K", "\x1b[1K", "\x1b[2K", "\x1b[X", "\x1b[3X",
	// insert and delete characters and lines
	"\x1b[@", "\x1b[4@", "\x1b[P", "\x1b[3P", "\x1b[L", "\x1b[2L", "\x1b[M", "\x1b[3M", "\x1b[4h", "\x1b[4l",
	// index, reverse index, next line, scrolls
	"\x1bD", "\x1bM", "\x1bE", "\x1b[S", "\x1b[2S", "\x1b[T", "\x1b[2T",
	// regions and origin mode
	"\x1b[2;4r", "\x1b[3;6r", "\x1b[r", "\x1b[?6h", "\x1b[?6l",
	// REP, tabs, autowrap
	"x\x1b[b", "y\x1b[5b", "\x1b[3I", "\x1b[Z", "\x1bH", "\x1b[g", "\x1b[?7l", "\x1b[?7h",
	// alignment test, alternate screens, resets, save and restore
	"\x1b#8", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1b[?47l", "\x1bc", "\x1b[!p", "\x1b7", "\x1b8",
	"\x1b(0lqk\x1b(B",
}

// SnapshotChanged copies only the rows touched since a reader's last snapshot whose hash changed:
// a reader that keeps the rows it copied has, after every write, the screen a whole Snapshot
// gives. Two readers snapshot the same terminal, one after every write and one now and then,
// over random output (snapshotPieces, the streams compared with tmux, enough RGB colours for the
// style ids to be swept and given again: a row that shows the same character with an id that
// now means another style must be copied) and resizes, with the guard's deferred paths on and
// off.
func TestSnapshotChangedKeepsTheScreen(t *testing.T) {
	for _, mode := range []string{"default", "no overlay", "no line mode"} {
		t.Run(mode, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(29, uint64(len(mode))))
			term := New(20, 6, nil)
			term.g.noOverlay = mode == "no overlay"
			term.g.noLineMode = mode == "no line mode"
			var every, sometimes snapReader
			var fill strings.Builder // style ids nearly all taken: the random colours below get old ids
			for i := 0; i < 4090; i++ {
				fmt.Fprintf(&fill, "\x1b[38;2;%d;%d;7mq", i/256, i%256)
			}
			term.Write([]byte(fill.String()))
			every.snap(term)
			sometimes.snap(term)
			for step := 0; step < 3000; step++ {
				var b strings.Builder
				switch rng.IntN(40) {
				case 0:
					cols, rows := 8+rng.IntN(20), 3+rng.IntN(8)
					term.Resize(cols, rows)
					fmt.Fprintf(&b, "(resize %dx%d)", cols, rows)
				case 1, 2, 3, 4:
					b.WriteString(strings.Join(randomStream(rng, 1+rng.IntN(8)), ""))
				default:
					for n := rng.IntN(4); n >= 0; n-- {
						if rng.IntN(4) == 0 {
							fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm", rng.IntN(256), rng.IntN(256), rng.IntN(256))
						}
						b.WriteString(snapshotPieces[rng.IntN(len(snapshotPieces))])
					}
				}
				if !strings.HasPrefix(b.String(), "(resize") {
					term.Write([]byte(b.String()))
				}
				every.snap(term)
				every.check(t, term, fmt.Sprintf("step %d (%q), the reader of every step", step, b.String()))
				if rng.IntN(5) == 0 {
					sometimes.snap(term)
					sometimes.check(t, term, fmt.Sprintf("step %d (%q), the reader of some steps", step, b.String()))
				}
			}
			if term.g.styles.reused == 0 {
				t.Fatal("no style id was given again: the test did not cover it")
			}
			if mode != "no overlay" && term.overRead == 0 {
				t.Fatal("no snapshot read the overlay's cells over vt10x's: the test did not cover it")
			}
			if term.Fault() != nil {
				t.Fatalf("the terminal was reset: %v", term.Fault())
			}
		})
	}
}

// A key's echo, and the redraw of a shell's line (CR, the prompt, EL) or an edit in its middle
// (DCH, ICH), hash the one row they change, not the screen: the fast path of a pane's draw.
func TestSnapshotChangedHashesTheTouchedRow(t *testing.T) {
	const cols, rows = 160, 44
	term := New(cols, rows, nil)
	for i := 0; i < rows-1; i++ {
		fmt.Fprintf(term, "line %d some text here and there \x1b[32mgreen\x1b[m more\r\n", i)
	}
	term.Write([]byte("$ "))
	var rd snapReader
	rd.snap(term)
	for _, w := range []string{"x", "y", "\r$ \x1b[K", "abc", "\b\b\x1b[P", "\x1b[@z", "\r$ hello\x1b[K", "\x1b[1K"} {
		before, parsed := term.hashed, term.g.e.parsed
		term.Write([]byte(w))
		rd.snap(term)
		if w == "x" || w == "abc" {
			// A typed key's echo: its cells wait in the overlay, and the snapshot reads them
			// there, handing vt10x's parser nothing on the echo's path.
			if term.g.e.parsed != parsed || term.g.ov.n == 0 {
				t.Errorf("after %q: the snapshot had vt10x parse %d bytes (overlay rows %d)", w, term.g.e.parsed-parsed, term.g.ov.n)
			}
		}
		if n := term.hashed - before; n != 1 {
			t.Errorf("after %q: %d rows hashed, want 1", w, n)
		}
		for y, c := range rd.changed {
			if c != (y == rows-1) {
				t.Errorf("after %q: row %d copied: %v", w, y, c)
			}
		}
		rd.check(t, term, fmt.Sprintf("after %q", w))
	}
	// Nothing written: nothing hashed.
	before := term.hashed
	rd.snap(term)
	if n := term.hashed - before; n != 0 {
		t.Errorf("with nothing written, %d rows hashed", n)
	}
	// Forget hashes every row again.
	rd.r.Forget()
	before = term.hashed
	rd.snap(term)
	if n := term.hashed - before; n != rows {
		t.Errorf("after Forget, %d rows hashed, want %d", n, rows)
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
	var r RowHashes
	changed := term.SnapshotChanged(&s, &r, nil)
	_, idA, _ := term.g.e.glyph(0, 0)
	// The first cell's style goes (its id is free at the next sweep) and a new style, which the
	// sweep makes room for, takes that id, in the same character at the same place.
	term.Write([]byte("\x1b[H\x1b[mq\x1b[38;2;200;1;1m\x1b[Hq"))
	term.g.settle()
	if _, id, _ := term.g.e.glyph(0, 0); id != idA || term.g.styles.reused == 0 {
		t.Fatalf("the test did not give id %d again (the cell has %d)", idA, id)
	}
	changed = term.SnapshotChanged(&s, &r, changed)
	if !changed[0] || s.Row(0)[0].Style.FG != RGBColor(200, 1, 1) {
		t.Fatalf("row 0 not copied again (changed %v, style %+v)", changed[0], s.Row(0)[0].Style)
	}
}
