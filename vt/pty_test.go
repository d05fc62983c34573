package vt_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tickmux/host"
	"tickmux/vt"
)

// These tests run real programs on real PTYs (through the host's launcher) and read the screen
// the terminal made of their output.

// settled waits until the program's output is over and returns the terminal.
func settled(t *testing.T, cols, rows int, argv ...string) *vt.Terminal {
	t.Helper()
	p, err := host.Launch(host.LaunchSpec{Argv: argv, Cols: cols, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	select {
	case <-p.OutputDone():
	case <-time.After(20 * time.Second):
		t.Fatalf("%v did not finish: screen:\n%s", argv, p.Terminal().Text())
	}
	return p.Terminal()
}

func TestRealProgramScrollsIntoScrollback(t *testing.T) {
	t.Parallel()
	term := settled(t, 20, 5, "seq", "1", "60")
	if got, want := term.Text(), "57\n58\n59\n60"; got != want {
		t.Errorf("screen %q, want %q", got, want)
	}
	text, _ := term.Lines(0, 3)
	if strings.Join(text, ",") != "1,2,3" || term.ScrollbackLen() != 56 {
		t.Errorf("scrollback starts %q and holds %d lines, want 1,2,3 and 56", text, term.ScrollbackLen())
	}
}

func TestRealProgramWideCharactersAndColours(t *testing.T) {
	t.Parallel()
	term := settled(t, 12, 3, "printf", `\033[1;31m中文\033[m|e\314\201|\360\237\230\200|abcdefgh`)
	if got, want := term.Text(), "中文|é|😀|ab\ncdefgh"; got != strings.ReplaceAll(want, "é", "e\u0301") {
		t.Errorf("screen %q", got)
	}
	var s vt.Screen
	term.Snapshot(&s)
	if c := s.Row(0)[0]; c.Rune != '中' || c.Width != 2 || c.Style.FG != vt.PaletteColor(1) || c.Style.Attrs != vt.AttrBold {
		t.Errorf("first cell %+v, want a bold red wide 中", c)
	}
}

// TestRealProgramGetsReplies checks that a cursor position report reaches the program through
// the PTY.
func TestRealProgramGetsReplies(t *testing.T) {
	t.Parallel()
	term := settled(t, 40, 3, "sh", "-c", `stty raw -echo; printf 'ab\033[6n'; r=$(dd bs=1 count=6 2>/dev/null | od -An -c | tr -d ' '); printf '\r\n%s' "$r"`)
	if got := term.Text(); !strings.Contains(got, `033[1;3R`) {
		t.Errorf("screen %q does not show the report ESC [1;3R", got)
	}
}

// A real program printing hostile and random bytes on a real PTY: vt10x's known panics (negative
// counts), huge counts, unterminated strings, and 64 KiB of random bytes. The terminal never
// has to recover (the guard hands vt10x none of it), and the program's last line, after a
// cancel and a reset, is on the screen.
func TestRealProgramHostileOutput(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	out := []byte("\x1b[-5@\x1b[-5P\x1b[-1@\x1b[2147483647I\x1b[99999999999b\x1b[5;2r\x1b[99M\x1bP" +
		strings.Repeat("q", 3000) + "\x1b]0;" + strings.Repeat("t", 5000))
	for range 64 << 10 {
		out = append(out, byte(r.UintN(256)))
	}
	out = append(out, "\x18\x1b\\\x1bcstill here"...)
	file := filepath.Join(t.TempDir(), "hostile")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	term := settled(t, 40, 6, "sh", "-c", `stty -echo; cat "$0"`, file) // the terminal's answers are not echoed into the marker
	if err := term.Fault(); err != nil {
		t.Fatalf("the terminal had to recover: %v", err)
	}
	if got := term.Text(); !strings.Contains(got, "still here") {
		t.Errorf("the screen after the hostile output: %q", got)
	}
}
