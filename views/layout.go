package views

import "math"

// Layout arranges panes as tmux does: a binary tree of splits, each dividing its rectangle
// between two children at a ratio. It is pure geometry: it knows panes only by an id.
//
// Only the UI goroutine touches a Layout.
type Layout struct {
	root   *node
	zoomed string // the id shown alone, "" when none
}

// Axis is the direction a split divides in.
type Axis int

const (
	// SideBySide puts the second child to the right of the first (tmux split-window -h).
	SideBySide Axis = iota
	// Stacked puts the second child below the first (tmux split-window -v).
	Stacked
)

// Direction is where to look for a neighbour or which way to move a border.
type Direction int

const (
	Left Direction = iota
	Right
	Up
	Down
)

// Rect is a rectangle of cells.
type Rect struct{ X, Y, W, H int }

// Contains reports whether the cell (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

type node struct {
	parent *node
	id     string // a leaf's pane id; "" for a split
	axis   Axis
	ratio  float64 // the first child's share
	a, b   *node
	rect   Rect
}

func (n *node) leaf() bool { return n.id != "" }

// minPane is the smallest a pane may be in either direction: a frame and one cell.
const minPane = 3

// Empty reports whether the layout has no pane.
func (l *Layout) Empty() bool { return l.root == nil }

// Add places the first pane, or splits target to place id beside or below it.
func (l *Layout) Add(target, id string, axis Axis) {
	leaf := &node{id: id}
	if l.root == nil {
		l.root = leaf
		return
	}
	t := l.find(target)
	if t == nil {
		t = l.lastLeaf()
	}
	split := &node{parent: t.parent, axis: axis, ratio: 0.5, a: t, b: leaf}
	l.replace(t, split)
	t.parent, leaf.parent = split, split
	l.zoomed = ""
}

// replace puts n where old was in the tree.
func (l *Layout) replace(old, n *node) {
	p := old.parent
	n.parent = p
	switch {
	case p == nil:
		l.root = n
	case p.a == old:
		p.a = n
	default:
		p.b = n
	}
}

// Remove takes a pane out; its sibling takes the split's place.
func (l *Layout) Remove(id string) {
	n := l.find(id)
	if n == nil {
		return
	}
	if l.zoomed == id {
		l.zoomed = ""
	}
	p := n.parent
	if p == nil {
		l.root = nil
		return
	}
	sibling := p.a
	if sibling == n {
		sibling = p.b
	}
	l.replace(p, sibling)
}

// Swap exchanges two panes' places.
func (l *Layout) Swap(a, b string) {
	na, nb := l.find(a), l.find(b)
	if na == nil || nb == nil || na == nb {
		return
	}
	na.id, nb.id = nb.id, na.id
}

// Has reports whether id is in the layout.
func (l *Layout) Has(id string) bool { return l.find(id) != nil }

// IDs lists the panes in reading order (left to right, top to bottom through the tree).
func (l *Layout) IDs() []string {
	var out []string
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.leaf() {
			out = append(out, n.id)
			return
		}
		walk(n.a)
		walk(n.b)
	}
	walk(l.root)
	return out
}

// Tile arranges every pane in a grid of equal cells, in reading order, as tmux's select-layout
// tiled does: rows and columns as close to equal as the count allows, rows first.
func (l *Layout) Tile() {
	ids := l.IDs()
	if len(ids) < 2 {
		return
	}
	rows, cols := 1, 1
	for rows*cols < len(ids) {
		rows++
		if rows*cols < len(ids) {
			cols++
		}
	}
	var lines []*node
	for i := 0; i < len(ids); i += cols {
		var cells []*node
		for _, id := range ids[i:min(i+cols, len(ids))] {
			cells = append(cells, &node{id: id})
		}
		lines = append(lines, evenSplits(cells, SideBySide))
	}
	l.root = evenSplits(lines, Stacked)
	l.root.parent = nil
	l.zoomed = ""
}

// evenSplits chains ns along axis so that each gets an equal share.
func evenSplits(ns []*node, axis Axis) *node {
	if len(ns) == 1 {
		return ns[0]
	}
	rest := evenSplits(ns[1:], axis)
	n := &node{axis: axis, ratio: 1 / float64(len(ns)), a: ns[0], b: rest}
	ns[0].parent, rest.parent = n, n
	return n
}

// Zoom shows id alone (or, if it is zoomed already, unzooms).
func (l *Layout) Zoom(id string) {
	if l.zoomed == id || !l.Has(id) {
		l.zoomed = ""
		return
	}
	l.zoomed = id
}

// Zoomed is the zoomed pane's id, or "".
func (l *Layout) Zoomed() string { return l.zoomed }

func (l *Layout) find(id string) *node {
	var found *node
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || found != nil {
			return
		}
		if n.leaf() {
			if n.id == id {
				found = n
			}
			return
		}
		walk(n.a)
		walk(n.b)
	}
	walk(l.root)
	return found
}

func (l *Layout) lastLeaf() *node {
	n := l.root
	for n != nil && !n.leaf() {
		n = n.b
	}
	return n
}

// Arrange computes every pane's rectangle within r and returns them by id. A zoomed pane gets
// all of r and the others none.
func (l *Layout) Arrange(r Rect) map[string]Rect {
	out := map[string]Rect{}
	if l.root == nil {
		return out
	}
	if l.zoomed != "" {
		out[l.zoomed] = r
		l.arrange(l.root, r) // keep the split rectangles right for when zoom ends
		return out
	}
	l.arrange(l.root, r)
	var collect func(n *node)
	collect = func(n *node) {
		if n.leaf() {
			out[n.id] = n.rect
			return
		}
		collect(n.a)
		collect(n.b)
	}
	collect(l.root)
	return out
}

func (l *Layout) arrange(n *node, r Rect) {
	n.rect = r
	if n.leaf() {
		return
	}
	ar, br := r, r
	if n.axis == SideBySide {
		aw := splitSize(r.W, n.ratio)
		ar.W, br.X, br.W = aw, r.X+aw, r.W-aw
	} else {
		ah := splitSize(r.H, n.ratio)
		ar.H, br.Y, br.H = ah, r.Y+ah, r.H-ah
	}
	l.arrange(n.a, ar)
	l.arrange(n.b, br)
}

// splitSize is the first child's share of size, kept at least minPane on both sides when
// there is room.
func splitSize(size int, ratio float64) int {
	a := int(math.Round(float64(size) * ratio))
	if size >= 2*minPane {
		a = max(minPane, min(a, size-minPane))
	}
	return max(0, min(a, size))
}

// Neighbor returns the pane next to id in direction d, or "": the closest pane whose edge
// touches that side and overlaps id's span, preferring the largest overlap.
func (l *Layout) Neighbor(id string, d Direction, rects map[string]Rect) string {
	from, ok := rects[id]
	if !ok {
		return ""
	}
	best, bestDist, bestOverlap := "", math.MaxInt, -1
	for other, r := range rects {
		if other == id {
			continue
		}
		var dist, overlap int
		switch d {
		case Left:
			dist, overlap = from.X-(r.X+r.W), span(from.Y, from.H, r.Y, r.H)
		case Right:
			dist, overlap = r.X-(from.X+from.W), span(from.Y, from.H, r.Y, r.H)
		case Up:
			dist, overlap = from.Y-(r.Y+r.H), span(from.X, from.W, r.X, r.W)
		case Down:
			dist, overlap = r.Y-(from.Y+from.H), span(from.X, from.W, r.X, r.W)
		}
		if dist < 0 || overlap <= 0 {
			continue
		}
		better := dist < bestDist || (dist == bestDist && overlap > bestOverlap)
		if dist == bestDist && overlap == bestOverlap {
			// A tie goes to the pane nearer the top (or the left), so it never depends on map order.
			b := rects[best]
			better = r.Y < b.Y || (r.Y == b.Y && r.X < b.X)
		}
		if better {
			best, bestDist, bestOverlap = other, dist, overlap
		}
	}
	return best
}

func span(a, alen, b, blen int) int {
	return min(a+alen, b+blen) - max(a, b)
}

// Resize moves the border on side d of pane id by cells, through the nearest split of the right
// axis. It reports whether anything moved.
func (l *Layout) Resize(id string, d Direction, cells int) bool {
	n := l.find(id)
	if n == nil {
		return false
	}
	axis := SideBySide
	if d == Up || d == Down {
		axis = Stacked
	}
	// Find the nearest split of that axis with n on the side whose border faces d; if there is
	// none, any split of the axis will do (tmux moves the nearest border either way).
	var target *node
	for c, p := n, n.parent; p != nil; c, p = p, p.parent {
		if p.axis != axis {
			continue
		}
		if target == nil {
			target = p
		}
		if (c == p.a && (d == Right || d == Down)) || (c == p.b && (d == Left || d == Up)) {
			target = p
			break
		}
	}
	if target == nil {
		return false
	}
	size := target.rect.W
	if axis == Stacked {
		size = target.rect.H
	}
	if size <= 2*minPane {
		return false
	}
	delta := float64(cells) / float64(size)
	if d == Left || d == Up {
		delta = -delta
	}
	old := target.ratio
	target.ratio = clampRatio(target.ratio+delta, size)
	return target.ratio != old
}

func clampRatio(r float64, size int) float64 {
	lo := float64(minPane) / float64(size)
	return math.Max(lo, math.Min(1-lo, r))
}

// Border is a split's dividing line, for dragging with the mouse: the boundary is at X (a
// side-by-side split) or Y (a stacked one), within the split's rectangle.
type Border struct {
	Axis Axis
	At   int  // the first cell of the second child
	Span Rect // the split's rectangle
	node *node
}

// BorderAt finds the border under (x, y): the last column or row of the first child, or the
// first of the second (each pane draws its own frame, so the boundary is two cells wide).
func (l *Layout) BorderAt(x, y int) *Border {
	var found *Border
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || n.leaf() || found != nil || !n.rect.Contains(x, y) {
			return
		}
		if n.axis == SideBySide {
			at := n.b.rect.X
			if x == at || x == at-1 {
				found = &Border{Axis: SideBySide, At: at, Span: n.rect, node: n}
				return
			}
		} else {
			at := n.b.rect.Y
			if y == at || y == at-1 {
				found = &Border{Axis: Stacked, At: at, Span: n.rect, node: n}
				return
			}
		}
		walk(n.a)
		walk(n.b)
	}
	walk(l.root)
	return found
}

// Drag moves a border so that the second child starts at x (side by side) or y (stacked).
func (l *Layout) Drag(b *Border, x, y int) {
	n := b.node
	if b.Axis == SideBySide {
		if n.rect.W > 0 {
			n.ratio = clampRatio(float64(x-n.rect.X)/float64(n.rect.W), n.rect.W)
		}
		return
	}
	if n.rect.H > 0 {
		n.ratio = clampRatio(float64(y-n.rect.Y)/float64(n.rect.H), n.rect.H)
	}
}

// Place is where a pane was in the layout: beside which part of it, along which axis, on which
// side and at what share. Lift returns it; PutBack puts a pane back there.
type Place struct {
	sibling *node // what shared the pane's split; it takes the split's place while the pane is away
	axis    Axis
	ratio   float64
	first   bool // the pane was the split's first child (left or top)
}

// Lift takes id out of the layout like Remove and says where it was.
func (l *Layout) Lift(id string) Place {
	n := l.find(id)
	if n == nil || n.parent == nil {
		l.Remove(id)
		return Place{}
	}
	p := n.parent
	at := Place{sibling: p.b, axis: p.axis, ratio: p.ratio, first: p.a == n}
	if !at.first {
		at.sibling = p.a
	}
	l.Remove(id)
	return at
}

// PutBack places id where Lift took it from, if what was beside it is still in the layout; it
// reports whether it could.
func (l *Layout) PutBack(id string, at Place) bool {
	if at.sibling == nil || !l.contains(at.sibling) {
		return false
	}
	leaf := &node{id: id}
	split := &node{axis: at.axis, ratio: at.ratio, a: at.sibling, b: leaf}
	if at.first {
		split.a, split.b = leaf, at.sibling
	}
	l.replace(at.sibling, split)
	at.sibling.parent, leaf.parent = split, split
	l.zoomed = ""
	return true
}

// contains reports whether n is a node of the layout's tree.
func (l *Layout) contains(n *node) bool {
	for ; n != nil; n = n.parent {
		if n == l.root {
			return true
		}
	}
	return false
}

// Rename gives pane old's place to pane new (a respawned program).
func (l *Layout) Rename(old, new string) {
	if n := l.find(old); n != nil {
		n.id = new
		if l.zoomed == old {
			l.zoomed = new
		}
	}
}
