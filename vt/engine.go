package vt

import (
	"bufio"
	"bytes"
	"io"

	"github.com/hinshun/vt10x"

	"tickmux/internal/freelist"
)

// engine is the grid emulator behind the guard: hinshun/vt10x, fed through its Parse path. It is
// the only code that knows vt10x. The guard hands it a sanitised stream in which
//
//   - every code point is a printable cell: a rune that stands for itself, continuationRune
//     after a wide one, or a cluster id (clusterTable, tables.go);
//   - the only SGR is 38;2;R;G;B or 39: the foreground carries a style id (styleTable,
//     tables.go), so vt10x's own colour, bold and reverse handling never applies;
//   - every sequence is one vt10x handles correctly, with parameters already clamped.
//
// Only the goroutine holding the Terminal's lock calls it, always inside Terminal.try (Write,
// Resize and every reader), so a panic in vt10x resets the terminal instead of leaving vt/.
type engine struct {
	emu        vt10x.Terminal
	cols, rows int
	out        []byte // sanitised bytes not yet parsed
	rd         bytes.Reader
	parsed     int // bytes parsed so far, for tests that check what reaches vt10x
}

// parseReaders are the buffered readers vt10x parses from, lent to one flush at a time: an
// engine kept one of 4 KB for its whole life, though it reads through it only while a flush
// runs (under its terminal's lock, so a few terminals at once at most).
var parseReaders = freelist.New[bufio.Reader](maxFreeParseReaders)

const maxFreeParseReaders = 4

// Bits of vt10x's Cursor.State and Glyph.Mode (unexported there; stable in the pinned version).
const (
	vtCursorWrapNext = 1 << 1
	vtCursorOrigin   = 1 << 2
	vtAttrWrap       = 1 << 6
)

func newEngine(cols, rows int) *engine {
	return &engine{
		emu:  vt10x.New(vt10x.WithSize(cols, rows), vt10x.WithWriter(io.Discard)),
		cols: cols,
		rows: rows,
	}
}

// flush makes vt10x parse everything queued. The guard may hold writes back (deferred.go): it
// calls its own flush, which hands them over first.
func (e *engine) flush() {
	if len(e.out) == 0 {
		return
	}
	e.rd.Reset(e.out)
	br := getParseReader(&e.rd)
	for e.emu.Parse(br) == nil {
	}
	putParseReader(br)
	e.parsed += len(e.out)
	e.out = e.out[:0]
}

func getParseReader(r io.Reader) *bufio.Reader {
	br := parseReaders.Get()
	if br == nil {
		return bufio.NewReaderSize(r, 4<<10)
	}
	br.Reset(r)
	return br
}

func putParseReader(br *bufio.Reader) {
	br.Reset(nil)
	parseReaders.Put(br)
}

// cursor is vt10x's cursor after a flush.
func (e *engine) cursor() (x, y int, wrapNext bool) {
	e.flush()
	c := e.emu.Cursor()
	return c.X, c.Y, c.State&vtCursorWrapNext != 0
}

// glyph reads a cell; the caller has flushed.
func (e *engine) glyph(x, y int) (ch rune, style uint32, wrapped bool) {
	g := e.emu.Cell(x, y)
	if g.FG != vt10x.DefaultFG {
		style = uint32(g.FG)
	}
	return g.Char, style, g.Mode&vtAttrWrap != 0
}

// resize changes the grid; the caller has flushed and set the pen to the default style, since
// vt10x fills new cells from it.
func (e *engine) resize(cols, rows int) {
	e.flush()
	e.emu.Resize(cols, rows)
	e.cols, e.rows = cols, rows
}
