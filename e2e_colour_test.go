package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// rgbSGR is an SGR sequence that sets an RGB foreground or background (not the typed text of one).
var rgbSGR = regexp.MustCompile(`\x1b\[[0-9;:]*[34]8[;:]2[;:]`)

// Through a real terminal without true colour (TERM=xterm-256color, no COLORTERM, in tmux): an RGB
// colour a program in a pane prints, and the theme's RGB chrome, reach the terminal as the
// palette colours tcell would fit them to (views/palettefit.go fits them once for the process,
// and every attach draws with them). tmux keeps what it was sent: capture-pane -e shows it.
func TestEndToEndPaletteColours(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "e2e", "env TERM=xterm-256color COLORTERM= "+r.self)
	r.waitFor("C-b ? help")
	r.typeLine(`printf '\033[38;2;255;135;0mORANGE-%s\033[0m\n' 1`, "ORANGE-1")
	styled := func() string {
		out, _ := exec.Command("tmux", "-S", r.tmuxSoc, "capture-pane", "-e", "-p", "-t", "e2e").CombinedOutput()
		return string(out)
	}
	s := styled()
	// RGB (255,135,0) is palette colour 208; tmux writes a cell's colours before its text.
	i := strings.Index(s, "ORANGE-1")
	if i < 0 || !strings.Contains(s[max(0, i-40):i], "38;5;208") {
		t.Fatalf("the pane's RGB orange did not reach the terminal as palette colour 208:\n%q", s[max(0, i-80):max(0, i)+10])
	}
	if m := rgbSGR.FindString(s); m != "" {
		t.Fatalf("an RGB colour (%q) reached a terminal without true colour:\n%q", m, s)
	}
	// The status bar: the default theme's #262626 background is palette colour 235.
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if status := lines[len(lines)-1]; !strings.Contains(status, "48;5;235") {
		t.Fatalf("the status bar's background is not palette colour 235: %q", status)
	}

	// A second view attaches (a new screen for it in the server): the same colours.
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "second", "env TERM=xterm-256color COLORTERM= "+r.self+" attach")
	r.waitIn("second", "ORANGE-1")
	out, _ := exec.Command("tmux", "-S", r.tmuxSoc, "capture-pane", "-e", "-p", "-t", "second").CombinedOutput()
	s2 := string(out)
	if j := strings.Index(s2, "ORANGE-1"); j < 0 || !strings.Contains(s2[max(0, j-40):j], "38;5;208") {
		t.Fatalf("the second view did not show the orange as palette colour 208:\n%q", s2[max(0, j-80):max(0, j)+10])
	}
}
