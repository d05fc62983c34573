// Package linediff makes unified diffs of two texts, line by line (Myers' O(ND) algorithm). An
// approval card shows an agent's file edit with it.
package linediff

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTooLarge: the two texts differ in more lines than Unified is willing to compare (Replaced
// then shows the new text whole).
var ErrTooLarge = errors.New("the texts differ in too many lines for a line diff")

// Bounds on one diff's cost. The search keeps one round of furthest reaching paths per edit
// (4·d bytes at round d, so about 4·maxEdits² in all: 4 MB), and stops once it has looked at
// maxWork cells (diagonals and snake steps: O((N+M)·D), a few tens of milliseconds); the lines
// between the common head and tail are at most maxLines a side. Past any of them Unified returns
// ErrTooLarge. A card's diff is read by a person: a change of more than a thousand lines is read
// as the new text anyway.
const (
	maxEdits = 1000
	maxWork  = 1 << 24
	maxLines = 1 << 15
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// Unified returns the unified diff that turns old into new, with headers naming oldName and
// newName, or "" when they are equal. A text whose last line has no newline is marked as diff(1)
// marks it. Its time and memory are bounded (maxEdits, maxWork, maxLines): past them it returns
// ErrTooLarge, whatever the texts' sizes.
func Unified(oldName, newName, old, new string) (string, error) {
	if old == new {
		return "", nil
	}
	ops, first, err := script(old, new)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	writeHunks(&out, ops, first)
	return out.String(), nil
}

// Replaced is what a card shows when Unified gave up (ErrTooLarge): the headers, a line saying
// how many lines replace how many, and the whole new text as added lines, so that all of what
// will be written is seen.
func Replaced(oldName, newName, old, new string) string {
	var out strings.Builder
	out.Grow(len(new) + len(new)/16 + 200)
	n, m := lineCount(old), lineCount(new)
	fmt.Fprintf(&out, "--- %s\n+++ %s\n@@ replaced: %d %s → %d %s (too different for a line diff; the new text follows whole) @@\n",
		oldName, newName, n, plural(n, "line"), m, plural(m, "line"))
	for rest := new; rest != ""; {
		l := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		writeLine(&out, '+', l)
	}
	return out.String()
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// lineCount is how many lines s has, its last one counted without a newline.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// splitLines splits s after each newline; the last line keeps no newline when s has none.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// script is the shortest edit script from old to new, from Context lines before the first change
// to Context lines after the last: equal lines, deletions and insertions, in order; first is the
// line number (from 0) of its first line, the same in both texts. The common head and tail are
// found on the texts as they are, so an edit in a large file splits only the lines it changed.
func script(old, new string) (ops []op, first int, err error) {
	pre := commonHead(old, new)
	suf := commonTail(old[pre:], new[pre:])
	am, bm := old[pre:len(old)-suf], new[pre:len(new)-suf]
	if strings.Count(am, "\n") >= maxLines || strings.Count(bm, "\n") >= maxLines {
		return nil, 0, ErrTooLarge
	}
	a, b := splitLines(am), splitLines(bm)
	trace, d, err := myers(a, b)
	if err != nil {
		return nil, 0, err
	}
	before := lastLines(old[:pre], Context)
	after := splitLines(old[len(old)-suf:])
	after = after[:min(len(after), Context)]
	// d edits and (len(a)+len(b)-d)/2 equal lines between them.
	mid := (len(a) + len(b) + d) / 2
	ops = make([]op, len(before)+mid+len(after))
	for i, l := range before {
		ops[i] = op{' ', l}
	}
	backtrack(ops[len(before):len(before)+mid], a, b, trace, d)
	for i, l := range after {
		ops[len(before)+mid+i] = op{' ', l}
	}
	return ops, strings.Count(old[:pre], "\n") - len(before), nil
}

// commonHead is the length of the longest run of whole lines a and b start with.
func commonHead(a, b string) int {
	n, i := 0, 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		if a[i] == '\n' {
			n = i + 1
		}
		i++
	}
	return n
}

// commonTail is the length of the longest run of whole lines a and b end with.
func commonTail(a, b string) int {
	n := 0
	for i := 1; i <= len(a) && i <= len(b) && a[len(a)-i] == b[len(b)-i]; i++ {
		// A whole line starts here when both texts start here or have a newline before it.
		ai, bi := len(a)-i, len(b)-i
		if (ai == 0 || a[ai-1] == '\n') && (bi == 0 || b[bi-1] == '\n') {
			n = i
		}
	}
	return n
}

// lastLines is the last k lines of s (which ends with a newline, or is empty).
func lastLines(s string, k int) []string {
	start := len(s)
	for range k {
		if start == 0 {
			break
		}
		start = strings.LastIndexByte(s[:start-1], '\n') + 1
	}
	return splitLines(s[start:])
}

// myers runs Myers' greedy search for a shortest edit script from a to b: it returns each
// round's furthest reaching paths (v before the round) and the number of edits, d, for backtrack
// to walk the script back from the end. Lines are compared as numbers (equal lines get equal
// numbers), so a long line costs its length once, not at every comparison.
func myers(a, b []string) (trace [][]int32, d int, err error) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil, n + m, nil // all deletions or all insertions: backtrack needs no rounds
	}
	if abs(n-m) > maxEdits {
		return nil, 0, ErrTooLarge // at least |n-m| edits
	}
	ia, ib := number(a, b)
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int32, 2*limit+3) // v[off+k]: the furthest x on diagonal k (x - y = k)
	work := 0
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int32(nil), v[off-d-1:off+d+2]...)) // v before round d, k in [-d-1, d+1]
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1]) // down: an insertion
			} else {
				x = int(v[off+k-1]) + 1 // right: a deletion
			}
			y := x - k
			x0 := x
			for x < n && y < m && ia[x] == ib[y] {
				x, y = x+1, y+1
			}
			if work += 1 + x - x0; work > maxWork {
				return nil, 0, ErrTooLarge
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return trace, d, nil
			}
		}
	}
	return nil, 0, ErrTooLarge
}

// number gives each line of a and b a number, equal for equal lines.
func number(a, b []string) (ia, ib []int32) {
	ids := make(map[string]int32, min(len(a)+len(b), 1024))
	num := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return num(a), num(b)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// backtrack walks the rounds back from (len(a), len(b)) at round dEnd and fills ops, which has
// room for exactly the script, from its end.
func backtrack(ops []op, a, b []string, trace [][]int32, dEnd int) {
	x, y, i := len(a), len(b), len(ops)
	put := func(kind byte, line string) {
		i--
		ops[i] = op{kind, line}
	}
	if len(a) == 0 || len(b) == 0 {
		for y > 0 {
			y--
			put('+', b[y])
		}
		for x > 0 {
			x--
			put('-', a[x])
		}
		return
	}
	for d := dEnd; d > 0; d-- {
		prev := trace[d] // v after round d-1, k in [-d-1, d+1]
		at := func(k int) int { return int(prev[k+d+1]) }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py { // the snake after the edit
			x, y = x-1, y-1
			put(' ', a[x])
		}
		if x == px {
			y--
			put('+', b[y])
		} else {
			x--
			put('-', a[x])
		}
	}
	for x > 0 { // round 0's snake: equal lines at the start
		x, y = x-1, y-1
		put(' ', a[x])
	}
}

// writeHunks writes the script's changes in hunks with Context lines around each; the script
// starts at line first (from 0) of both texts.
func writeHunks(out *strings.Builder, ops []op, first int) {
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk starts Context lines before this change and ends once more than 2*Context
		// equal lines follow its last change.
		start := max(0, i-Context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*Context {
				break
			}
		}
		stop := min(len(ops), end+Context)
		writeHunk(out, ops, first, start, stop)
		i = stop
	}
}

func writeHunk(out *strings.Builder, ops []op, first, start, stop int) {
	// Line numbers: count what comes before the hunk on each side.
	oldLine, newLine := first+1, first+1
	for _, o := range ops[:start] {
		if o.kind != '+' {
			oldLine++
		}
		if o.kind != '-' {
			newLine++
		}
	}
	oldN, newN := 0, 0
	for _, o := range ops[start:stop] {
		if o.kind != '+' {
			oldN++
		}
		if o.kind != '-' {
			newN++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", rangeOf(oldLine, oldN), rangeOf(newLine, newN))
	for _, o := range ops[start:stop] {
		writeLine(out, o.kind, o.line)
	}
}

// writeLine writes one line of a diff: its mark, the line, and diff(1)'s note when the line is
// the last and has no newline.
func writeLine(out *strings.Builder, kind byte, line string) {
	out.WriteByte(kind)
	out.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		out.WriteString("\n\\ No newline at end of file\n")
	}
}

// rangeOf is a hunk's range as diff -u writes it: "l,n", "l" when n is 1, "l-1,0" when empty.
func rangeOf(l, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", l-1)
	case 1:
		return fmt.Sprintf("%d", l)
	}
	return fmt.Sprintf("%d,%d", l, n)
}
