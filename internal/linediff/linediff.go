// Package linediff makes unified diffs of two texts, line by line (Myers' O(ND) algorithm). An
// approval card shows an agent's file edit with it.
package linediff

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTooLarge: the two texts differ in more lines than Unified is willing to compare.
var ErrTooLarge = errors.New("the texts differ in too many lines for a line diff")

// maxEdits bounds the edit distance Unified searches; its memory grows with the square of it.
const maxEdits = 4000

// Context is the number of unchanged lines shown around each change.
const Context = 3

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// Unified returns the unified diff that turns old into new, with headers naming oldName and
// newName, or "" when they are equal. A text whose last line has no newline is marked as diff(1)
// marks it.
func Unified(oldName, newName, old, new string) (string, error) {
	if old == new {
		return "", nil
	}
	a, b := splitLines(old), splitLines(new)
	ops, err := script(a, b)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	writeHunks(&out, ops)
	return out.String(), nil
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

// script is the shortest edit script from a to b: equal lines, deletions and insertions, in order.
func script(a, b []string) ([]op, error) {
	// The common head and tail need no search.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]op, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, op{' ', l})
	}
	mid, err := myers(a[pre:len(a)-suf], b[pre:len(b)-suf])
	if err != nil {
		return nil, err
	}
	ops = append(ops, mid...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, op{' ', l})
	}
	return ops, nil
}

// myers finds a shortest edit script by Myers' greedy algorithm, keeping each round's furthest
// reaching paths (v) to walk the script back from the end.
func myers(a, b []string) ([]op, error) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		ops := make([]op, 0, n+m)
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops, nil
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3) // v[off+k]: the furthest x on diagonal k (x - y = k)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...)) // v before round d, k in [-d-1, d+1]
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, d), nil
			}
		}
	}
	return nil, ErrTooLarge
}

// backtrack walks the rounds back from (len(a), len(b)) at round dEnd and returns the script.
func backtrack(a, b []string, trace [][]int, dEnd int) []op {
	x, y := len(a), len(b)
	var rev []op
	for d := dEnd; d > 0; d-- {
		prev := trace[d] // v after round d-1, k in [-d-1, d+1]
		at := func(k int) int { return prev[k+d+1] }
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
			rev = append(rev, op{' ', a[x]})
		}
		if x == px {
			y--
			rev = append(rev, op{'+', b[y]})
		} else {
			x--
			rev = append(rev, op{'-', a[x]})
		}
	}
	for x > 0 { // round 0's snake: equal lines at the start
		x, y = x-1, y-1
		rev = append(rev, op{' ', a[x]})
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

// writeHunks writes the script's changes in hunks with Context lines around each.
func writeHunks(out *strings.Builder, ops []op) {
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
		writeHunk(out, ops, start, stop)
		i = stop
	}
}

func writeHunk(out *strings.Builder, ops []op, start, stop int) {
	// Line numbers: count what comes before the hunk on each side.
	oldLine, newLine := 1, 1
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
		out.WriteByte(o.kind)
		out.WriteString(o.line)
		if !strings.HasSuffix(o.line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
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
