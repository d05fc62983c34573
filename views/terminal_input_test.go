package views

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/vt"
)

// docs/reference.md "Terminal panes and `tickmux snap`": keys reach the program as a terminal sends them.
func TestEncodeKey(t *testing.T) {
	app := vt.Modes{AppCursor: true}
	tests := []struct {
		name  string
		key   tcell.Key
		r     rune
		mod   tcell.ModMask
		modes vt.Modes
		want  string
	}{
		{"letter", tcell.KeyRune, 'a', 0, vt.Modes{}, "a"},
		{"wide rune", tcell.KeyRune, '中', 0, vt.Modes{}, "中"},
		{"alt letter", tcell.KeyRune, 'x', tcell.ModAlt, vt.Modes{}, "\x1bx"},
		{"ctrl letter", tcell.KeyCtrlC, 'c', tcell.ModCtrl, vt.Modes{}, "\x03"},
		{"ctrl alt letter", tcell.KeyCtrlA, 'a', tcell.ModCtrl | tcell.ModAlt, vt.Modes{}, "\x1b\x01"},
		{"ctrl space", tcell.KeyCtrlSpace, 0, tcell.ModCtrl, vt.Modes{}, "\x00"},
		{"ctrl backslash", tcell.KeyCtrlBackslash, 0, tcell.ModCtrl, vt.Modes{}, "\x1c"},
		{"enter", tcell.KeyEnter, 0, 0, vt.Modes{}, "\r"},
		{"backspace", tcell.KeyBackspace, 0, 0, vt.Modes{}, "\x7f"},
		{"alt backspace", tcell.KeyBackspace2, 0, tcell.ModAlt, vt.Modes{}, "\x1b\x7f"},
		{"backtab", tcell.KeyBacktab, 0, 0, vt.Modes{}, "\x1b[Z"},
		{"up", tcell.KeyUp, 0, 0, vt.Modes{}, "\x1b[A"},
		{"up in application mode", tcell.KeyUp, 0, 0, app, "\x1bOA"},
		{"shift up", tcell.KeyUp, 0, tcell.ModShift, app, "\x1b[1;2A"},
		{"ctrl left", tcell.KeyLeft, 0, tcell.ModCtrl, vt.Modes{}, "\x1b[1;5D"},
		{"alt right", tcell.KeyRight, 0, tcell.ModAlt, vt.Modes{}, "\x1b[1;3C"},
		{"home", tcell.KeyHome, 0, 0, vt.Modes{}, "\x1b[H"},
		{"end in application mode", tcell.KeyEnd, 0, 0, app, "\x1bOF"},
		{"delete", tcell.KeyDelete, 0, 0, vt.Modes{}, "\x1b[3~"},
		{"ctrl page up", tcell.KeyPgUp, 0, tcell.ModCtrl, vt.Modes{}, "\x1b[5;5~"},
		{"F1", tcell.KeyF1, 0, 0, vt.Modes{}, "\x1bOP"},
		{"shift F1", tcell.KeyF1, 0, tcell.ModShift, vt.Modes{}, "\x1b[1;2P"},
		{"F5", tcell.KeyF5, 0, 0, vt.Modes{}, "\x1b[15~"},
		{"F12", tcell.KeyF12, 0, 0, vt.Modes{}, "\x1b[24~"},
		{"F13 is shift F1", tcell.KeyF13, 0, 0, vt.Modes{}, "\x1b[1;2P"},
		{"ctrl F5 as F29", tcell.KeyF29, 0, 0, vt.Modes{}, "\x1b[15;5~"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(encodeKey(tcell.NewEventKey(tc.key, tc.r, tc.mod), tc.modes))
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// docs/reference.md "Terminal panes and `tickmux snap`": mouse reports in the encoding the program asked for.
func TestEncodeMouse(t *testing.T) {
	normal := vt.Modes{Mouse: vt.MouseNormal}
	sgr := vt.Modes{Mouse: vt.MouseButton, MouseEncoding: vt.MouseEncodingSGR}
	tests := []struct {
		name   string
		action tview.MouseAction
		mod    tcell.ModMask
		held   int
		modes  vt.Modes
		want   string
	}{
		{"not asked", tview.MouseLeftDown, 0, -1, vt.Modes{}, ""},
		{"press", tview.MouseLeftDown, 0, -1, normal, "\x1b[M #$"},
		{"release", tview.MouseLeftUp, 0, 0, normal, "\x1b[M##$"},
		{"ctrl right press", tview.MouseRightDown, tcell.ModCtrl, -1, normal, "\x1b[M2#$"},
		{"wheel", tview.MouseScrollUp, 0, -1, normal, "\x1b[M`#$"},
		{"motion not asked", tview.MouseMove, 0, 0, normal, ""},
		{"SGR drag", tview.MouseMove, 0, 0, sgr, "\x1b[<32;3;4M"},
		{"SGR release", tview.MouseRightUp, 0, 2, sgr, "\x1b[<2;3;4m"},
		{"X10 ignores releases", tview.MouseLeftUp, 0, 0, vt.Modes{Mouse: vt.MouseX10}, ""},
		{"any motion", tview.MouseMove, 0, -1, vt.Modes{Mouse: vt.MouseAny, MouseEncoding: vt.MouseEncodingSGR}, "\x1b[<35;3;4M"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := tcell.NewEventMouse(2, 3, 0, tc.mod)
			if got := string(encodeMouse(tc.action, ev, 2, 3, tc.held, tc.modes)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// docs/reference.md "Terminal panes and `tickmux snap`": paste, bracketed when asked, as xterm sends it:
// each line feed as a carriage return (CR LF as two, as xterm and tmux's paste-buffer send it),
// tabs and other bytes kept, xterm's disallowed paste controls as spaces.
// Issue 26 item 1.
func TestEncodePaste(t *testing.T) {
	if got := string(encodePaste("a\r\nb\nc\td\x01é", vt.Modes{})); got != "a\r\rb\rc\td\x01é" {
		t.Errorf("got %q", got)
	}
	if got := string(encodePaste("x", vt.Modes{BracketedPaste: true})); got != "\x1b[200~x\x1b[201~" {
		t.Errorf("got %q", got)
	}
	for in, want := range map[string]string{
		"\x1b[201~":                " [201~",
		"\x1b[20\x1b[201~1~":       " [20 [201~1~", // what one removal of the marker would leave a marker of
		"\x00\x08\x05\x04\x7f":     "     ",
		"\x03\x1c\x15\x1a\x11\x13": "      ",
		"\x12\x17\x16\x0f":         "    ",
		"\x07\x0b\x0c\x01":         "\x07\x0b\x0c\x01",
	} {
		if got := string(appendPasted(nil, []byte(in))); got != want {
			t.Errorf("appendPasted(%q) = %q, want %q", in, got, want)
		}
	}
}
