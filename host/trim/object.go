package trim

import "slices"

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
