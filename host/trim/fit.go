package trim

import (
	"encoding/json"
	"slices"

	"tickmux/tick"
)

// trimmer says how a trim counts. With charge set, every Dropped the trim reports is paid for out
// of the same budget as the data (Fit: the report travels in the entry); without, the budget is
// the data's alone (Data).
type trimmer struct {
	charge bool
}

// item is what one Dropped costs: its encoding and the comma or bracket after it in the list.
// dropped and from may be upper bounds; the cost then is one.
func (t trimmer) item(ptrLen int, what string, dropped, from int) int {
	if !t.charge {
		return 0
	}
	n := len(`{"pointer":`) + ptrLen + len(`,"dropped":`) + digits(dropped) + len(`,"what":""`) + len(what) + len(`}`) + 1
	if from > 0 {
		n += len(`,"from":`) + digits(from)
	}
	return n
}

// result is how a value was cut; nil stands for a value kept whole.
type result struct {
	str   []byte // a cut string's encoding
	kids  []kept // a cut array's or object's kept children, in document order
	items []item // the cuts made at this value
}

type kept struct {
	i int     // index in node.kids
	r *result // nil: whole
}

type item struct {
	what          string
	dropped, from int
}

// trim cuts the document to budget and encodes it.
func (d *doc) trim(t trimmer, budget int) (json.RawMessage, []Dropped) {
	if d.root.size <= budget {
		return d.encode(nil, budget)
	}
	d.protect(t, budget)
	if budget < t.floor(d.root, true) {
		if string(d.root.enc) == "null" {
			return json.RawMessage("null"), nil // nothing to report: it was null already
		}
		return json.RawMessage("null"), []Dropped{{Pointer: "", Dropped: 1, What: WhatValue}}
	}
	r, _ := t.fit(d.root, budget, true)
	return d.encode(r, budget)
}

// protect chooses the series whose newest element the trim keeps whole: in declaration order,
// each one whose skeleton still fits the budget together with those already chosen.
func (d *doc) protect(t trimmer, budget int) {
	for _, path := range d.series {
		for _, n := range path {
			n.prot, n.self = 0, false
		}
	}
	for _, path := range d.series {
		mark(path, 1)
		if t.need(d.root) > budget {
			mark(path, -1)
		}
	}
	if d.root.prot > 0 {
		t.need(d.root) // leaves every protected node's need in place
	}
}

func mark(path []*node, delta int) {
	for _, n := range path {
		n.prot += delta
	}
	path[len(path)-1].self = delta > 0
}

// need computes, and stores in n.need, the cost of n's skeleton: only what leads to protected
// series, each holding just its newest element, whole. n.prot must be > 0.
func (t trimmer) need(n *node) int {
	cost := 1
	switch n.kind {
	case kindObject:
		dropped := false
		for i, k := range n.kids {
			if k.prot > 0 {
				cost += len(n.keys[i]) + 1 + t.need(k) + 1
			} else {
				dropped = true
			}
		}
		if dropped {
			cost += t.item(n.ptrLen, WhatMembers, len(n.kids), 0)
		}
	case kindArray:
		newest := n.newestIndex()
		keep := make([]bool, len(n.kids))
		for i, k := range n.kids {
			switch {
			case n.self && i == newest:
				keep[i] = true
				cost += k.size + 1
			case k.prot > 0:
				keep[i] = true
				cost += t.need(k) + 1
			}
		}
		cost += gaps(keep) * t.item(n.ptrLen, WhatElements, len(n.kids), len(n.kids))
	default:
		cost = n.size // only arrays and objects lead to series
	}
	n.need = cost
	return cost
}

// newestIndex is the index of a declared array's newest element, -1 for an undeclared array.
func (n *node) newestIndex() int {
	switch n.newest {
	case tick.NewestFirst:
		return 0
	case tick.NewestLast:
		return len(n.kids) - 1
	}
	return -1
}

// floor is the least a value can cost and still be there: its skeleton when it holds protected
// series, else its smallest cut (a literal cannot be cut).
func (t trimmer) floor(n *node, protect bool) int {
	if protect && n.prot > 0 {
		return n.need
	}
	switch n.kind {
	case kindString:
		return min(n.size, 2+t.item(n.ptrLen, WhatBytes, n.size, n.size))
	case kindArray:
		return min(n.size, 2+t.item(n.ptrLen, WhatElements, len(n.kids), len(n.kids)))
	case kindObject:
		return min(n.size, 2+t.item(n.ptrLen, WhatMembers, len(n.kids), 0))
	}
	return n.size
}

// fit cuts n to cost at most b and returns the cut with its cost. Callers give b >= floor(n).
// protect says whether the protected series below n are still owed their newest element: a value
// whose skeleton does not fit its share gives up the protection for everything below it.
func (t trimmer) fit(n *node, b int, protect bool) (*result, int) {
	if n.size <= b {
		return nil, n.size
	}
	switch n.kind {
	case kindString:
		return t.fitString(n, b)
	case kindArray:
		return t.fitArray(n, b, protect)
	case kindObject:
		return t.fitObject(n, b, protect)
	}
	return nil, n.size // a literal cannot be cut
}

// fitString keeps the longest prefix that fits, cut between runes.
func (t trimmer) fitString(n *node, b int) (*result, int) {
	s := decoded(n.enc)
	room := b - 2 - t.item(n.ptrLen, WhatBytes, len(s), len(s))
	keep, used := 0, 0
	for keep < len(s) {
		size, enc := runeLen(s[keep:])
		if used+enc > room {
			break
		}
		keep += size
		used += enc
	}
	r := &result{str: appendString(nil, s[:keep]), items: []item{{WhatBytes, len(s) - keep, keep}}}
	return r, len(r.str) + t.item(n.ptrLen, WhatBytes, len(s)-keep, keep)
}

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
		case tick.NewestLast:
			for i := count - 1; i >= 0; i-- {
				if !keep[i] && !take(i) {
					break
				}
			}
		case tick.NewestFirst:
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

// waterFill shares extra among values that hold lo[i] each and can use up to hi[i]: everyone gets
// min(hi[i], cap) but at least lo[i], with the highest cap that fits.
func waterFill(lo, hi []int, extra int) []int {
	base, top := 0, 0
	for i := range lo {
		base += lo[i]
		top = max(top, hi[i])
	}
	c := search(0, top, func(c int) bool {
		sum := 0
		for i := range lo {
			sum += max(lo[i], min(hi[i], c))
		}
		return sum-base <= extra
	})
	give := make([]int, len(lo))
	for i := range lo {
		give[i] = max(lo[i], min(hi[i], c))
	}
	return give
}

// search returns the largest c in [lo, hi] with ok(c), ok being true up to some point and false
// after it; lo-1 when ok(lo) is false.
func search(lo, hi int, ok func(int) bool) int {
	good := lo - 1
	for lo <= hi {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			good, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return good
}

// fitObject water-fills the members: each gets min(its size, cap) with the highest cap that fits,
// so small members stay whole and the big ones are cut first. A member that cannot be cut down to
// the cap is dropped; then the smallest dropped ones come back while the slack allows. Members
// that lead to protected series always keep at least their skeleton.
func (t trimmer) fitObject(n *node, b int, protect bool) (*result, int) {
	if protect && n.prot > 0 && n.need > b {
		protect = false
	}
	m := len(n.kids)
	floors := make([]int, m)
	must := make([]bool, m)
	top := 0
	for i, k := range n.kids {
		must[i] = protect && k.prot > 0
		floors[i] = t.floor(k, protect)
		top = max(top, k.size)
	}
	// alloc is member i's share under cap c, -1 when dropped.
	alloc := func(i, c int) int {
		s := n.kids[i].size
		switch {
		case must[i]:
			return max(floors[i], min(s, c))
		case s <= c:
			return s
		case floors[i] <= c:
			return c
		}
		return -1
	}
	// data is the object's size under cap c; dropped says whether a member goes.
	data := func(c int) (size int, dropped bool) {
		size = 1
		for i := range n.kids {
			if a := alloc(i, c); a >= 0 {
				size += len(n.keys[i]) + 1 + a + 1
			} else {
				dropped = true
			}
		}
		return max(size, 2), dropped
	}
	report := t.item(n.ptrLen, WhatMembers, m, 0)
	c := search(0, top, func(c int) bool { s, _ := data(c); return s <= b })
	if _, dropped := data(c); c < 0 || dropped {
		c = max(search(0, top, func(c int) bool { s, _ := data(c); return s+report <= b }), 0)
	}

	allocs := make([]int, m)
	var out []int
	for i := range n.kids {
		if allocs[i] = alloc(i, c); allocs[i] < 0 {
			out = append(out, i)
		}
	}
	size, dropped := data(c)
	slack := b - size
	if dropped {
		slack -= report
	}
	// The cap moves in steps, so a step may leave room: bring dropped members back, the smallest
	// whole first, then the cheapest cut.
	whole := func(i int) int { return len(n.keys[i]) + 2 + n.kids[i].size }
	cut := func(i int) int { return len(n.keys[i]) + 2 + floors[i] }
	slices.SortStableFunc(out, func(x, y int) int { return whole(x) - whole(y) })
	for _, i := range out {
		if whole(i) <= slack {
			allocs[i] = n.kids[i].size
			slack -= whole(i)
		}
	}
	slices.SortStableFunc(out, func(x, y int) int { return cut(x) - cut(y) })
	for _, i := range out {
		if allocs[i] < 0 && cut(i) <= slack {
			allocs[i] = floors[i]
			slack -= cut(i)
		}
	}

	// Cut the members, smallest share first, handing on what each leaves unused.
	order := make([]int, 0, m)
	for i := range n.kids {
		if allocs[i] >= 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if allocs[x] != allocs[y] {
			return allocs[x] - allocs[y]
		}
		return n.kids[x].size - n.kids[y].size
	})
	results := make([]*result, m)
	costs := make([]int, m)
	carry := 0
	for _, i := range order {
		g := allocs[i] + carry
		results[i], costs[i] = t.fit(n.kids[i], g, protect)
		carry = g - costs[i]
	}
	// What the cuts left unused may still bring back a small dropped member whole.
	slices.SortStableFunc(out, func(x, y int) int { return whole(x) - whole(y) })
	for _, i := range out {
		if allocs[i] < 0 && whole(i) <= carry+slack {
			allocs[i], costs[i] = n.kids[i].size, n.kids[i].size
			carry -= whole(i)
		}
	}

	r := &result{}
	total, gone := 1, 0
	for i := range n.kids {
		if allocs[i] < 0 {
			gone++
			continue
		}
		r.kids = append(r.kids, kept{i, results[i]})
		total += len(n.keys[i]) + 1 + costs[i] + 1
	}
	total = max(total, 2)
	if gone > 0 {
		r.items = []item{{WhatMembers, gone, 0}}
		total += t.item(n.ptrLen, WhatMembers, gone, 0)
	}
	return r, total
}
