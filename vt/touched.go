package vt

// Which rows of vt10x's grid may have changed, for SnapshotChanged: hashing every row of the
// screen for a key's echo cost a 160x44 pane ~80 µs a draw (an interface call per cell), for the
// one row the echo changed.
//
// Every byte the guard queues for vt10x goes through a few emitters (put, putString, putRune,
// emitCSI, rawPen, rawCUP, and in deferred.go prep, regionToVT, flushScrolls and drain); each
// touches the rows its bytes may change, all of them when it cannot tell. A touch is O(1) and
// allocates nothing. Several readers may snapshot one terminal, so a touch records a version,
// not a bit a reader would clear for the others: a reader keeps the version it last saw
// (RowHashes) and looks at the rows touched after it.
type touched struct {
	ver uint64   // the last version given; never goes back, even when the grid is made anew
	all uint64   // the version at which every row was last touched
	row []uint64 // the version at which each row was last touched
}

// reset sizes the record for a grid of rows rows, all of them touched.
func (t *touched) reset(rows int) {
	t.row = make([]uint64, rows)
	t.touchAll()
}

// touch touches row y; a row the grid does not have (a cursor not yet clamped after a resize)
// touches every row rather than fail.
func (t *touched) touch(y int) {
	if uint(y) >= uint(len(t.row)) {
		t.touchAll()
		return
	}
	t.ver++
	t.row[y] = t.ver
}

func (t *touched) touchAll() {
	t.ver++
	t.all = t.ver
}

// touchRows touches rows top..bottom.
func (t *touched) touchRows(top, bottom int) {
	t.ver++
	for y := max(top, 0); y <= bottom && y < len(t.row); y++ {
		t.row[y] = t.ver
	}
}

// since reports whether row y may have changed after version v.
func (t *touched) since(y int, v uint64) bool {
	return t.row[y] > v || t.all > v
}

// movesOnly reports whether b, queued for vt10x, only moves its cursor within the row (CR,
// BS): no cell changes.
func movesOnly(b []byte) bool {
	for _, c := range b {
		if c != '\r' && c != '\b' {
			return false
		}
	}
	return true
}
