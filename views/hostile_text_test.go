package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// Laying out one long word is linear: a 400,000-character word wraps in one pass, exactly.
func TestWrapWordsIsExactOnAHugeWord(t *testing.T) {
	word := strings.Repeat("D", 400_000)
	lines := wrapWords("a "+word+" b", 40)
	if len(lines) != 2+400_000/40 || lines[0] != "a" || lines[len(lines)-1] != "b" {
		t.Fatalf("%d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	for _, l := range lines[1 : len(lines)-1] {
		if l != word[:40] {
			t.Fatalf("a row of the word: %q", l)
		}
	}
	if got := wrapLine(line{{word, tcell.StyleDefault}}, 40); len(got) != 10_000 {
		t.Fatalf("wrapLine: %d rows", len(got))
	}
}

// A Tick whose description or title is 400,000 characters (a valid descriptor) never freezes the
// UI: the panel shows the start of it and how much more there is, and keys are answered at once.
// (Before the fix one redraw took 40–70 s.)
func TestHugeTickTextDoesNotFreezeTheUI(t *testing.T) {
	for _, mode := range []string{"hugedescription", "hugetitle"} {
		t.Run(mode, func(t *testing.T) {
			hs := newHarness(t, 160, 50)
			in := hs.openTick(mode)
			hs.start()
			hs.waitFor("STATE")
			if mode == "hugedescription" {
				hs.waitFor("DDDD… 398000 more")
			}
			done := approve(in, 1) // a card with the huge title in it
			hs.waitFor("wants to call increment")
			for i := 0; i < 3; i++ {
				start := time.Now()
				hs.prefix()
				hs.typeText("?")
				hs.waitFor("help")
				hs.key(tcell.KeyEscape, 0, tcell.ModNone)
				hs.waitGone("Esc closes")
				// A generous bound: the point is a frozen UI, which took tens of seconds.
				d := time.Since(start)
				t.Logf("help opened and closed in %v", d)
				if d > 5*time.Second {
					t.Fatalf("the help overlay took %v to open and close", d)
				}
			}
			hs.prefix()
			hs.typeText("a")
			hs.waitFor("allow once")
			hs.typeText("n")
			<-done
		})
	}
}

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "ab…"}, {"héllo", 5, "héllo"}, {"héllo!", 5, "héll…"}, {"", 3, ""},
	} {
		if got := shorten(c.in, c.n); got != c.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
