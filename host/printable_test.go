package host

import (
	"strings"
	"testing"
)

// spec: H-SEC2
func TestPrintableEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		layout bool
		want   string
	}{
		{"plain text", false, "plain text"},
		{"\x1b]0;owned\x07title", false, `\x1b]0;owned\x07title`},
		{"\x1b[2J\x1b[31mred", false, `\x1b[2J\x1b[31mred`},
		{"a\nb\tc\r", false, `a\x0ab\x09c\x0d`},
		{"a\nb\tc\r", true, "a\nb\tc\\x0d"},
		{"c1 \u009b31m", false, `c1 \x9b31m`},
		{"bad \xff utf8", false, "bad \uFFFD utf8"},
		{"rtl \u202e override", false, `rtl \u202e override`},
		{"日本語 ok é", false, "日本語 ok é"},
		{"del\x7f", false, `del\x7f`},
		{"zero\u200bwidth\u200djoiner\ufeff", false, `zero\u200bwidth\u200djoiner\ufeff`},
		{"tag\U000E0041\U000E007F", false, `tag\U000e0041\U000e007f`},
		{"vs\ufe0f line\u2028", false, `vs\ufe0f line\u2028`},
	}
	for _, c := range cases {
		if got := Printable(c.in, c.layout); got != c.want {
			t.Errorf("Printable(%q, %v) = %q, want %q", c.in, c.layout, got, c.want)
		}
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b[31m\u009b\n", true)
	f.Fuzz(func(t *testing.T, s string, layout bool) {
		out := Printable(s, layout)
		for _, r := range out {
			if Invisible(r) {
				t.Fatalf("invisible character %U survived in %q", r, out)
			}
			if (r < 0x20 && !(layout && (r == '\n' || r == '\t'))) || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("control character %U survived in %q", r, out)
			}
		}
	})
}

func TestCapSaysHowMuchMore(t *testing.T) {
	t.Parallel()
	if got := Cap(strings.Repeat("D", 400_000), 2000); got != strings.Repeat("D", 2000)+"… 398000 more" {
		t.Errorf("Cap: %d bytes, ends %q", len(got), got[len(got)-20:])
	}
	if got := Cap("héllo", 5); got != "héllo" {
		t.Errorf("Cap of a short text: %q", got)
	}
	if got := Cap("héllo wörld", 5); got != "héllo… 6 more" {
		t.Errorf("Cap counts characters: %q", got)
	}
}
