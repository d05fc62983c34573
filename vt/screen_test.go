package vt

import (
	"strings"
	"testing"
)

// picture renders a terminal as an ASCII picture: one line per row between bars, wide
// characters once, the cursor as nothing (see cursorAt).
func picture(t *Terminal) string {
	var s Screen
	t.Snapshot(&s)
	var b strings.Builder
	for y := 0; y < s.Rows; y++ {
		b.WriteString("|")
		for _, c := range s.Row(y) {
			if c.Width == 0 {
				continue
			}
			b.WriteRune(c.Rune)
			for _, m := range c.Comb {
				b.WriteRune(m)
			}
		}
		b.WriteString("|\n")
	}
	return b.String()
}

// want trims a raw-string picture's first newline and the indentation of its lines.
func want(s string) string {
	lines := strings.Split(strings.TrimPrefix(s, "\n"), "\n")
	var b strings.Builder
	for _, l := range lines {
		l = strings.TrimLeft(l, " \t")
		if l == "" {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func run(cols, rows int, input string) *Terminal {
	t := New(cols, rows, nil)
	t.Write([]byte(input))
	return t
}

func TestScreens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		cols, rows int
		input      string
		want       string
	}{
		{"plain text wraps and scrolls", 5, 3, "abcdefgh\r\nij\r\nkl", `
			|fgh  |
			|ij   |
			|kl   |`},
		{"wide characters take two cells", 6, 2, "a中b\r\n中中中", `
			|a中b  |
			|中中中|`},
		{"a wide character wraps whole", 5, 2, "abcd中", `
			|abcd |
			|中   |`},
		{"marks join their base", 6, 1, "e\u0301a\u0308中\u0301", "|e\u0301a\u0308中\u0301  |"},
		{"ASCII over a right half in column 1 leaves the left half, as in tmux", 6, 1, "中中\x1b[2GX\x1b[4GY", `
			|中X Y  |`},
		{"ASCII over a left half blanks the right half", 6, 1, "中中\rX", `
			|X 中  |`},
		{"a wide character over a right half blanks the left half", 6, 1, "中中\x1b[2G字", `
			| 字   |`},
		{"insert mode", 6, 1, "abc\r\x1b[4hXY\x1b[4l", `
			|XYabc |`},
		{"REP repeats the last character", 8, 1, "ab\x1b[3b", `
			|abbbb   |`},
		{"a minus sign makes a sequence malformed", 6, 1, "abcdef\x1b[3G\x1b[-5@\x1b[-5P", `
			|abcdef|`},
		{"huge counts are clamped", 6, 1, "abcdef\x1b[3G\x1b[2147483647P\x1b[2147483647I\x1b[2147483647ZX", `
			|Xb    |`},
		{"zero counts mean one", 6, 1, "abcdef\x1b[2G\x1b[0X\x1b[0@", `
			|a  cde|`},
		{"ED 1 on row 1 clears row 0", 4, 3, "aaaa\r\nbbbb\r\ncccc\x1b[2;2H\x1b[1J", `
			|    |
			|  bb|
			|cccc|`},
		{"DEC graphics", 5, 1, "\x1b(0lqqk\x1b(Bq", `
			|┌──┐q|`},
		{"prefixed m does not underline", 3, 1, "\x1b[?4mab\x1b[>4;1mc", `
			|abc|`},
		{"long CSI does not leak", 4, 1, "\x1b[" + strings.Repeat("1;", 300) + "mok", `
			|ok  |`},
		{"split UTF-8", 4, 1, "\xe4\xb8", `
			|    |`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			term := run(tc.cols, tc.rows, tc.input)
			if got, w := picture(term), want(tc.want); got != w {
				t.Errorf("input %q\ngot:\n%swant:\n%s", tc.input, got, w)
			}
		})
	}
}

func TestSplitUTF8AcrossWrites(t *testing.T) {
	t.Parallel()
	term := New(4, 1, nil)
	term.Write([]byte("\xe4\xb8"))
	term.Write([]byte("\xad!"))
	if got := term.Text(); got != "中!" {
		t.Fatalf("got %q", got)
	}
}
