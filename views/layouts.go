package views

// Preset is one of tmux's preset layouts (select-layout), applied to the panes in their reading
// order: the first is the main pane of the main-* layouts.
type Preset int

const (
	EvenHorizontal Preset = iota // side by side, equal widths
	EvenVertical                 // one above the other, equal heights
	MainHorizontal               // the first on top, the others side by side below it
	MainVertical                 // the first on the left, the others one above the other beside it
	Tiled                        // a grid, as square as the count allows
	numPresets
)

// String is tmux's name for the preset.
func (p Preset) String() string {
	return [...]string{"even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"}[p]
}

// mainShare is the main pane's share of the main-* layouts.
const mainShare = 0.6

// ApplyPreset arranges the panes as preset p; zoom ends, as tmux's select-layout ends it.
func (l *Layout) ApplyPreset(p Preset) {
	ids := l.IDs()
	l.zoomed, l.preset, l.presetSet = "", p, true
	if len(ids) == 0 {
		return
	}
	var root *node
	switch p {
	case EvenHorizontal:
		root = evenChain(ids, SideBySide)
	case EvenVertical:
		root = evenChain(ids, Stacked)
	case MainHorizontal, MainVertical:
		axis, rest := Stacked, SideBySide
		if p == MainVertical {
			axis, rest = SideBySide, Stacked
		}
		root = &node{id: ids[0]}
		if len(ids) > 1 {
			root = join(root, evenChain(ids[1:], rest), axis, mainShare)
		}
	default: // Tiled
		// As tmux's select-layout tiled counts them: rows grow first, then columns.
		rows, cols := 1, 1
		for rows*cols < len(ids) {
			rows++
			if rows*cols < len(ids) {
				cols++
			}
		}
		var grid [][]string
		for i := 0; i < len(ids); i += cols {
			grid = append(grid, ids[i:min(i+cols, len(ids))])
		}
		var rowNodes []*node
		for _, r := range grid {
			rowNodes = append(rowNodes, evenChain(r, SideBySide))
		}
		root = chainNodes(rowNodes, Stacked)
	}
	root.parent = nil
	l.root = root
}

// NextPreset is the preset after the last one applied (prefix Space cycles them).
func (l *Layout) NextPreset() Preset {
	if l.presetSet {
		return (l.preset + 1) % numPresets
	}
	return EvenHorizontal
}

// evenChain puts the panes ids along axis with equal shares.
func evenChain(ids []string, axis Axis) *node {
	nodes := make([]*node, len(ids))
	for i, id := range ids {
		nodes[i] = &node{id: id}
	}
	return chainNodes(nodes, axis)
}

// chainNodes splits along axis so that each of nodes gets an equal share: the first against the
// rest at 1/n, and so on.
func chainNodes(nodes []*node, axis Axis) *node {
	if len(nodes) == 1 {
		return nodes[0]
	}
	return join(nodes[0], chainNodes(nodes[1:], axis), axis, 1/float64(len(nodes)))
}

// join makes a split of a and b along axis, a taking ratio.
func join(a, b *node, axis Axis, ratio float64) *node {
	n := &node{axis: axis, ratio: ratio, a: a, b: b}
	a.parent, b.parent = n, n
	return n
}
