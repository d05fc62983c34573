package linediff

// The diff as it was before its bounds (commit 2a148ca), kept as the reference that ordinary
// diffs must still equal byte for byte.

import (
	"errors"
	"fmt"
	"strings"
)

var errRefTooLarge = errors.New("too large")

const refMaxEdits = 4000

type refOp struct {
	kind byte
	line string
}

// Unified returns the unified diff that turns old into new, with headers naming oldName and
// newName, or "" when they are equal. A text whose last line has no newline is marked as diff(1)
// marks it.
func refUnified(oldName, newName, old, new string) (string, error) {
	if old == new {
		return "", nil
	}
	a, b := refSplitLines(old), refSplitLines(new)
	ops, err := refScript(a, b)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	refWriteHunks(&out, ops)
	return out.String(), nil
}

// splitLines splits s after each newline; the last line keeps no newline when s has none.
func refSplitLines(s string) []string {
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
func refScript(a, b []string) ([]refOp, error) {
	// The common head and tail need no search.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]refOp, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, refOp{' ', l})
	}
	mid, err := refMyers(a[pre:len(a)-suf], b[pre:len(b)-suf])
	if err != nil {
		return nil, err
	}
	ops = append(ops, mid...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, refOp{' ', l})
	}
	return ops, nil
}

// myers finds a shortest edit script by Myers' greedy algorithm, keeping each round's furthest
// reaching paths (v) to walk the script back from the end.
func refMyers(a, b []string) ([]refOp, error) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		ops := make([]refOp, 0, n+m)
		for _, l := range a {
			ops = append(ops, refOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, refOp{'+', l})
		}
		return ops, nil
	}
	limit := min(n+m, refMaxEdits)
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
				return refBacktrack(a, b, trace, d), nil
			}
		}
	}
	return nil, errRefTooLarge
}

// backtrack walks the rounds back from (len(a), len(b)) at round dEnd and returns the script.
func refBacktrack(a, b []string, trace [][]int, dEnd int) []refOp {
	x, y := len(a), len(b)
	var rev []refOp
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
			rev = append(rev, refOp{' ', a[x]})
		}
		if x == px {
			y--
			rev = append(rev, refOp{'+', b[y]})
		} else {
			x--
			rev = append(rev, refOp{'-', a[x]})
		}
	}
	for x > 0 { // round 0's snake: equal lines at the start
		x, y = x-1, y-1
		rev = append(rev, refOp{' ', a[x]})
	}
	ops := make([]refOp, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

// writeHunks writes the script's changes in hunks with Context lines around each.
func refWriteHunks(out *strings.Builder, ops []refOp) {
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
		refWriteHunk(out, ops, start, stop)
		i = stop
	}
}

func refWriteHunk(out *strings.Builder, ops []refOp, start, stop int) {
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
	fmt.Fprintf(out, "@@ -%s +%s @@\n", refRangeOf(oldLine, oldN), refRangeOf(newLine, newN))
	for _, o := range ops[start:stop] {
		out.WriteByte(o.kind)
		out.WriteString(o.line)
		if !strings.HasSuffix(o.line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// rangeOf is a hunk's range as diff -u writes it: "l,n", "l" when n is 1, "l-1,0" when empty.
func refRangeOf(l, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", l-1)
	case 1:
		return fmt.Sprintf("%d", l)
	}
	return fmt.Sprintf("%d,%d", l, n)
}
