package vt

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// A cell is 48 bytes: a screen and each view's copy of it hold one per cell, and an order of the
// fields that pads (Rune before Comb) makes it 56.
func TestCellPacked(t *testing.T) {
	t.Parallel()
	if n := unsafe.Sizeof(Cell{}); n != 48 {
		t.Fatalf("a Cell is %d bytes, want 48", n)
	}
}

// heapPerTerminal is the live heap a terminal of cols x rows holds after fill wrote to it, in
// bytes, averaged over n terminals.
func heapPerTerminal(n, cols, rows int, fill func(*Terminal)) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	terms := make([]*Terminal, n)
	for i := range terms {
		terms[i] = New(cols, rows, nil)
		fill(terms[i])
		terms[i].Text() // as a view reads it
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(terms)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// BenchmarkMemory reports the heap one terminal holds: idle, and after 10,000 lines of text
// went through it into the scrollback (B/terminal; the time per op is meaningless).
func BenchmarkMemory(b *testing.B) {
	lines := func(t *Terminal) {
		for i := 0; i < 10000; i++ {
			fmt.Fprintf(t, "line %d: the quick brown fox jumps over the lazy dog\r\n", i)
		}
	}
	for _, c := range []struct {
		name string
		fill func(*Terminal)
	}{{"idle", func(*Terminal) {}}, {"10k-lines", lines}} {
		b.Run(c.name, func(b *testing.B) {
			var per float64
			for i := 0; i < b.N; i++ {
				per = heapPerTerminal(10, 120, 30, c.fill)
			}
			b.ReportMetric(per, "B/terminal")
		})
	}
}

// TestScrollbackKeepsEveryCell: a line stored in the scrollback comes back cell for cell:
// styles, wide characters, marks, trailing blanks that have a style.
func TestScrollbackKeepsEveryCell(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"plain text",
		"\x1b[31mred\x1b[m plain \x1b[1;44mbold on blue\x1b[m",
		"中文 e\u0301 😀 \x1b[4mu\u0308\x1b[m end",
		"\x1b[44mblue to the end\x1b[K",
		"\x1b[7m  \x1b[m",
	} {
		for _, lineMode := range []bool{false, true} {
			term := NewWithOptions(20, 2, Options{Scrollback: 10})
			term.g.noLineMode = !lineMode
			term.Write([]byte("\x1b[2;1H" + in))
			var want Screen
			term.Snapshot(&want)
			term.Write([]byte("\r\n\r\n\r\n"))
			var got Screen
			term.SnapshotScrolled(&got, 3)
			for x, c := range want.Row(1) {
				g := got.Row(1)[x]
				if g.Rune != c.Rune || g.Width != c.Width || g.Style != c.Style || string(g.Comb) != string(c.Comb) {
					t.Errorf("%q (line mode %v): cell %d came back %+v, was %+v", in, lineMode, x, g, c)
				}
			}
		}
	}
}

// BenchmarkReflowMemory resizes a 120x30 terminal holding 10,000 lines of scrollback to 80
// columns and back (each line rewraps at 80 and joins again at 120) and reports the bytes that
// allocates (B/resize): the garbage a pane full of history makes when a split resizes it.
func BenchmarkReflowMemory(b *testing.B) {
	term := NewWithOptions(120, 30, Options{})
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(term, "line %d: the quick brown fox jumps over the lazy dog, and again, the quick brown fox\r\n", i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < b.N; i++ {
		term.Resize(80, 30)
		term.Resize(120, 30)
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "B/resize")
}
