package host

import (
	"strings"
	"testing"
)

// Combining marks stacked past two on one character become escapes: by the thousand they smear
// over the rows around them on a real terminal.
// spec: H-SEC2
func TestPrintableCapsStackedMarks(t *testing.T) {
	t.Parallel()
	got := Printable("é"+"e"+strings.Repeat("\u0301", 4), false)
	want := "é" + "e\u0301\u0301" + `\u0301\u0301`
	if got != want {
		t.Errorf("Printable = %q, want %q", got, want)
	}
	if got := Printable("tiếng Việt", false); got != "tiếng Việt" {
		t.Errorf("two marks on one letter must stay: %q", got)
	}
}
