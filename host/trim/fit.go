package trim

import (
	"encoding/json"

	"tickmux/tick/wire"
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
	case wire.NewestFirst:
		return 0
	case wire.NewestLast:
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
