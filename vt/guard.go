package vt

import (
	"strconv"
	"unicode/utf8"
)

// guard stands between program output and vt10x. It parses everything itself (parser.go), keeps
// the state vt10x lacks or gets wrong (styles, wide characters, marks, charsets, modes, tab
// stops, scrollback, replies) and hands vt10x only sequences it handles correctly, with
// parameters clamped to the screen (engine.go lists the rules).
//
// The cursor follows tmux's model: after a character lands in the last column the cursor is
// "pending" (tmux's cx == sx), and the next character wraps. vt10x keeps its own flag for that
// (vtWrap); the guard reconciles the two where they differ.
type guard struct {
	e          *engine
	cols, rows int
	p          parser

	// The cursor as learned from vt10x and advanced by the guard since; valid while known.
	cx, cy  int
	pending bool // tmux's cursor is one past the last column
	vtWrap  bool // vt10x's wrap-next flag
	known   bool

	pen     Style
	penID   uint32
	eraseID uint32 // the style erased cells get: the pen's background only
	engPen  uint32 // the style id vt10x's pen carries
	wantPen uint32 // the style id vt10x's pen must carry before the next byte it parses

	// lazy is set while vt10x's cursor is not yet where cx, cy and vtWrap say: moves are
	// deferred until a byte that needs them is queued (see prep).
	lazy bool
	// vtTop and vtBottom are vt10x's scrolling region; top and bottom reach it before the next
	// byte (vt10x homes its cursor when it changes).
	vtTop, vtBottom int
	// scrolls is how many times the region scrolled up (negative: down) and vt10x has yet to,
	// blanking new rows in style scrollPen.
	scrolls                 int
	scrollPen               uint32
	scrollTop, scrollBottom int
	// vtSavedHome: vt10x's saved cursor (DECSC) is at the top left with the default pen.
	vtSavedHome bool
	ov          overlay // cells printed but not yet handed to vt10x
	// touched: the rows of vt10x's grid the queued bytes may change, for SnapshotChanged.
	touched touched
	// noOverlay is for tests: every print goes to vt10x at once.
	noOverlay bool

	g  [4]bool // G0-G3 designate DEC special graphics
	gl int     // 0 or 1: G0 or G1 is invoked (SI, SO)

	modes         Modes
	insert        bool
	origin        bool
	autowrap      bool
	cursorVisible bool
	shape         CursorShape
	top, bottom   int
	tabs          []bool
	title         string

	saved      savedCursor
	altSaved   altCursor // what 1049 saved on the way to the alternate screen
	lm         lineMode
	noLineMode bool // for tests: always the slow path
	noReflow   bool // for tests: resize as before reflow
	last       lastPrint
	zwj        bool // a zero-width joiner waits for a character other than ASCII
	// anyWide is set once a wide character may be on screen; printing then checks for halves
	// it would orphan.
	anyWide bool

	styles         styleTable
	clusters       clusterTable
	hiddenStyles   map[uint32]bool // ids used by the screen not shown (primary while in alt)
	hiddenClusters map[rune]bool

	hist    scrollback
	replies []byte // answers for the program, sent after the write
	clip    []byte // the last OSC 52 the program sent, nil when none is waiting
	clipSet bool

	opts Options
	row  []Cell // scratch
}

// savedCursor is what DECSC saves beyond vt10x's own cursor.
type savedCursor struct {
	valid  bool
	pen    Style
	penID  uint32
	g      [4]bool
	gl     int
	origin bool
}

// altCursor is what entering the alternate screen with 1049 saves.
type altCursor struct {
	valid bool
	x, y  int
	pen   Style
}

// lastPrint is what the last token printed, if it printed: REP repeats it.
type lastPrint struct {
	valid   bool
	styleID uint32
	ascii   byte // the byte printed, before any charset mapping; 0 if it was not ASCII
}

func newGuard(cols, rows int, opts Options) *guard {
	g := &guard{opts: opts}
	g.hist.max = opts.Scrollback
	g.p.a = g
	g.init(cols, rows)
	return g
}

// init puts the guard and a fresh vt10x in the power-on state; scrollback and title stay.
func (g *guard) init(cols, rows int) {
	g.e = newEngine(cols, rows)
	g.touched.reset(rows)
	g.cols, g.rows = cols, rows
	g.p.reset()
	g.cx, g.cy, g.pending, g.vtWrap, g.known = 0, 0, false, false, true
	g.pen, g.penID, g.eraseID, g.engPen, g.wantPen = Style{}, 0, 0, 0, 0
	g.lazy, g.scrolls = false, 0
	g.vtSavedHome = true // vt10x starts with its cursor saved there
	g.ov.reset(rows, &g.touched)
	g.g, g.gl = [4]bool{}, 0
	g.modes = Modes{}
	g.insert, g.origin, g.autowrap, g.cursorVisible, g.shape = false, false, true, true, CursorDefault
	g.top, g.bottom = 0, rows-1
	g.vtTop, g.vtBottom = 0, rows-1
	g.tabs = defaultTabs(nil, cols)
	g.saved = savedCursor{}
	g.altSaved = altCursor{}
	g.last = lastPrint{}
	g.zwj = false
	g.anyWide = false
	g.styles = newStyleTable()
	g.clusters = newClusterTable()
	g.hiddenStyles, g.hiddenClusters = nil, nil
	g.row = make([]Cell, cols)
	g.lm = lineMode{}
}

func defaultTabs(old []bool, cols int) []bool {
	tabs := make([]bool, cols)
	n := copy(tabs, old)
	for x := n; x < cols; x++ {
		tabs[x] = x%8 == 0 && x > 0
	}
	return tabs
}

// write feeds program output.
func (g *guard) write(b []byte) {
	g.p.write(b)
	g.e.flush()
}

// settle brings vt10x up to date for a reader.
func (g *guard) settle() {
	g.materialize()
	g.flush()
}

// sync learns the cursor from vt10x unless the guard already knows it.
func (g *guard) sync() {
	if g.known {
		return
	}
	g.prep()
	x, y, wrap := g.e.cursor()
	g.cx, g.cy, g.vtWrap = x, y, wrap
	// vt10x raises its flag after any write to the last column; tmux only with autowrap. The
	// guard knows the cursor after every sequence that can leave it pending, so this is a guess
	// for the rest.
	g.pending = wrap && g.autowrap
	g.known = true
}

// forget marks the cursor unknown after a sequence whose effect the guard does not compute.
func (g *guard) forget() {
	g.known = false
	g.last = lastPrint{}
}

// --- pens ---

func (g *guard) intern(s Style) uint32 {
	if id, ok := g.styles.lookup(s); ok {
		return id
	}
	if g.styles.full() {
		g.collect()
	}
	return g.styles.add(s)
}

func (g *guard) setPen(s Style) {
	g.pen = s
	g.penID = g.intern(s)
	g.eraseID = g.intern(Style{BG: s.BG})
}

// usePen makes vt10x's pen carry style id for the bytes queued next.
func (g *guard) usePen(id uint32) { g.wantPen = id }

// rawPen queues the SGR that gives vt10x's pen style id (no cell changes). The id is the
// foreground colour, in the shortest form vt10x reads back as that number.
func (g *guard) rawPen(id uint32) {
	g.engPen = id
	o := g.e.out
	switch {
	case id == 0:
		o = append(o, "\x1b[39m"...)
	case id < 8:
		o = append(o, 0x1b, '[', '3', byte('0'+id), 'm')
	case id < 16:
		o = append(o, 0x1b, '[', '9', byte('0'+id-8), 'm')
	case id < 256:
		o = append(o, "\x1b[38;5;"...)
		o = strconv.AppendUint(o, uint64(id), 10)
		o = append(o, 'm')
	default:
		o = append(o, "\x1b[38;2;"...)
		o = strconv.AppendUint(o, uint64(id>>16), 10)
		o = append(o, ';')
		o = strconv.AppendUint(o, uint64(id>>8&0xff), 10)
		o = append(o, ';')
		o = strconv.AppendUint(o, uint64(id&0xff), 10)
		o = append(o, 'm')
	}
	g.e.out = o
}

// put queues bytes for vt10x after everything deferred before them. What they change is not
// worked out: every row is touched, unless they only move the cursor along its row.
func (g *guard) put(b ...byte) {
	g.prep()
	if !movesOnly(b) {
		g.touched.touchAll()
	}
	g.e.out = append(g.e.out, b...)
}

func (g *guard) putString(s string) {
	g.prep()
	g.touched.touchAll()
	g.e.out = append(g.e.out, s...)
}

func (g *guard) putRune(r rune) {
	g.prep()
	g.touched.touchAll() // a character may wrap, marking the row and scrolling
	g.e.out = utf8.AppendRune(g.e.out, r)
}

// emitCSI queues CSI n final with n clamped to a safe range.
func (g *guard) emitCSI(n int, final byte) {
	g.prep()
	switch {
	case final == 'G': // CHA: the cursor only
	case (final == 'K' || final == 'X' || final == '@' || final == 'P') && g.known:
		// EL, ECH, ICH, DCH change the cursor's row only; after prep vt10x's cursor is on the
		// guard's row when the guard knows it.
		g.touched.touch(g.cy)
	default:
		g.touched.touchAll()
	}
	o := append(g.e.out, 0x1b, '[')
	o = strconv.AppendInt(o, int64(clamp(n, 0, 9999)), 10)
	g.e.out = append(o, final)
}

// moveTo puts the cursor at (x, y), screen coordinates. vt10x never sees origin mode (the
// guard applies it to CUP and VPA), so its CUP is absolute. vt10x's cursor follows when the
// next byte is queued.
func (g *guard) moveTo(x, y int) {
	x, y = clamp(x, 0, g.cols-1), clamp(y, 0, g.rows-1)
	g.cx, g.cy, g.pending, g.vtWrap, g.known = x, y, false, false, true
	g.lazy = true
}

// originRow is the screen row of row (0-based) as CUP and VPA give it.
func (g *guard) originRow(row int) int {
	if !g.origin {
		return row
	}
	return min(row, g.bottom-g.top) + g.top
}

func (g *guard) emitCUP(x, y int) {
	g.prep()
	g.rawCUP(x, y)
}

// rawCUP queues a cursor move (no cell changes).
func (g *guard) rawCUP(x, y int) {
	o := append(g.e.out, 0x1b, '[')
	o = strconv.AppendInt(o, int64(y+1), 10)
	o = append(o, ';')
	o = strconv.AppendInt(o, int64(x+1), 10)
	g.e.out = append(o, 'H')
}

// setVTWrap makes vt10x's wrap flag agree with want, at the cursor.
func (g *guard) setVTWrap(want bool) {
	g.prep() // callers go on to rely on vt10x's flag, not on what is deferred
	if g.vtWrap == want {
		return
	}
	if want {
		// Rewrite the last cell of the row as it is: vt10x then waits to wrap.
		g.flush()
		ch, st, _ := g.e.glyph(g.cols-1, g.cy)
		if ch == 0 {
			ch, st = ' ', 0
		}
		g.usePen(st)
		g.emitCSI(g.cols, 'G')
		g.putRune(ch)
	} else {
		g.emitCSI(g.cx+1, 'G')
	}
	g.vtWrap = want
}

// --- scrolling and scrollback ---

// scrollsIntoHistory reports whether a scroll of the region now pushes lines into the
// scrollback: on the main screen, when the region starts at the top (as tmux does).
func (g *guard) scrollsIntoHistory() bool {
	return !g.modes.AltScreen && g.top == 0 && g.hist.max > 0
}

// capture copies the top n rows of the screen into the scrollback; vt10x is about to scroll them
// away.
func (g *guard) capture(n int) {
	if !g.scrollsIntoHistory() {
		return
	}
	g.flush()
	n = min(n, g.bottom+1)
	for y := 0; y < n; y++ {
		wrapped := g.readRow(y, g.row)
		if l := g.hist.next(); l != nil {
			l.set(g.row, wrapped)
		}
	}
}

// lineFeed moves the cursor down, scrolling the region at its bottom (LF, VT, FF, IND).
func (g *guard) lineFeed() {
	g.sync()
	g.last = lastPrint{}
	if g.cy == g.bottom {
		if g.lineModeOK() {
			g.startLineMode()
			return
		}
		if !g.scrollsIntoHistory() && !g.noOverlay {
			g.deferScroll(1)
			return
		}
		g.capture(1)
		if g.eraseID != 0 {
			// vt10x's LF blanks the new line with default colours; IND uses the pen.
			g.usePen(g.eraseID)
			g.putString("\x1bD")
		} else {
			g.put('\n')
			g.vtWrap = false
		}
	} else if g.cy < g.rows-1 {
		pending := g.pending
		g.moveTo(g.cx, g.cy+1)
		g.pending = pending
	}
}

// reverseIndex moves the cursor up, scrolling the region down at its top (RI).
func (g *guard) reverseIndex() {
	g.sync()
	g.last = lastPrint{}
	if g.cy == g.top {
		if !g.noOverlay {
			g.deferScroll(-1)
			return
		}
		g.usePen(g.eraseID)
		g.putString("\x1bM")
	} else if g.cy > 0 {
		pending := g.pending
		g.moveTo(g.cx, g.cy-1)
		g.pending = pending
	}
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
