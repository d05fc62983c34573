package views

import (
	"strconv"
	"strings"
	"testing"
)

// The : prompt's hint shows whole at any width (it ended "Esc canc" even at 200 columns): on one
// row where the box can be that wide, else wrapped between its items (issue 42 item 7).
func TestPromptHintIsWhole(t *testing.T) {
	for _, w := range []int{200, 80, 50} {
		t.Run(strconv.Itoa(w), func(t *testing.T) {
			hs := newHarness(t, w, 24)
			hs.openTick("plain")
			hs.start()
			hs.prefix()
			hs.typeText(":")
			s := hs.waitFor("command:")
			for _, item := range []string{"Enter open as a Tick", "!cmd a plain program", "↑↓ history", "Tab complete", "S-Tab field", "Esc cancel"} {
				if !strings.Contains(s, item) {
					t.Fatalf("the hint lacks %q:\n%s", item, s)
				}
			}
			if w == 200 && !strings.Contains(s, "S-Tab field · Esc cancel") {
				t.Fatalf("at 200 columns the hint is not on one row:\n%s", s)
			}
		})
	}
}
