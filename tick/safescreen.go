package tick

import (
	"strings"
	"unicode"

	"github.com/gdamore/tcell/v2"
)

// safeScreen is the screen a UI's Draw gets: text put through it has its control characters
// (C0, DEL, C1) replaced by U+FFFD. tcell writes a cell's text to the terminal as it is, so
// without this a note or a log line holding ESC would send escape sequences to the terminal.
// Text in a Tick often comes from agents, files and commands: untrusted.
type safeScreen struct {
	tcell.Screen
}

func (s safeScreen) Put(x, y int, str string, style tcell.Style) (string, int) {
	return s.Screen.Put(x, y, printable(str), style)
}

func (s safeScreen) PutStr(x, y int, str string) {
	s.Screen.PutStr(x, y, printable(str))
}

func (s safeScreen) PutStrStyled(x, y int, str string, style tcell.Style) {
	s.Screen.PutStrStyled(x, y, printable(str), style)
}

func (s safeScreen) SetContent(x, y int, mainc rune, combc []rune, style tcell.Style) {
	clean := make([]rune, 0, len(combc))
	for _, r := range combc {
		if !unicode.IsControl(r) {
			clean = append(clean, r)
		}
	}
	s.Screen.SetContent(x, y, printableRune(mainc), clean, style)
}

func (s safeScreen) SetTitle(title string) {
	s.Screen.SetTitle(printable(title))
}

// printable replaces every control character in str with U+FFFD.
func printable(str string) string {
	if strings.IndexFunc(str, unicode.IsControl) < 0 {
		return str
	}
	return strings.Map(printableRune, str)
}

func printableRune(r rune) rune {
	if unicode.IsControl(r) {
		return unicode.ReplacementChar
	}
	return r
}
