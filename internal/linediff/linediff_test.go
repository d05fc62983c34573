package linediff

import (
	"fmt"
	"math/rand"
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
