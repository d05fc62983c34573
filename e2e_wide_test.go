package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tickmux/vt"
)

// TestWideAndJoinedCharactersInTmux draws, through the real TUI in a real terminal (tmux), text
// whose width tcell and tmux measure differently (☺ with VS16, a zero-width joiner joined to a
// space before 日, skin tones, flags, Hangul jamo): every character after them must show in
// the column vt gives it, and no row may run into another.
// docs/reference.md "Terminal panes and `tickmux snap`": characters in the columns tmux gives them.
func TestWideAndJoinedCharactersInTmux(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	script := filepath.Join(r.dir, "wide.sh")
	body := "printf '\\342\\230\\272\\357\\270\\217A|end1\\n'\n" + // ☺ VS16 A
		"printf 'x\\342\\200\\215y\\necho \\346\\227\\245\\346\\234\\254\\350\\252\\236 abc|end2\\n'\n" + // x ZWJ y, 日本語
		"printf '\\360\\237\\221\\215\\360\\237\\217\\275B|\\360\\237\\207\\253\\360\\237\\207\\267C|end3\\n'\n" + // 👍🏽 B, 🇫🇷 C
		"printf '\\341\\204\\200\\341\\205\\241\\341\\206\\250D|end4\\n'\n" + // ᄀ ᅡ ᆨ D
		""
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r.start() // a shell pane
	r.waitFor("$ ")
	r.keys("sh "+script, "Enter")
	s := r.waitFor("end4")
	lines := strings.Split(s, "\n")
	find := func(marker string) string {
		for _, l := range lines {
			if strings.Contains(l, marker) {
				return l
			}
		}
		t.Fatalf("no line with %q:\n%s", marker, s)
		return ""
	}
	// The column (as tmux measures it) of a letter that follows the hard characters must be the
	// column vt gives it: nothing drawn covered it or pushed it.
	for _, want := range []struct {
		marker, letter string
		col            int
	}{
		{"end1", "A", 1},
		{"end2", "abc", 10}, // 日 is joined to the space before it: tmux holds a ZWJ until a character other than ASCII
		{"end3", "B", 4},
		{"end3", "C", 8},
		{"end4", "D", 2},
	} {
		l := find(want.marker)
		_, l, _ = strings.Cut(l, "┃") // the pane's left border
		before, _, ok := strings.Cut(l, want.letter)
		col := 0
		for _, r := range before {
			col += max(vt.RuneWidth(r), 0)
		}
		if !ok || col != want.col {
			t.Errorf("line %q: %q at column %d, want %d", l, want.letter, col, want.col)
		}
	}
}
