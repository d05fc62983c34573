package trim

import (
	"slices"

	"tickmux/tick/wire"
)

// fitArray keeps whole elements: from the newest end of a declared series, alternately from the
// head and the tail of an undeclared array. Elements that lead to protected series are kept
// whatever their place, with at least their skeleton. When not one element fits whole, the
// newest (or the first) is kept cut.
func (t trimmer) fitArray(n *node, b int, protect bool) (*result, int) {
	count := len(n.kids)
	newest := n.newestIndex()
	guard := protect && n.prot > 0 && n.need <= b
	if !guard {
		protect = false
	}
	keep := make([]bool, count)
	costs := make([]int, count)
	results := make([]*result, count)
	var pinned []int
	cost := 1 // [
	if guard {
		for i, k := range n.kids {
			switch {
			case n.self && i == newest:
				keep[i], costs[i] = true, k.size
				cost += k.size + 1
			case k.prot > 0:
				keep[i], costs[i] = true, k.need
				pinned = append(pinned, i)
				cost += k.need + 1
			}
		}
	}
	// Whole elements are taken in the rule's order while they fit, first against a bound on
	// what reporting the gaps costs (keeping more never makes more gaps), then once more against
	// the exact cost, giving back the last ones taken if the exact report grew.
	used := 0
	var taken []int
	room := b - cost - gaps(keep)*t.item(n.ptrLen, WhatElements, count, count)
	take := func(i int) bool {
		if n.kids[i].size+1 > room {
			return false
		}
		room -= n.kids[i].size + 1
		used += n.kids[i].size + 1
		keep[i], costs[i] = true, n.kids[i].size
		taken = append(taken, i)
		return true
	}
	selectWhole := func() {
		switch n.newest {
		case wire.NewestLast:
			for i := count - 1; i >= 0; i-- {
				if !keep[i] && !take(i) {
					break
				}
			}
		case wire.NewestFirst:
			for i := 0; i < count; i++ {
				if !keep[i] && !take(i) {
					break
				}
			}
		default:
			lo, hi := 0, count-1
			for loOpen, hiOpen := true, true; loOpen || hiOpen; {
				for lo <= hi && keep[lo] {
					lo++
				}
				if lo > hi {
					break
				}
				if loOpen {
					if take(lo) {
						lo++
					} else {
						loOpen = false
					}
				}
				for hi >= lo && keep[hi] {
					hi--
				}
				if hi < lo {
					break
				}
				if hiOpen {
					if take(hi) {
						hi--
					} else {
						hiOpen = false
					}
				}
			}
		}
	}
	selectWhole()
	room = b - cost - used - t.runs(n, keep)
	if room > 0 {
		before := len(taken)
		selectWhole()
		for len(taken) > before && cost+used+t.runs(n, keep) > b {
			i := taken[len(taken)-1]
			taken = taken[:len(taken)-1]
			keep[i] = false
			used -= n.kids[i].size + 1
		}
		room = b - cost - used - t.runs(n, keep)
	}

	if len(taken) == 0 && !guard {
		// Not one element fits whole: keep the one the rule values most, cut.
		e := max(newest, 0)
		eb := b - 2
		if count > 1 {
			eb -= t.item(n.ptrLen, WhatElements, count-1, min(1, count-1-e))
		}
		if k := n.kids[e]; eb >= t.floor(k, false) {
			keep[e] = true
			results[e], costs[e] = t.fit(k, eb, false)
		}
	}

	// What is left goes to the elements that lead to protected series, beyond their skeletons.
	if len(pinned) > 0 {
		lo := make([]int, len(pinned))
		hi := make([]int, len(pinned))
		for j, i := range pinned {
			lo[j], hi[j] = n.kids[i].need, n.kids[i].size
		}
		give := waterFill(lo, hi, room)
		order := make([]int, len(pinned))
		for j := range order {
			order[j] = j
		}
		slices.SortStableFunc(order, func(x, y int) int { return give[x] - give[y] })
		carry := 0
		for _, j := range order {
			i := pinned[j]
			g := give[j] + carry
			results[i], costs[i] = t.fit(n.kids[i], g, true)
			carry = g - costs[i]
		}
	}

	r := &result{}
	data := 1
	for i := range n.kids {
		if keep[i] {
			r.kids = append(r.kids, kept{i, results[i]})
			data += costs[i] + 1
		}
	}
	data = max(data, 2)
	for i := 0; i < count; {
		if keep[i] {
			i++
			continue
		}
		j := i
		for j < count && !keep[j] {
			j++
		}
		r.items = append(r.items, item{WhatElements, j - i, i})
		data += t.item(n.ptrLen, WhatElements, j-i, i)
		i = j
	}
	return r, data
}

// runs is what reporting the runs of elements not kept costs.
func (t trimmer) runs(n *node, keep []bool) int {
	cost := 0
	for i := 0; i < len(keep); {
		if keep[i] {
			i++
			continue
		}
		j := i
		for j < len(keep) && !keep[j] {
			j++
		}
		cost += t.item(n.ptrLen, WhatElements, j-i, i)
		i = j
	}
	return cost
}

// gaps counts the runs of elements not kept.
func gaps(keep []bool) int {
	g := 0
	for i, k := range keep {
		if !k && (i == 0 || keep[i-1]) {
			g++
		}
	}
	return g
}
