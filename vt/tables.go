package vt

// vt10x keeps one rune and two colours per cell. The guard stores in them what tmux keeps: the
// foreground holds the id of a full Style (styles), and a cell whose content is not one narrow
// rune holds a rune from a private plane that names it (clusters). Ids that no cell, pen or saved
// cursor uses any more are swept and reused, so a program that paints with a million colours
// costs no more than the screen it shows.

// Private code points the guard writes into vt10x; program text is never stored as them.
const (
	clusterBase      rune = 0xF0000  // first cluster id (plane 15)
	clusterLimit     rune = 0xFFFFE  // one past the last
	continuationRune rune = 0x10FFFD // right half of a wide character
	maxStyleID            = 1<<24 - 1
	maxClusterBytes       = 64 // a longer run of marks is cut here
)

// styleTable interns Styles; id 0 is the default style.
type styleTable struct {
	ids    map[Style]uint32
	styles []Style
	free   []uint32
	limit  int    // a sweep runs when this many ids are in use
	reused uint64 // ids given again after a sweep: a row's hash (rowHash) holds it
}

func newStyleTable() styleTable {
	return styleTable{ids: map[Style]uint32{}, styles: []Style{{}}, limit: 4096}
}

// lookup returns the id of s and whether it already had one.
func (t *styleTable) lookup(s Style) (uint32, bool) {
	if s == (Style{}) {
		return 0, true
	}
	id, ok := t.ids[s]
	return id, ok
}

// full reports whether a new id should wait for a sweep.
func (t *styleTable) full() bool { return len(t.ids) >= t.limit }

// add gives s a new id; it returns 0 (the default) when every id is taken.
func (t *styleTable) add(s Style) uint32 {
	var id uint32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.styles[id] = s
		t.reused++
	} else {
		if len(t.styles) > maxStyleID {
			return 0
		}
		id = uint32(len(t.styles))
		t.styles = append(t.styles, s)
	}
	t.ids[s] = id
	return id
}

func (t *styleTable) get(id uint32) Style {
	if int(id) < len(t.styles) {
		return t.styles[id]
	}
	return Style{}
}

// sweep frees every id not marked live and grows the limit when most ids are live.
func (t *styleTable) sweep(live []bool) {
	for s, id := range t.ids {
		if int(id) < len(live) && live[id] {
			continue
		}
		delete(t.ids, s)
		t.styles[id] = Style{}
		t.free = append(t.free, id)
	}
	if len(t.ids) > t.limit/2 {
		t.limit *= 2
	}
}

// clusterTable interns the text of cells that one rune cannot stand for: a character with the
// marks that joined it, or a code point from the planes the guard reserves.
type clusterTable struct {
	any   bool // an id was ever given: rows may hold ids
	ids   map[string]rune
	texts []string // by id - clusterBase
	free  []rune
	limit int

	reused uint64 // ids given again after a sweep: a row's hash (rowHash) holds it
}

func newClusterTable() clusterTable {
	return clusterTable{ids: map[string]rune{}, limit: 1024}
}

func (t *clusterTable) full() bool { return len(t.ids) >= t.limit }

func (t *clusterTable) lookup(s string) (rune, bool) {
	id, ok := t.ids[s]
	return id, ok
}

// add gives s an id; false when every id is taken.
func (t *clusterTable) add(s string) (rune, bool) {
	var id rune
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.texts[id-clusterBase] = s
		t.reused++
	} else {
		id = clusterBase + rune(len(t.texts))
		if id >= clusterLimit {
			return 0, false
		}
		t.texts = append(t.texts, s)
	}
	t.ids[s] = id
	t.any = true
	return id, true
}

// text is the cluster named by id, "" when id names none.
func (t *clusterTable) text(id rune) string {
	if i := int(id - clusterBase); i >= 0 && i < len(t.texts) {
		return t.texts[i]
	}
	return ""
}

func (t *clusterTable) sweep(live []bool) {
	for s, id := range t.ids {
		if i := int(id - clusterBase); i < len(live) && live[i] {
			continue
		}
		delete(t.ids, s)
		t.texts[id-clusterBase] = ""
		t.free = append(t.free, id)
	}
	if len(t.ids) > t.limit/2 {
		t.limit *= 2
	}
}

func isClusterID(r rune) bool { return r >= clusterBase && r < clusterLimit }
