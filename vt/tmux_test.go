package vt

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// These tests show the same bytes to tmux and to a Terminal and compare the screens. The
// program in tmux's pane puts its terminal in raw mode first, so both see the bytes unchanged.

// envNoTmux names the variable that lets a machine without tmux skip the comparisons.
const envNoTmux = "TICKMUX_NO_TMUX"

type tmuxServer struct {
	t    testing.TB
	sock string
	dir  string
	n    atomic.Int64
}

func startTmux(t testing.TB) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv(envNoTmux) != "" {
			t.Skipf("tmux not installed and %s is set", envNoTmux)
		}
		t.Fatalf("these tests compare with tmux, which is not installed: run ./scripts/install-test-deps, or set %s=1 to skip them", envNoTmux)
	}
	dir := t.TempDir()
	s := &tmuxServer{t: t, sock: filepath.Join(dir, "sock"), dir: dir}
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	// A session that lives as long as the server: tmux exits with its last session.
	if _, err := s.tmux("new-session", "-d", "-s", "keep", "exec sleep 3600"); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *tmuxServer) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// tmuxScreen is what tmux shows after a program wrote input.
type tmuxScreen struct {
	text   string // capture-pane -p, trailing empty lines dropped
	ansi   string // capture-pane -p -e
	cx, cy int
}

func (s *tmuxServer) show(cols, rows int, input []byte) (tmuxScreen, error) {
	n := s.n.Add(1)
	name := "s" + strconv.FormatInt(n, 10)
	file := filepath.Join(s.dir, name)
	if err := os.WriteFile(file, input, 0o600); err != nil {
		return tmuxScreen{}, err
	}
	script := fmt.Sprintf("stty raw -echo; cat %s; tmux -S %s wait-for -S %s; exec sleep 600", file, s.sock, name)
	if _, err := s.tmux("new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), script); err != nil {
		return tmuxScreen{}, err
	}
	defer s.tmux("kill-session", "-t", name)
	if _, err := s.tmux("wait-for", name); err != nil {
		return tmuxScreen{}, err
	}
	// The signal can overtake output tmux has not read from the PTY yet: capture until two
	// captures agree (a hang guard bounds it; it is not a timing assertion).
	var ansi string
	for i := 0; i < 50; i++ {
		next, err := s.tmux("capture-pane", "-p", "-e", "-t", name)
		if err != nil {
			return tmuxScreen{}, err
		}
		if next == ansi {
			break
		}
		ansi = next
		time.Sleep(20 * time.Millisecond)
	}
	text, err := s.tmux("capture-pane", "-p", "-t", name)
	if err != nil {
		return tmuxScreen{}, err
	}
	pos, err := s.tmux("display", "-p", "-t", name, "#{cursor_x} #{cursor_y}")
	if err != nil {
		return tmuxScreen{}, err
	}
	var sc tmuxScreen
	fmt.Sscan(pos, &sc.cx, &sc.cy)
	sc.text = trimLines(visibleText(ansi))
	sc.ansi = ansi
	_ = text
	return sc, nil
}

// visibleText is the text a person sees in capture-pane -e output: capture-pane -p shows
// line-drawing characters as the ASCII that selects them, -e marks them with SO and SI.
func visibleText(ansi string) string {
	var b strings.Builder
	graphics := false
	for i := 0; i < len(ansi); i++ {
		c := ansi[i]
		switch {
		case c == 0x1b && i+1 < len(ansi) && ansi[i+1] == '[':
			j := i + 2
			for j < len(ansi) && (ansi[j] < 0x40 || ansi[j] > 0x7e) {
				j++
			}
			i = j
		case c == 0x0e:
			graphics = true
		case c == 0x0f:
			graphics = false
		case graphics && c < 0x7f:
			b.WriteRune(decGraphics(rune(c)))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// stylesOf reads tmux's capture-pane -e output back into cells, through a Terminal.
func stylesOf(cols, rows int, ansi string) *Screen {
	t := New(cols+1, rows, nil)
	t.Write([]byte("\x1b)0" + strings.ReplaceAll(strings.TrimRight(ansi, "\n"), "\n", "\r\n")))
	var s Screen
	t.Snapshot(&s)
	return &s
}

// compareWithTmux reports every difference between tmux and a Terminal for input.
func compareWithTmux(s *tmuxServer, cols, rows int, input []byte) []string {
	ts, err := s.show(cols, rows, input)
	if err != nil {
		return []string{err.Error()}
	}
	term := New(cols, rows, nil)
	term.Write(input)
	var sc Screen
	term.Snapshot(&sc)
	var diffs []string
	got := sc.Text()
	if got != ts.text {
		diffs = append(diffs, fmt.Sprintf("text differs\n tmux:\n%s\n ours:\n%s", indent(ts.text), indent(got)))
		return diffs
	}
	tcx := min(ts.cx, cols-1)
	if sc.Cursor.X != tcx || sc.Cursor.Y != ts.cy {
		diffs = append(diffs, fmt.Sprintf("cursor: tmux (%d,%d), ours (%d,%d)", tcx, ts.cy, sc.Cursor.X, sc.Cursor.Y))
	}
	// Compare the styles of the characters tmux printed, in order: tmux -e output leaves out
	// padding cells and ends a line at its last character.
	theirs := stylesOf(cols, rows, ts.ansi)
	for y := 0; y < rows; y++ {
		tr, or := printed(theirs.Row(y)), printed(sc.Row(y))
		for i := range min(len(tr), len(or)) {
			if tr[i] != or[i] {
				diffs = append(diffs, fmt.Sprintf("style of character %d on row %d (%q): tmux %+v, ours %+v", i, y, string(or[i].r), tr[i].st, or[i].st))
				break
			}
		}
	}
	return diffs
}

type styledRune struct {
	r  rune
	st Style
}

// printed is the characters of a row other than trailing default blanks, with their styles.
func printed(row []Cell) []styledRune {
	var out []styledRune
	for _, c := range row {
		if c.Width != 0 {
			out = append(out, styledRune{c.Rune, c.Style})
		}
	}
	for len(out) > 0 && out[len(out)-1] == (styledRune{' ', Style{}}) {
		out = out[:len(out)-1]
	}
	return out
}

func indent(s string) string {
	return "  |" + strings.ReplaceAll(s, "\n", "|\n  |") + "|"
}

// tmuxCases are byte streams whose screens must match tmux's exactly.
var tmuxCases = []struct {
	name  string
	input string
}{
	{"wrap and scroll", "abcdefghijklmnopqrstuvwxyz\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6\r\nend"},
	{"pending wrap survives LF", "abcdefghijklmnopqrst\nX"},
	{"pending wrap survives IND", "abcdefghijklmnopqrst\x1bDX"},
	{"CUU from pending", "abcdefghijklmnopqrst\x1b[AX"},
	{"CUB from pending", "\n\nabcdefghijklmnopqrst\x1b[DX"},
	{"CUF from pending", "abcdefghijklmnopqrst\x1b[CX"},
	{"BS from pending", "abcdefghijklmnopqrst\bX"},
	{"BS over a wrap", "abcdefghijklmnopqrstuv\b\b\b\bXY"},
	{"HT from pending", "abcdefghijklmnopqrst\tX"},
	{"no autowrap", "\x1b[?7labcdefghijklmnopqrstuvwxyz\x1b[?7h"},
	{"DECSC keeps no pending wrap", "abcdefghijklmnopqrst\x1b7\r\n\x1b8X"},
	{"RI at top", "abcdefghijklmnopqrst\x1bMY"},
	{"tabs", "a\tb\tc\r\n\x1b[3g\x1b[5G\x1bH\ra\tb\tc\x1b[2Z!\x1b[5IZ"},
	{"CJK", "中文字符テスト한국어\r\nab中cd\r\n\x1b[19G中x"},
	{"CJK at the last column", "abcdefghijklmnopqrs中X"},
	{"CJK over CJK", "中中中\x1b[3GX\x1b[1;5H\x1b[1P\r\n1234"},
	{"emoji", "😀 👍🏽 ❤️ 🇫🇷 a\u200db"},
	{"VS16", "\u263a\ufe0fA \u2764\ufe0fB \u2601\ufe0f\u2601C 1\ufe0f\u20e3D"},
	{"ZWJ sequences", "\U0001F468\u200d\U0001F469\u200d\U0001F467z \U0001F3F3\ufe0f\u200d\U0001F308y \U0001F469\u200d\U0001F4BBx"},
	{"skin tones", "\U0001F44D\U0001F3FDa \U0001F44B\U0001F3FFb \U0001F3FDc"},
	{"flags", "\U0001F1EB\U0001F1F7a \U0001F1E9\U0001F1EA\U0001F1EFb \U0001F1FAc"},
	{"Hangul jamo", "\u1100\u1161\u11a8k \u1112\u1161\u11ab\u1100\u1173\u11af l \u1161m"},
	{"ZWJ held past ASCII", "x\u200dy\r\necho \u65e5\u672c\u8a9e abc\r\n"},
	{"marks", "e\u0301 a\u0308 \u0915\u094d\u0937 n\u0303\u0303 |\u0301"},
	{"colours 16", "\x1b[31mred\x1b[42mgreen\x1b[1;33mbold\x1b[0m \x1b[91;104mbright\x1b[m"},
	{"colours 256 and rgb", "\x1b[38;5;196mA\x1b[48;5;21mB\x1b[38;2;0;0;1mC\x1b[48;2;10;20;30mD\x1b[m"},
	{"colon colours", "\x1b[38:2::255:128:0mA\x1b[38:5:99mB\x1b[4:3mC\x1b[m"},
	{"attributes", "\x1b[1mb\x1b[2md\x1b[3mi\x1b[4mu\x1b[5mk\x1b[7mr\x1b[8mh\x1b[9ms\x1b[0m."},
	{"erase keeps only the background", "\x1b[4;31;44mabc\x1b[K\r\n\x1b[2Jx"},
	{"BCE on scroll", "\x1b[44m1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\x1b[m"},
	{"scroll region", "\x1b[2;4r\x1b[2Ha\nb\nc\nd\ne\x1b[r\x1b[6Hz"},
	{"scroll region SU SD", "1\r\n2\r\n3\r\n4\r\n5\r\n6\x1b[2;5r\x1b[2S\x1b[1T\x1b[r"},
	{"origin mode", "\x1b[3;5r\x1b[?6h\x1b[1;1Ho\x1b[10;1Hp\x1b[?6l\x1b[r"},
	{"insert delete lines", "1\r\n2\r\n3\r\n4\r\n5\x1b[2H\x1b[2L\x1b[5H\x1b[M\x1b[1;1H\x1b[3M"},
	{"insert delete chars", "abcdefghij\x1b[3G\x1b[2@XY\x1b[8G\x1b[3P\x1b[1G\x1b[2X"},
	{"insert mode", "abcdef\r\x1b[4hXY\x1b[4lZ"},
	{"REP", "ab\x1b[5b\r\n\x1b[31m-\x1b[18b"},
	{"ED and EL", "aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H\x1b[1K\x1b[3;2H\x1b[0J\x1b[1;2H\x1b[1J"},
	{"alternate screen", "main\x1b[?1049halt\x1b[?1049l!"},
	{"DEC graphics", "\x1b(0lqqk\x1b(B \x1b)0\x0eqx\x0fq"},
	{"prefixed sequences", "\x1b[?4ma\x1b[>4;1mb\x1b[?u\x1b[>1uc\x1b[?1001sd\x1b[?5W"},
	{"invalid UTF-8", "a\xffb\xc3c\xe4\xb8d\xc2\x85e"},
	{"DECALN", "\x1b[2;3r\x1b#8x"},
	{"CNL CPL VPA HPA", "\x1b[3Ea\x1b[Fb\x1b[5dc\x1b[7`d\x1b[0Ee"},
}

func TestMatchesTmux(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	const cols, rows = 20, 6
	for _, tc := range tmuxCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range compareWithTmux(s, cols, rows, []byte(tc.input)) {
				t.Errorf("%q: %s", tc.input, d)
			}
		})
	}
}

var _ = bytes.Equal
