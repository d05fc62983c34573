package linediff

import (
	"fmt"
	"math/rand"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedGolden(t *testing.T) {
	t.Parallel()
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn"
	got, err := Unified("a/f", "b/f", old, new)
	if err != nil {
		t.Fatal(err)
	}
	want := `--- a/f
+++ b/f
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -11,3 +11,4 @@
 k
 l
 m
+n
\ No newline at end of file
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestUnifiedEdges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ old, new, want string }{
		{"same\n", "same\n", ""},
		{"", "x\ny\n", "--- o\n+++ n\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"x\n", "", "--- o\n+++ n\n@@ -1 +0,0 @@\n-x\n"},
		{"x", "x\n", "--- o\n+++ n\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n"},
	} {
		got, err := Unified("o", "n", c.old, c.new)
		if err != nil || got != c.want {
			t.Errorf("Unified(%q, %q) = %q, %v; want %q", c.old, c.new, got, err, c.want)
		}
	}
}

// TestUnifiedRandom applies each diff back to the old text and checks it gives the new one, and
// that the script is as short as an LCS says it can be.
func TestUnifiedRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		a, b := randomText(r), randomText(r)
		d, err := Unified("o", "n", a, b)
		if err != nil {
			t.Fatal(err)
		}
		got, changed := apply(t, a, d)
		if got != b {
			t.Fatalf("case %d: applying\n%s\nto %q gives %q, want %q", i, d, a, got, b)
		}
		al, bl := splitLines(a), splitLines(b)
		if want := len(al) + len(bl) - 2*lcs(al, bl); changed != want {
			t.Fatalf("case %d: %d changed lines, the shortest script has %d:\n%s", i, changed, want, d)
		}
	}
}

func TestUnifiedTooLarge(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := 0; i < maxEdits; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	if _, err := Unified("o", "n", a.String(), b.String()); err != ErrTooLarge {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func randomText(r *rand.Rand) string {
	var s strings.Builder
	n := r.Intn(12)
	for i := 0; i < n; i++ {
		s.WriteString(string(rune('a' + r.Intn(4))))
		if i < n-1 || r.Intn(3) > 0 {
			s.WriteByte('\n')
		}
	}
	return s.String()
}

// apply applies a unified diff to old and counts its changed lines.
func apply(t *testing.T, old, diff string) (string, int) {
	t.Helper()
	if diff == "" {
		return old, 0
	}
	src := splitLines(old)
	lines := strings.SplitAfter(diff, "\n")
	var out []string
	pos, changed := 0, 0
	for i := 2; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@") {
			f := strings.Fields(l)
			start, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(f[1], "-"), ",")[0])
			if strings.HasSuffix(f[1], ",0") {
				start++
			}
			for pos < start-1 {
				out = append(out, src[pos])
				pos++
			}
			continue
		}
		text := l[1:]
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
			text = strings.TrimSuffix(text, "\n")
			i++
		}
		switch l[0] {
		case ' ':
			if src[pos] != text {
				t.Fatalf("context %q does not match %q", text, src[pos])
			}
			out = append(out, text)
			pos++
		case '-':
			if src[pos] != text {
				t.Fatalf("deleted %q does not match %q", text, src[pos])
			}
			pos++
			changed++
		case '+':
			out = append(out, text)
			changed++
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), changed
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestUnifiedSameAsBefore: ordinary diffs are what they were before the bounds (reference_test.go),
// byte for byte: small random texts, and edits here and there in files of a few hundred lines
// (the common head and tail are now found on the texts as they are).
func TestUnifiedSameAsBefore(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 3000; i++ {
		var a, b string
		if i%2 == 0 {
			a, b = randomText(r), randomText(r)
		} else {
			a, b = editedFile(r)
		}
		got, err := Unified("o", "n", a, b)
		want, rerr := refUnified("o", "n", a, b)
		if err != nil || rerr != nil || got != want {
			t.Fatalf("case %d: Unified(%q, %q) =\n%s(%v)\nbefore the bounds it was\n%s(%v)", i, a, b, got, err, want, rerr)
		}
	}
}

// editedFile is a file of up to 400 lines and the same file with a few lines changed, added or
// removed, the last line with or without its newline.
func editedFile(r *rand.Rand) (string, string) {
	n := r.Intn(400)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d\n", r.Intn(50))
	}
	edited := append([]string(nil), lines...)
	for range r.Intn(6) {
		at := r.Intn(len(edited) + 1)
		switch r.Intn(3) {
		case 0:
			edited = append(edited[:at], append([]string{"new\n"}, edited[at:]...)...)
		case 1:
			if at < len(edited) {
				edited = append(edited[:at], edited[at+1:]...)
			}
		case 2:
			if at < len(edited) {
				edited[at] = "changed\n"
			}
		}
	}
	a, b := strings.Join(lines, ""), strings.Join(edited, "")
	if r.Intn(3) == 0 {
		a = strings.TrimSuffix(a, "\n")
	}
	if r.Intn(3) == 0 {
		b = strings.TrimSuffix(b, "\n")
	}
	return a, b
}

// allocated is the bytes f allocates (the test runs alone: no parallel test allocates meanwhile).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestUnifiedBoundedCost: a Write of 4,000 lines over 4,000 other lines cost 142 MB in the search's
// trace (16 at once, 1.72 GB); now any diff stays under a fixed budget of bytes, gives up with
// ErrTooLarge past its bounds, and Replaced shows the whole new text instead. Not parallel: it
// counts the bytes the process allocates.
func TestUnifiedBoundedCost(t *testing.T) {
	const budget = 8 << 20
	lines := func(prefix string, n int) string {
		var s strings.Builder
		for i := range n {
			fmt.Fprintf(&s, "%s %d\n", prefix, i)
		}
		return s.String()
	}
	old4k, new4k := lines("old", 4000), lines("new", 4000)
	// The same line 20,000 times after 990 other lines: long snakes, 992 edits.
	xs := strings.Repeat("x\n", 20000)
	snakesOld, snakesNew := "w\n"+xs+"q\n", strings.Repeat("y\n", 990)+xs+"v\n"
	for _, c := range []struct {
		name     string
		old, new string
		tooLarge bool
	}{
		{"4000 lines over 4000 others", old4k, new4k, true},
		{"the bound's edge: 499 lines over 499 others", lines("old", 499), lines("new", 499), false},
		{"500 lines changed in 4000: 1000 edits", old4k, every(old4k, 8, -1), false},
		{"501 lines changed in 4000", old4k, every(old4k, 8, 3), true},
		{"long snakes", snakesOld, snakesNew, false},
		{"one line changed in 20,000", xs, xs[:20000] + "y\n" + xs[20002:], false},
	} {
		var d string
		var err error
		n := allocated(func() { d, err = Unified("o", "n", c.old, c.new) })
		if n > budget {
			t.Errorf("%s: allocated %d bytes, over the budget of %d", c.name, n, budget)
		}
		if c.tooLarge != (err == ErrTooLarge) || (err != nil && err != ErrTooLarge) {
			t.Errorf("%s: err = %v, want too large: %v", c.name, err, c.tooLarge)
		}
		if err == nil && !strings.HasPrefix(d, "--- o\n+++ n\n@@ ") {
			t.Errorf("%s: diff %.200q", c.name, d)
		}
	}
	// The fallback: how many lines replace how many, then every new line.
	r := Replaced("o", "n", old4k, new4k+"last")
	want := "--- o\n+++ n\n@@ replaced: 4000 lines → 4001 lines (too different for a line diff; the new text follows whole) @@\n+new 0\n+new 1\n"
	if !strings.HasPrefix(r, want) || !strings.HasSuffix(r, "+new 3999\n+last\n\\ No newline at end of file\n") || strings.Count(r, "\n+") != 1+4001 {
		t.Errorf("Replaced: %.300q ... %q", r, r[len(r)-60:])
	}
}

// every changes every nth line of s, and line extra too (unless -1).
func every(s string, nth, extra int) string {
	ls := splitLines(s)
	for i := range ls {
		if i%nth == 0 || i == extra {
			ls[i] = "changed " + ls[i]
		}
	}
	return strings.Join(ls, "")
}
