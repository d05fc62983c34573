package vt

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRandomAgainstTmux compares random streams of the sequences programs use with tmux. It runs
// only when TICKMUX_TMUX_RANDOM names how many streams to try (it takes about 50 ms each); the
// seed is printed so that a failure can be replayed with TICKMUX_TMUX_SEED.
func TestRandomAgainstTmux(t *testing.T) {
	t.Parallel()
	n, _ := strconv.Atoi(os.Getenv("TICKMUX_TMUX_RANDOM"))
	if n <= 0 {
		t.Skip("set TICKMUX_TMUX_RANDOM=N to compare N random streams with tmux")
	}
	seed, err := strconv.ParseUint(os.Getenv("TICKMUX_TMUX_SEED"), 10, 64)
	if err != nil {
		seed = rand.Uint64()
	}
	t.Logf("seed %d", seed)
	s := startTmux(t)
	r := rand.New(rand.NewPCG(seed, 1))
	failures := 0
	for i := 0; i < n && failures < 5; i++ {
		tokens := randomStream(r, 1+r.IntN(40))
		if d := compareWithTmux(s, 12, 5, []byte(strings.Join(tokens, ""))); len(d) > 0 {
			failures++
			// Drop every token the difference does not need.
			for j := 0; j < len(tokens); {
				fewer := append(append([]string(nil), tokens[:j]...), tokens[j+1:]...)
				if d2 := compareWithTmux(s, 12, 5, []byte(strings.Join(fewer, ""))); len(d2) > 0 {
					tokens, d = fewer, d2
				} else {
					j++
				}
			}
			t.Errorf("%q:\n%s", strings.Join(tokens, ""), strings.Join(d, "\n"))
		}
	}
}

func randomStream(r *rand.Rand, tokens int) []string {
	num := func() string {
		switch r.IntN(6) {
		case 0:
			return ""
		case 1:
			return "0"
		case 2:
			return strconv.Itoa(r.IntN(30))
		default:
			return strconv.Itoa(1 + r.IntN(6))
		}
	}
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	var out []string
	for i := 0; i < tokens; i++ {
		var b strings.Builder
		switch r.IntN(21) {
		case 0, 1, 2, 3:
			b.WriteString(pick("abc", "hello world", "x", "0123456789abcdef", "TT"))
		case 4:
			b.WriteString(pick("中", "文字", "😀", "ｗ", "e\u0301", "\u0301", "한"))
		case 5:
			b.WriteString(pick("\r", "\n", "\r\n", "\b", "\t", "\x1bD", "\x1bM", "\x1bE"))
		case 6, 7:
			b.WriteString("\x1b[" + num() + pick("A", "B", "C", "D", "E", "F", "G", "d", "`", "a", "e"))
		case 8:
			b.WriteString("\x1b[" + num() + ";" + num() + "H")
		case 9:
			b.WriteString("\x1b[" + num() + pick("@", "P", "X", "L", "M", "S", "T", "b", "Z"))
		case 10:
			b.WriteString("\x1b[" + pick("0", "1", "2", "") + pick("J", "K"))
		case 11:
			b.WriteString("\x1b[" + pick("0", "1", "4", "7", "31", "42", "38;5;100", "48;2;1;2;3", "") + "m")
		case 12:
			b.WriteString("\x1b[" + num() + ";" + num() + "r")
		case 13:
			b.WriteString(pick("\x1b7", "\x1b8", "\x1b[s", "\x1b[u"))
		case 14:
			b.WriteString("\x1b[" + pick("4", "?6", "?7", "?1049", "?47", "?25") + pick("h", "l"))
		case 15:
			b.WriteString(pick("\x1bH", "\x1b[g", "\x1b[3g"))
		case 16:
			b.WriteString(pick("\x1b(0", "\x1b(B", "lqk", "\x0e", "\x0f"))
		case 17:
			b.WriteString(pick("\x1b]0;title\x07", "\x1bP1$qm\x1b\\", "\x1b[38:2::1:2:3m", "\x1b[?1048h",
				"\x1b[?1048l", "\x1b[3 q", "\x1b[?69h", "\x1b#8", "\x1bc", "\x1b[!p", "\x1b[2J"))
		default:
			b.WriteString(pick("abcdefghijklmnop", "wxyz", " ", "--"))
		}
		out = append(out, b.String())
	}
	return out
}

// TestTmuxOne shows one stream (TICKMUX_TMUX_INPUT, Go-quoted) in tmux and here; for debugging.
func TestTmuxOne(t *testing.T) {
	t.Parallel()
	in := os.Getenv("TICKMUX_TMUX_INPUT")
	if in == "" {
		t.Skip("set TICKMUX_TMUX_INPUT")
	}
	input, err := strconv.Unquote(`"` + in + `"`)
	if err != nil {
		t.Fatal(err)
	}
	cols, rows := 12, 5
	if v, err := strconv.Atoi(os.Getenv("TICKMUX_TMUX_COLS")); err == nil {
		cols = v
	}
	for _, d := range compareWithTmux(startTmux(t), cols, rows, []byte(input)) {
		t.Error(d)
	}
}
