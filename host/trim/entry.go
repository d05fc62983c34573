package trim

import (
	"bytes"
	"encoding/json"
	"slices"

	"tickmux/tick/wire"
)

// Entry is one instance's news in a subscription delivery (HOST.md H-SUB1): its latest state, how
// many updates were merged into it, the recovery tool, and what the trim cut (H-SUB2).
type Entry struct {
	ID     string          `json:"id"`
	Seq    uint64          `json:"seq"`
	At     string          `json:"at"`
	Data   json.RawMessage `json:"data"`
	Merged uint64          `json:"merged"`
	// Missed counts the updates the client never saw: Merged - 1, or 0 (the delivered state is
	// the one it sees). Only when it is above 0 is the recovery tool worth calling.
	Missed      uint64    `json:"missed"`
	RecoverWith string    `json:"recover_with,omitempty"`
	Trimmed     []Dropped `json:"trimmed,omitempty"`
	// Series are the instance's state.series declarations, which steer the trim; not delivered.
	Series []wire.Series `json:"-"`
}

// Fit applies the delivery budget to the entries of one delivery and returns them in the same
// order. An entry that fits its share comes back untouched; another has its Data trimmed (as by
// Data) and what was cut appended to its Trimmed. The budget is on each entry as encoded
// (compact, SetEscapeHTML(false)), Trimmed included.
//
// Shares: a lone entry may use TotalBudget. With several, each gets min(its size, c), c being the
// largest cap up to EntryBudget for which the shares add up to at most TotalBudget; so up to four
// entries get EntryBudget each, more split TotalBudget evenly among those that need it, and small
// entries leave their room to the big ones (never past EntryBudget). An entry trimmed below its
// share hands what it leaves on to the next bigger one.
//
// Fit never drops an entry, so one budget can be missed: when the other fields of an entry (id,
// at, recover_with, the Trimmed it came with) leave no room for even its smallest data and report,
// the entry stays over its share. That takes a delivery of over a hundred entries with data to
// cut (an entry cut to {} measures about 130 bytes), or absurdly long fields.
func Fit(entries []Entry) []Entry {
	out := slices.Clone(entries)
	switch len(entries) {
	case 0:
		return out
	case 1:
		size, valid := sizeOf(entries[0])
		out[0], _ = fitEntry(entries[0], TotalBudget, size, valid)
		return out
	}
	sizes := make([]int, len(entries))
	valid := make([]bool, len(entries))
	for i, e := range entries {
		sizes[i], valid[i] = sizeOf(e)
	}
	c := search(0, EntryBudget, func(c int) bool {
		sum := 0
		for _, s := range sizes {
			sum += min(s, c)
		}
		return sum <= TotalBudget
	})
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return min(sizes[x], c) - min(sizes[y], c) })
	carry := 0
	for _, i := range order {
		share := min(sizes[i], c) + carry
		var used int
		out[i], used = fitEntry(entries[i], min(share, EntryBudget), sizes[i], valid[i])
		carry = share - used
	}
	return out
}

// fitEntry trims e, of the given encoded size, to at most budget bytes encoded and returns it
// with its encoded size. valid says whether e.Data is JSON.
func fitEntry(e Entry, budget, size int, valid bool) (Entry, int) {
	if size <= budget {
		return e, size
	}
	// What the entry costs without its data, with room for the list of cuts.
	base := bareSize(e)
	if len(e.Trimmed) == 0 {
		base += len(`,"trimmed":[`)
	}
	var d *doc
	if valid {
		d = parseValid(e.Data)
		d.declare(e.Series)
	}
	t := trimmer{charge: true}
	for room := budget - base; ; {
		out := e
		var cut []Dropped
		if !valid {
			out.Data, cut = json.RawMessage("null"), []Dropped{{Pointer: "", Dropped: 1, What: WhatValue}}
		} else {
			out.Data, cut = d.trim(t, room)
		}
		out.Trimmed = append(slices.Clip(e.Trimmed), cut...)
		size, _ := sizeOf(out)
		// The trim pays for its report, so the first pass fits; the loop is a safety net.
		if size <= budget || string(out.Data) == "null" {
			return out, size
		}
		room -= size - budget
	}
}

// sizeOf is the size of e encoded compactly without HTML escaping, as a delivery carries it, and
// whether its data is JSON. An entry whose data is not cannot be encoded: it counts as too big
// for any budget.
func sizeOf(e Entry) (int, bool) {
	n, ok := compactLen(e.Data)
	if !ok {
		return TotalBudget + 1, false
	}
	return bareSize(e) + n, true
}

// bareSize is the size of e encoded without its data.
func bareSize(e Entry) int {
	e.Data = json.RawMessage("0")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		panic("trim: an entry without data does not encode: " + err.Error())
	}
	return buf.Len() - 2 // the 0, and the newline Encode ends with
}

// compactLen is the size of data as encoding/json writes a json.RawMessage without HTML escaping:
// whitespace between tokens goes, nothing else changes; nil data is null.
func compactLen(data []byte) (int, bool) {
	if len(data) == 0 {
		return len("null"), true
	}
	if !json.Valid(data) {
		return 0, false
	}
	n, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				n++
				i++
			} else if c == '"' {
				inString = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			inString = true
		}
		n++
	}
	return n, true
}
