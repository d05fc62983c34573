package main

// End-to-end tests of issue 42's items about what the screen shows (9, 10, 11, 20), through tmux
// as a person sees them: colours read back with capture-pane -e.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fwCell is one cell of a captured screen: its text and the colours tmux holds for it, written
// as SGR parameters ("31", "38;5;208", "48;2;1;2;3"; "" for the terminal's own).
type fwCell struct {
	ch      string
	fg, bg  string
	reverse bool
}

// fwCells reads session's screen with its colours (capture-pane -e), one row of cells per line.
// Wide characters take one cell here: the tests look for ASCII text.
func (r *tmuxRig) fwCells(session string) [][]fwCell {
	r.t.Helper()
	out, _ := exec.Command("tmux", "-S", r.tmuxSoc, "capture-pane", "-e", "-p", "-t", session).CombinedOutput()
	var rows [][]fwCell
	for _, text := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		var row []fwCell
		cur := fwCell{}
		for len(text) > 0 {
			if strings.HasPrefix(text, "\x1b[") {
				end := strings.IndexByte(text, 'm')
				if end < 0 {
					break
				}
				cur = fwSGR(cur, text[2:end])
				text = text[end+1:]
				continue
			}
			r := []rune(text)[0]
			c := cur
			c.ch = string(r)
			row = append(row, c)
			text = text[len(string(r)):]
		}
		rows = append(rows, row)
	}
	return rows
}

// fwSGR applies one SGR sequence's parameters to the current style.
func fwSGR(cur fwCell, params string) fwCell {
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	if len(ps) == 0 {
		return fwCell{}
	}
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			cur = fwCell{}
		case n == 7:
			cur.reverse = true
		case n == 27:
			cur.reverse = false
		case n >= 30 && n <= 37, n >= 90 && n <= 97:
			cur.fg = ps[i]
		case n == 39:
			cur.fg = ""
		case n >= 40 && n <= 47, n >= 100 && n <= 107:
			cur.bg = ps[i]
		case n == 49:
			cur.bg = ""
		case n == 38 || n == 48:
			take := 3 // 38;5;N
			if i+1 < len(ps) && ps[i+1] == "2" {
				take = 5 // 38;2;R;G;B
			}
			v := strings.Join(ps[i:min(len(ps), i+take)], ";")
			if n == 38 {
				cur.fg = v
			} else {
				cur.bg = v
			}
			i += take - 1
		}
	}
	return cur
}

// fwFind is the cells of the first place text shows on the screen, nil when it does not.
func fwFind(rows [][]fwCell, text string) []fwCell {
	y, x, ok := fwFindAt(rows, text)
	if !ok {
		return nil
	}
	return rows[y][x : x+len([]rune(text))]
}

// fwFindAt is where text first shows on the screen: its row and column.
func fwFindAt(rows [][]fwCell, text string) (y, x int, ok bool) {
	want := []rune(text)
	for y, row := range rows {
		for x := 0; x+len(want) <= len(row); x++ {
			ok := true
			for j, r := range want {
				if row[x+j].ch != string(r) {
					ok = false
					break
				}
			}
			if ok {
				return y, x, true
			}
		}
	}
	return 0, 0, false
}

// fwWriteConfig writes the rig's config file (XDG_CONFIG_HOME is the rig's directory).
func (r *tmuxRig) fwWriteConfig(text string) {
	r.t.Helper()
	dir := filepath.Join(r.dir, "tickmux")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Issue 42 item 11: with theme = "light" (as the README shows), tickmux draws no colour on the
// terminal's own background, which may be dark: the focused pane's bold black title, the
// borders, the panel and the status bar are on the theme's light background. Through a
// 256-colour terminal in tmux.
func TestEndToEndLightThemeSetsItsBackground(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.fwWriteConfig("theme = \"light\"\n")
	r.tmux("new-session", "-d", "-x", "160", "-y", "40", "-s", "e2e", "env TERM=xterm-256color COLORTERM= "+r.self)
	r.waitFor("C-b ? help")
	r.typeLine("echo light-$((6*7))", "light-42")
	rows := r.fwCells("e2e")
	// The focused title, the border, a panel line and the status bar: each in a colour on a
	// colour, not on the terminal's background. (The side panel's own frame and title are
	// tview's Box, whose background sidepanel.go sets to the terminal's: not checked here.)
	for _, what := range []string{"shell:1 sh", "┏━", "/bin/sh  ready", "C-b ? help"} {
		cells := fwFind(rows, what)
		if cells == nil {
			t.Fatalf("%q is not on the screen:\n%s", what, r.screen())
		}
		for _, c := range cells {
			if c.fg == "" || c.bg == "" || c.fg == c.bg {
				t.Fatalf("%q is drawn in %q on %q: a colour on the terminal's own background, which may be dark or light\n%s",
					what, c.fg, c.bg, r.screen())
			}
		}
	}
}

// Issue 42 item 10: NO_COLOR is about tickmux's own drawing. A program's colours in a pane reach
// the terminal as the program wrote them: red text stays red (not reverse video), a blue
// background stays blue, ls --color's names keep their colour; tickmux's status bar is still
// drawn without colour (the monochrome theme: reverse video).
//
// The fix is in server/viewterm/caps.go (not this change's to make): it drops every colour of a
// view's terminal under NO_COLOR (colors = 0: a dark foreground drawn reversed, backgrounds
// gone), though the App already draws its chrome in the monochrome theme. The three lines
// `if os.Getenv("NO_COLOR") != "" { c.colors, c.colorsReported = 0, 0 }` go, and this skip with
// them (with them gone the test passes; with them it fails: RED-1 comes out reversed).
func TestEndToEndNoColorKeepsProgramsColours(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.tmux("new-session", "-d", "-x", "160", "-y", "40", "-s", "e2e", "env NO_COLOR=1 TERM=xterm-256color COLORTERM= "+r.self)
	r.waitFor("C-b ? help")
	r.keys(`mkdir -p nc/dir-$((6*7)) && ls --color=always nc; printf '\033[31mRED-%s\033[0m \033[44mBLUE-%s\033[0m\n' 1 2`, "Enter")
	r.waitFor("BLUE-2")
	rows := r.fwCells("e2e")
	check := func(what string, ok func(fwCell) bool, want string) {
		t.Helper()
		cells := fwFind(rows, what)
		if cells == nil {
			t.Fatalf("%q is not on the screen:\n%s", what, r.screen())
		}
		for _, c := range cells {
			if !ok(c) {
				t.Fatalf("%q is drawn in %q on %q (reverse %v), want %s", what, c.fg, c.bg, c.reverse, want)
			}
		}
	}
	check("RED-1", func(c fwCell) bool { return (c.fg == "31" || c.fg == "38;5;1") && !c.reverse }, "red, not reversed")
	check("BLUE-2", func(c fwCell) bool { return c.bg == "44" || c.bg == "48;5;4" }, "on blue")
	check("dir-42", func(c fwCell) bool { return c.fg != "" && !c.reverse }, "ls's colour for a directory")
	check("C-b ? help", func(c fwCell) bool { return c.fg == "" && c.bg == "" && c.reverse }, "reverse video, no colour (tickmux's own, under NO_COLOR)")
}

// Issue 42 item 9: the help (prefix ?) and the tree (prefix w) are boxes with a border, inside the
// workspace: the side panel's edge stays whole beside them. The terminal then shrinks to 10x3
// and grows back with each open: tickmux keeps running and draws them again.
func TestEndToEndOverlaysKeepOffThePanel(t *testing.T) {
	t.Parallel()
	r := shellRig(t) // 200x50: the panel's 64 columns start at column 136
	const edge = 200 - 64
	for _, ov := range []struct{ key, shows, small string }{{"?", "tickmux keys", "search"}, {"w", "choose a tab or a pane", "(0) 0:"}} {
		s := r.prefix(ov.key, ov.shows)
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if !strings.Contains(s, "╔") || !strings.Contains(s, "╝") {
			t.Fatalf("prefix %s: no border:\n%s", ov.key, s)
		}
		for y, l := range lines[:len(lines)-1] { // the status bar is the last
			row := []rune(l)
			if len(row) <= edge || !strings.ContainsRune("┌│└┏┃┗", row[edge]) {
				t.Fatalf("prefix %s: the panel's edge (column %d) is drawn over on row %d:\n%s", ov.key, edge, y, s)
			}
			if i := strings.IndexAny(string(row[edge:]), "═║╔╗╚╝"); i >= 0 {
				t.Fatalf("prefix %s: the overlay's border is over the panel on row %d:\n%s", ov.key, y, s)
			}
		}
		for _, size := range [][2]string{{"10", "3"}, {"40", "12"}, {"200", "50"}} {
			r.tmux("resize-window", "-t", "e2e", "-x", size[0], "-y", size[1])
			r.waitUntil("e2e", "show the overlay at "+size[0]+"x"+size[1], func(s string) bool {
				lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
				// At 10x3 there is no room for a border: the overlay's first rows show.
				if size[1] == "3" {
					return len(lines) == 3 && len([]rune(lines[0])) <= 10 && strings.Contains(s, ov.small)
				}
				return len(lines) > 0 && len([]rune(lines[0])) == mustAtoi(size[0]) && strings.Contains(s, ov.small) &&
					strings.ContainsAny(s, "═╔")
			})
		}
		r.waitFor(ov.shows)
		r.keys("Escape")
		r.waitGone("e2e", ov.shows)
	}
	r.typeLine("echo still-here-$((6*7))", "still-here-42")
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// fwClick clicks the left button at column x, row y (0-based), as a terminal reports it (SGR).
func (r *tmuxRig) fwClick(x, y int) {
	r.keys("-l", fmt.Sprintf("\x1b[<0;%d;%dM", x+1, y+1))
	r.keys("-l", fmt.Sprintf("\x1b[<0;%d;%dm", x+1, y+1))
}

// Issue 42 item 20: a click on a tab's name on the status bar shows that tab; the wheel over a
// pane without the focus scrolls it back and says how far at its top right ([N/M], as tmux's copy
// mode), and the mark goes when the wheel brings it back to the bottom.
func TestEndToEndClickATabAndTheWheelsMark(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeLine("seq -f 'wheel %g' 300; echo all-$((6*7))-printed", "all-42-printed")
	r.waitUntil("e2e", "the mouse reported", func(string) bool {
		return strings.TrimSpace(r.tmux("display", "-p", "-t", "e2e", "#{mouse_sgr_flag}#{mouse_any_flag}")) == "11"
	})
	r.prefix("c", "shell:2")
	s := r.waitFor("1:sh*")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	bar := lines[len(lines)-1]
	i := strings.Index(bar, "0:")
	if i < 0 {
		t.Fatalf("no tab 0 on the status bar: %q", bar)
	}
	r.fwClick(len([]rune(bar[:i]))+1, len(lines)-1)
	r.waitFor("0:sh*")
	r.waitFor("all-42-printed")

	// A second pane takes the focus; the wheel over the first scrolls it, not the focus.
	r.prefix("%", "shell:3")
	r.keys("-l", "\x1b[<64;20;20M")
	r.waitUntil("e2e", "show the mark [3/", func(s string) bool { return strings.Contains(s, "[3/") })
	r.keys("-l", "\x1b[<64;20;20M")
	r.waitUntil("e2e", "show the mark [6/", func(s string) bool { return strings.Contains(s, "[6/") })
	r.keys("-l", "\x1b[<65;20;20M")
	r.waitUntil("e2e", "show the mark [3/", func(s string) bool { return strings.Contains(s, "[3/") && !strings.Contains(s, "[6/") })
	r.keys("-l", "\x1b[<65;20;20M")
	r.waitGone("e2e", "[3/")
	if s := r.screen(); strings.Contains(s, "[0/") || !strings.Contains(s, "all-42-printed") {
		t.Fatalf("back at the bottom, the pane still says it is scrolled:\n%s", s)
	}
	r.typeLine("echo focus-kept-$((6*7))", "focus-kept-42") // typed into shell:3, still focused
	if s := r.screen(); !strings.Contains(s, "shell:3 sh · ready") {
		t.Fatalf("the wheel moved the focus:\n%s", s)
	}
}

// Issue 42 item 20: the paste buffers as tmux's: scroll mode's copies are kept (the last 20);
// prefix = lists them newest first, by size and first line; Enter pastes the one chosen; prefix ]
// still pastes the newest.
//
// prefix = needs views/keys.go (not this change's to make) to run the new choose-buffer action
// (`case keymap.ChooseBuffer: a.tree.showBuffers()` in App.do) and scroll mode's copy to keep
// every copy (`a.addPasteBuffer(text)` for `a.pasteBuf = text` in App.doScroll). With both the
// test passes (tried on a copy of the tree); the skip goes with them.
func TestEndToEndChooseABuffer(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.typeLine("echo first-copy-$((6*7)); echo second-copy-$((6*7))", "second-copy-42")
	copyLine := func(ups int) {
		t.Helper()
		r.prefix("[", "SCROLL")
		for range ups {
			r.keys("k")
		}
		r.keys("V", "y")
		r.waitGone("e2e", "SCROLL")
	}
	copyLine(2) // first-copy-42 (the cursor starts on the prompt, under second-copy-42)
	copyLine(1) // second-copy-42
	s := r.prefix("=", "choose a paste buffer")
	first, second := strings.Index(s, "first-copy-42"), strings.Index(s, "second-copy-42")
	if !strings.Contains(s, "(0) 14 bytes: second-copy-42") || !strings.Contains(s, "(1) 13 bytes: first-copy-42") || first < second {
		t.Fatalf("the buffers, newest first:\n%s", s)
	}
	r.keys("j", "Enter")
	r.waitGone("e2e", "choose a paste buffer")
	r.waitUntil("e2e", "paste the older copy", func(s string) bool { return strings.Contains(s, "$ first-copy-42") })
	r.keys("C-u")
	r.keys("C-b", "]")
	r.waitUntil("e2e", "paste the newest copy", func(s string) bool { return strings.Contains(s, "$ second-copy-42") })
}
