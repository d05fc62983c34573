package vt

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// resetNotice is what a terminal's fresh screen says after it recovered from a failure.
const resetNotice = "[tickmux: this terminal was reset after an internal error]"

// vt10xPanics are sequences on which vt10x itself panics (negative counts index its rows out of
// range); the guard never hands them to it, so these tests queue them for vt10x directly, as a
// guard bug that let one through would.
var vt10xPanics = []string{"\x1b[-5@", "\x1b[-5P", "\x1b[-1@", "\x1b[-1P", "x\x1b[-2@y"}

// leak queues raw bytes for vt10x past the guard, as if the guard had let them through; vt10x
// parses them when the screen is next read. vt10x repeats an action as many times as a count
// says (the guard clamps counts), so a run of digits is cut to three: the fuzz looks for panics,
// not for vt10x's long loops.
func (t *Terminal) leak(raw []byte) {
	t.mu.Lock()
	digits := 0
	for _, b := range raw {
		if digits = digits + 1; b < '0' || b > '9' {
			digits = 0
		}
		if digits <= 3 {
			t.g.e.out = append(t.g.e.out, b)
		}
	}
	t.mu.Unlock()
}

// saysReset reports whether a screen's text shows the notice, wrapped or not.
func saysReset(text string) bool {
	return strings.Contains(strings.Join(strings.Fields(text), " "), resetNotice)
}

func (t *Terminal) resetCount() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.resets
}

// vt10x's parser also runs when a screen is read: a panic there, on any of the ways to read a
// screen, resets the terminal like one in Write (Fault says why), the reader gets the fresh
// screen with its notice, and the terminal goes on.
func TestAPanicWhileReadingResetsTheTerminal(t *testing.T) {
	t.Parallel()
	for _, read := range []struct {
		name string
		read func(*Terminal) string // the screen's text as this reader sees it, "" if none
	}{
		{"Snapshot", func(term *Terminal) string {
			var s Screen
			term.Snapshot(&s)
			return s.Text()
		}},
		{"SnapshotScrolled", func(term *Terminal) string {
			var s Screen
			term.SnapshotScrolled(&s, 2)
			return s.Text()
		}},
		{"SnapshotChanged", func(term *Terminal) string {
			var s Screen
			var r RowHashes
			term.SnapshotChanged(&s, &r, nil)
			return s.Text()
		}},
		{"Text", func(term *Terminal) string { return term.Text() }},
		{"Lines", func(term *Terminal) string {
			text, _ := term.Lines(0, 100)
			return strings.Join(text, "\n")
		}},
		{"Line", func(term *Terminal) string {
			cells, _ := term.Line(term.ScrollbackLen(), nil)
			return rowText(cells)
		}},
		{"Cursor", func(term *Terminal) string { term.Cursor(); return "" }},
	} {
		for _, raw := range vt10xPanics {
			term := NewWithOptions(80, 6, Options{Scrollback: 10})
			term.Write([]byte("before\r\n"))
			if before := read.read(term); read.name != "Cursor" && !strings.Contains(before, "before") {
				t.Fatalf("%s: the screen before: %q", read.name, before)
			}
			term.leak([]byte(raw))
			got := read.read(term)
			if term.Fault() == nil || !strings.Contains(term.Fault().Error(), "was reset") {
				t.Fatalf("%s after vt10x was handed %q: no fault recorded (%v)", read.name, raw, term.Fault())
			}
			if got != "" && !strings.Contains(got, resetNotice) {
				t.Errorf("%s after vt10x was handed %q: the reader saw %q, not the notice", read.name, raw, got)
			}
			if text := term.Text(); !strings.Contains(text, resetNotice) {
				t.Errorf("%s after vt10x was handed %q: the screen %q does not say it was reset", read.name, raw, text)
			}
			term.Write([]byte("after"))
			if text := term.Text(); !strings.Contains(text, "after") {
				t.Errorf("%s after vt10x was handed %q: the terminal did not go on: %q", read.name, raw, text)
			}
		}
	}
}

// feedHostile writes data through the terminal, then hands vt10x leaked bytes past the guard and
// reads the screen every way there is. Nothing may panic out of vt/, and whenever a read had to
// reset the terminal, the screen that read returns says so.
func feedHostile(t testing.TB, data, leaked []byte) {
	term := NewWithOptions(40, 8, Options{Scrollback: 20})
	var s Screen
	snapshot := func(step string) {
		n := term.resetCount()
		term.Snapshot(&s)
		if term.resetCount() != n && !saysReset(s.Text()) {
			t.Fatalf("%s: the terminal was reset but its screen does not say so:\n%s", step, s.Text())
		}
	}
	n := term.resetCount()
	term.Write(data)
	if term.resetCount() != n && !saysReset(term.Text()) {
		t.Fatalf("the terminal was reset while writing but its screen does not say so:\n%s", term.Text())
	}
	snapshot("after the output")
	term.leak(leaked)
	snapshot("after vt10x was handed the leaked bytes")

	// Every other reader, and the terminal going on, with the leak queued again each time.
	var r RowHashes
	for _, read := range []func(){
		func() { term.SnapshotChanged(&s, &r, nil) },
		func() { term.SnapshotScrolled(&s, 3) },
		func() { term.Cursor() },
		func() { term.Lines(0, 50) },
		func() { term.Line(2, nil) },
		func() { term.Resize(17, 4) },
		func() { term.Write(data) },
	} {
		term.leak(leaked)
		read()
	}
	snapshot("at the end")
	if len(s.Cells) != s.Cols*s.Rows {
		t.Fatalf("snapshot has %d cells for %dx%d", len(s.Cells), s.Cols, s.Rows)
	}
	term.waitReplies()
}

// FuzzHostileOutput: program output, random or hostile, and bytes that reach vt10x past the
// guard (as a bug in the guard would let through) never make a panic leave vt/; a terminal that
// had to reset says so on its screen. The seeds run in every ordinary go test; go test
// -fuzz=FuzzHostileOutput ./vt explores further.
func FuzzHostileOutput(f *testing.F) {
	for _, raw := range vt10xPanics {
		f.Add([]byte("hello\r\n\x1b[31mred"), []byte(raw))
	}
	for _, s := range []string{
		"\x1b[-5@\x1b[-5P", "\x1b[2147483647I\x1b[2147483647Z\x1b[99999999999b",
		"\x1b[?1049h\x1b[5;2r\x1b[99M", "\x1b]0;" + strings.Repeat("t", 500) + "\x1b\\", "\xe4\xb8",
	} {
		f.Add([]byte(s), []byte(s))
	}
	for _, tc := range tmuxCases[:min(len(tmuxCases), 20)] {
		f.Add([]byte(tc.input), []byte("\x1b[-1P"))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		data, leaked := make([]byte, r.IntN(200)), make([]byte, r.IntN(60))
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		for i := range leaked {
			leaked[i] = byte(r.UintN(256))
		}
		f.Add(data, leaked)
	}
	f.Fuzz(func(t *testing.T, data, leaked []byte) {
		feedHostile(t, data, leaked)
	})
}
