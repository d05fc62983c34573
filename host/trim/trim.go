// Package trim cuts a subscription delivery down to its budget (HOST.md H-SUB2, spec 6.4):
// 16 KiB for all entries together, 4 KiB per entry when there are several.
//
// Data trims one state's data; Fit applies the budget to the entries of one delivery. Both are
// pure functions: no I/O, no goroutines, no state between calls.
//
// What a trim keeps, in the order it gives things up:
//
//   - Arrays declared in state.series keep their newest end and lose the oldest elements.
//   - Undeclared arrays keep their head and tail (alternately, one element from each end) and
//     lose the middle.
//   - Objects keep their small members whole; the biggest members are cut first (water-filling:
//     every member larger than a common cap is trimmed to that cap), and a member that cannot be
//     cut small enough is dropped, the largest first.
//   - Strings are shortened to a prefix, cut between runes so they stay valid UTF-8.
//   - Numbers, true, false and null are never changed: they are kept whole or dropped.
//   - When not one element of an array fits whole, its newest element (a series) or its first
//     (an undeclared array) is kept, cut.
//   - The newest element of a declared series is never cut nor dropped when the series' skeleton
//     (the series holding only its newest element, inside objects and arrays holding only the way
//     to it) fits the budget. With several series the skeletons are taken in declaration order,
//     as long as they fit together.
//
// Every cut is reported as a Dropped, so nothing goes silently. Pointers in a report are RFC 6901
// JSON Pointers into the data as the Tick sent it, not into the trimmed copy: after a run of
// array elements was dropped, the indices that follow it in the trimmed copy are lower by the
// run's length.
//
// Sizes are UTF-8 bytes of compact JSON encoded without HTML escaping, the way encoding/json's
// Encoder writes after SetEscapeHTML(false) (spec 2.3). A delivery must be written that way:
// json.Marshal would turn every <, > and & into six bytes and could break the budget.
package trim

import (
	"encoding/json"

	"tickmux/tick/wire"
)

// The delivery budget (HOST.md, limits table and H-SUB2).
const (
	// TotalBudget bounds the encoded entries of one delivery together (and a lone entry).
	TotalBudget = 16 << 10
	// EntryBudget bounds each encoded entry when a delivery has several.
	EntryBudget = 4 << 10
)

// What a Dropped says was cut.
const (
	// WhatElements: Dropped elements of the array at Pointer, original indices From to
	// From+Dropped-1. An array may have several such runs.
	WhatElements = "elements"
	// WhatMembers: Dropped members of the object at Pointer; the members still present are the
	// ones kept.
	WhatMembers = "members"
	// WhatBytes: the string at Pointer was cut to its first From bytes (UTF-8, as decoded);
	// Dropped bytes followed them.
	WhatBytes = "bytes"
	// WhatValue: the whole value at Pointer was replaced by null (Dropped is 1). Only the root
	// gets this: when the data is not valid JSON, or when not even its smallest form fits.
	WhatValue = "value"
)

// Dropped reports one cut made by a trim (H-SUB2: "what was dropped is reported beside the data").
type Dropped struct {
	// Pointer is the JSON Pointer (RFC 6901) of the array, object or string that lost something,
	// into the data as it was before the trim; "" is the data itself.
	Pointer string `json:"pointer"`
	// Dropped counts elements, members or bytes, as What says.
	Dropped int `json:"dropped"`
	// What is WhatElements, WhatMembers, WhatBytes or WhatValue.
	What string `json:"what"`
	// From is the original index of the first dropped element (WhatElements) or the number of
	// bytes kept (WhatBytes); it is omitted when 0.
	From int `json:"from,omitempty"`
}

// Data returns data re-encoded compactly and trimmed to at most budget bytes, with the report of
// what was cut. Data that already fits comes back re-encoded and whole, with no report. The
// budget is the data's alone; Fit, whose entries carry the report, makes each cut pay for its
// report too.
//
// Number literals are kept exactly as written and object members keep their order; strings are
// re-encoded (escapes only where needed, invalid UTF-8 becomes U+FFFD). Series whose Path does not
// name an array, or whose Newest is neither wire.NewestFirst nor wire.NewestLast, are ignored;
// when two name the same array the first counts.
//
// Data that is not valid JSON becomes null, reported as WhatValue at "". So does data whose
// smallest form does not fit: a number, true or false longer than budget, or any value when budget
// is below 2. The result is then "null", 4 bytes, which exceeds a budget below 4: nothing valid
// and honest is smaller. Empty data stands for null.
func Data(data json.RawMessage, series []wire.Series, budget int) (json.RawMessage, []Dropped) {
	d, err := parse(data)
	if err != nil {
		return json.RawMessage("null"), []Dropped{{Pointer: "", Dropped: 1, What: WhatValue}}
	}
	d.declare(series)
	return d.trim(trimmer{}, budget)
}
