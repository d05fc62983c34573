package vt

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// feedChecked writes data in chunks cut at the given points (with a resize between some of
// them) and fails on any recovered panic or broken invariant.
func feedChecked(t testing.TB, data []byte, cuts []byte) {
	term := NewWithOptions(13, 7, Options{Scrollback: 20})
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if i < len(cuts) {
			n = min(n, int(cuts[i])+1)
		}
		term.Write(data[:n])
		data = data[n:]
		if i < len(cuts) && cuts[i]%17 == 0 {
			term.Resize(1+int(cuts[i])%20, 1+int(cuts[i])%9)
		}
	}
	if err := term.Fault(); err != nil {
		t.Fatalf("the terminal had to recover: %v", err)
	}
	var s Screen
	term.SnapshotScrolled(&s, 5)
	if len(s.Cells) != s.Cols*s.Rows {
		t.Fatalf("snapshot has %d cells for %dx%d", len(s.Cells), s.Cols, s.Rows)
	}
	if text := term.Text(); !utf8.ValidString(text) {
		t.Fatalf("text is not UTF-8: %q", text)
	}
	term.waitReplies()
}

// FuzzWrite feeds arbitrary bytes, cut into arbitrary writes, through a terminal: it must never
// panic (even a recovered one fails), hang or break its invariants.
func FuzzWrite(f *testing.F) {
	for _, tc := range tmuxCases {
		f.Add([]byte(tc.input), []byte{3, 200, 17})
	}
	for _, s := range []string{
		"\x1b[-5@\x1b[-5P", "\x1b[2147483647I\x1b[2147483647Z\x1b[99999999999b",
		"\x1b[?1049h\x1b[?1049h\x1b[?1049l\x1b[?1049l", "\x1b]52;c;aGVsbG8=\x07",
		"\x1b]0;" + strings.Repeat("t", 5000) + "\x1b\\", "\x1bP" + strings.Repeat("q", 3000),
		"\xe4\xb8", "\x1b[38:2::1:2:3:4:5:6m\x1b[58;2;1m", "a\u0301\u0301\u0301\u0301\u200d中",
	} {
		f.Add([]byte(s), []byte{1, 0, 255})
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		feedChecked(t, data, cuts)
	})
}

// TestRandomBytes runs a few thousand random streams of bytes and sequences through a terminal
// on every test run, so that CI exercises what the fuzz target explores.
func TestRandomBytes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		var data []byte
		if i%2 == 0 {
			data = make([]byte, r.IntN(300))
			for j := range data {
				data[j] = byte(r.UintN(256))
			}
		} else {
			data = []byte(strings.Join(randomStream(r, 1+r.IntN(60)), ""))
		}
		cuts := make([]byte, r.IntN(8))
		for j := range cuts {
			cuts[j] = byte(r.UintN(256))
		}
		feedChecked(t, data, cuts)
	}
}
