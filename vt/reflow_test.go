package vt

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// showResized shows input to tmux in a cols x rows pane, resizes the pane through sizes, and
// returns every line tmux keeps (scrollback then screen, trailing empty lines dropped) and the
// cursor.
func (s *tmuxServer) showResized(cols, rows int, input []byte, sizes [][2]int) (text string, cx, cy int, err error) {
	n := s.n.Add(1)
	name := "r" + strconv.FormatInt(n, 10)
	file := filepath.Join(s.dir, name)
	if err := writeFile(file, input); err != nil {
		return "", 0, 0, err
	}
	script := fmt.Sprintf("stty raw -echo; cat %s; tmux -S %s wait-for -S %s; exec sleep 600", file, s.sock, name)
	if _, err := s.tmux("new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), script); err != nil {
		return "", 0, 0, err
	}
	defer s.tmux("kill-session", "-t", name)
	if _, err := s.tmux("wait-for", name); err != nil {
		return "", 0, 0, err
	}
	if _, err := s.show(1, 1, nil); err != nil { // a round trip: tmux has read the pane's output
		return "", 0, 0, err
	}
	for _, sz := range sizes {
		if _, err := s.tmux("resize-window", "-t", name, "-x", strconv.Itoa(sz[0]), "-y", strconv.Itoa(sz[1])); err != nil {
			return "", 0, 0, err
		}
	}
	out, err := s.tmux("capture-pane", "-p", "-S", "-", "-t", name)
	if err != nil {
		return "", 0, 0, err
	}
	pos, err := s.tmux("display", "-p", "-t", name, "#{cursor_x} #{cursor_y}")
	if err != nil {
		return "", 0, 0, err
	}
	fmt.Sscan(pos, &cx, &cy)
	return trimLines(out), cx, cy, nil
}

// allText is every line a terminal keeps, as capture-pane -S - shows them.
func allText(t *Terminal) string {
	text, _ := t.Lines(0, t.ScrollbackLen()+1000)
	return trimLines(strings.Join(text, "\n"))
}

// reflowCases are outputs whose lines must rewrap on resize as they do in tmux.
var reflowCases = []struct {
	name  string
	cols  int
	rows  int
	input string
	sizes [][2]int
}{
	{"narrow then widen (issue 11)", 40, 6, "$ x\r\n" + strings.Repeat("A", 40) + strings.Repeat("B", 40) + "\r\n$ ", [][2]int{{16, 6}, {40, 6}}},
	{"narrow", 20, 5, "first line\r\n" + strings.Repeat("0123456789", 3) + "\r\nlast", [][2]int{{7, 5}}},
	{"widen joins", 8, 5, strings.Repeat("abcdefgh", 4) + "\r\nz", [][2]int{{30, 5}}},
	{"scrollback rewraps", 10, 3, "1\r\n" + strings.Repeat("x", 25) + "\r\n2\r\n3\r\n4\r\n5", [][2]int{{5, 3}, {20, 3}}},
	{"shorter and narrower", 20, 8, "a\r\nb\r\n" + strings.Repeat("c", 30) + "\r\nd", [][2]int{{9, 4}, {20, 8}}},
	{"cursor mid line", 20, 5, strings.Repeat("m", 30) + "\x1b[2;3H", [][2]int{{6, 5}, {25, 5}}},
	{"pending cursor", 10, 4, strings.Repeat("p", 10), [][2]int{{4, 4}, {10, 4}}},
	{"wide characters", 9, 4, "ab中文字符测试x\r\nend", [][2]int{{5, 4}, {9, 4}, {12, 4}}},
	{"taller", 10, 3, "1\r\n2\r\n3\r\n4\r\n5\r\n" + strings.Repeat("w", 15), [][2]int{{10, 6}, {6, 6}}},
}

func TestReflowMatchesTmux(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	for _, tc := range reflowCases {
		t.Run(tc.name, func(t *testing.T) {
			want, cx, cy, err := s.showResized(tc.cols, tc.rows, []byte(tc.input), tc.sizes)
			if err != nil {
				t.Fatal(err)
			}
			term := New(tc.cols, tc.rows, nil)
			term.Write([]byte(tc.input))
			for _, sz := range tc.sizes {
				term.Resize(sz[0], sz[1])
			}
			if got := allText(term); got != want {
				t.Errorf("%q resized %v:\n tmux:\n%s\n ours:\n%s", tc.input, tc.sizes, indent(want), indent(got))
			}
			last := tc.sizes[len(tc.sizes)-1]
			if c := term.Cursor(); c.X != min(cx, last[0]-1) || c.Y != cy {
				t.Errorf("cursor: tmux (%d,%d), ours (%d,%d)", min(cx, last[0]-1), cy, c.X, c.Y)
			}
		})
	}
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o600) }
