package viewterm

import (
	"os"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
)

// caps are the sequences a terminal takes, found once from its terminfo description: the
// standard capabilities with their padding removed, and the xterm extensions (bracketed paste,
// focus, underline styles, synchronized output, the keyboard protocols) that terminfo does not
// describe, assumed where tcell assumes them: for xterm-like terminals, and for those that
// report the mouse.
type caps struct {
	ti *terminfo.Terminfo

	cup     string
	cupANSI bool // cup is CSI row;col H: written without the terminfo interpreter

	clear, attrOff, resetFgBg                  string
	bold, dim, italic, underline, blink, rev   string
	strike                                     string
	setFg, setBg, setFgBg                      string
	setFgRGB, setBgRGB, setFgBgRGB             string
	rgbANSI                                    bool // the RGB capabilities are SGR 38;2 and 48;2: written directly
	enterCA, exitCA, enterKeypad, exitKeypad   string
	showCursor, hideCursor                     string
	enableAcs, disableAM, enableAM, insertChar string
	// lastCellTrick: the terminal scrolls when its last cell is written and cannot be told not
	// to, but can insert a character: the last cell is written one to the left and shifted.
	lastCellTrick bool

	mouse                   bool
	pasteOn, pasteOff       string
	focusOn, focusOff       string
	saveTitle, restoreTitle string
	clipboard               bool
	syncStart, syncEnd      string
	keysOn, keysOff         string // xterm modifyOtherKeys, kitty's and win32's key reports
	underStyles             [6]string
	underExt                bool // SGR 58/59: the underline's own colour
	cursorStyles            bool
	acs                     map[rune]string
	truecolor               bool
	colors                  int // the palette's size: 0 for a monochrome terminal
	colorsReported          int // what Colors answers
	utf8                    bool
	fallback                map[rune]string
}

// unpad removes terminfo padding ($<5>, $<50/>): terminals emulated today need none, and
// honouring it would make a frame sleep.
func unpad(s string) string {
	for {
		i := strings.Index(s, "$<")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+1:]
	}
}

func newCaps(ti *terminfo.Terminfo, charset string) *caps {
	c := &caps{ti: ti}
	c.cup = unpad(ti.SetCursor)
	c.cupANSI = c.cup == "\x1b[%i%p1%d;%p2%dH"
	c.clear, c.attrOff, c.resetFgBg = unpad(ti.Clear), unpad(ti.AttrOff), unpad(ti.ResetFgBg)
	c.bold, c.dim, c.italic, c.underline = unpad(ti.Bold), unpad(ti.Dim), unpad(ti.Italic), unpad(ti.Underline)
	c.blink, c.rev, c.strike = unpad(ti.Blink), unpad(ti.Reverse), unpad(ti.StrikeThrough)
	c.setFg, c.setBg, c.setFgBg = unpad(ti.SetFg), unpad(ti.SetBg), unpad(ti.SetFgBg)
	c.setFgRGB, c.setBgRGB, c.setFgBgRGB = unpad(ti.SetFgRGB), unpad(ti.SetBgRGB), unpad(ti.SetFgBgRGB)
	c.enterCA, c.exitCA = unpad(ti.EnterCA), unpad(ti.ExitCA)
	c.enterKeypad, c.exitKeypad = unpad(ti.EnterKeypad), unpad(ti.ExitKeypad)
	c.showCursor, c.hideCursor = unpad(ti.ShowCursor), unpad(ti.HideCursor)
	c.enableAcs, c.disableAM, c.enableAM = unpad(ti.EnableAcs), unpad(ti.DisableAutoMargin), unpad(ti.EnableAutoMargin)
	c.insertChar = unpad(ti.InsertChar)
	c.lastCellTrick = ti.AutoMargin && c.disableAM == "" && c.insertChar != ""

	xterm := ti.XTermLike || strings.HasPrefix(ti.Name, "xterm")
	c.mouse = ti.Mouse != ""
	if c.mouse || xterm {
		c.pasteOn, c.pasteOff = "\x1b[?2004h", "\x1b[?2004l"
		c.cursorStyles = true
		if !strings.Contains(ti.Name, "linux") { // the console shows these OSCs instead of ignoring them
			c.focusOn, c.focusOff = "\x1b[?1004h", "\x1b[?1004l"
		}
	}
	if xterm {
		c.underStyles = [6]string{tcell.UnderlineStyleDouble: "\x1b[4:2m", tcell.UnderlineStyleCurly: "\x1b[4:3m",
			tcell.UnderlineStyleDotted: "\x1b[4:4m", tcell.UnderlineStyleDashed: "\x1b[4:5m"}
		c.underExt = true
		c.saveTitle, c.restoreTitle = "\x1b[22;2t", "\x1b[23;2t"
		c.clipboard = true
		c.syncStart, c.syncEnd = "\x1b[?2026h", "\x1b[?2026l"
		c.keysOn = "\x1b[>4;2m" + "\x1b[>1u" + "\x1b[?9001h"
		c.keysOff = "\x1b[?9001l" + "\x1b[<u" + "\x1b[>4;0m"
	}

	c.rgbANSI = c.setFgRGB == "\x1b[38;2;%p1%d;%p2%d;%p3%dm" && c.setBgRGB == "\x1b[48;2;%p1%d;%p2%d;%p3%dm" &&
		(c.setFgBgRGB == "" || c.setFgBgRGB == "\x1b[38;2;%p1%d;%p2%d;%p3%d;48;2;%p4%d;%p5%d;%p6%dm")
	c.truecolor = c.setFgBgRGB != "" || c.setFgRGB != "" || c.setBgRGB != ""
	if os.Getenv("TCELL_TRUECOLOR") == "disable" {
		c.truecolor = false
	}
	c.colors = min(ti.Colors, 256)
	c.colorsReported = ti.Colors
	if c.truecolor {
		c.colorsReported = 1 << 24
	}

	c.utf8 = strings.EqualFold(charset, "UTF-8") || strings.EqualFold(charset, "UTF8")
	if !c.utf8 {
		c.acs = map[rune]string{}
		enter, exit := unpad(ti.EnterAcs), unpad(ti.ExitAcs)
		for a := ti.AltChars; len(a) >= 2; a = a[2:] {
			if r, ok := acsNames[a[0]]; ok {
				c.acs[r] = enter + a[1:2] + exit
			}
		}
		c.fallback = tcell.RuneFallbacks
	}
	return c
}

// acsNames are the VT100 alternate character set's letters and the characters they draw.
var acsNames = map[byte]rune{
	'+': tcell.RuneRArrow, ',': tcell.RuneLArrow, '-': tcell.RuneUArrow, '.': tcell.RuneDArrow,
	'0': tcell.RuneBlock, '`': tcell.RuneDiamond, 'a': tcell.RuneCkBoard, 'f': tcell.RuneDegree,
	'g': tcell.RunePlMinus, 'h': tcell.RuneBoard, 'i': tcell.RuneLantern, 'j': tcell.RuneLRCorner,
	'k': tcell.RuneURCorner, 'l': tcell.RuneULCorner, 'm': tcell.RuneLLCorner, 'n': tcell.RunePlus,
	'o': tcell.RuneS1, 'p': tcell.RuneS3, 'q': tcell.RuneHLine, 'r': tcell.RuneS7, 's': tcell.RuneS9,
	't': tcell.RuneLTee, 'u': tcell.RuneRTee, 'v': tcell.RuneBTee, 'w': tcell.RuneTTee,
	'x': tcell.RuneVLine, 'y': tcell.RuneLEqual, 'z': tcell.RuneGEqual, '{': tcell.RunePi,
	'|': tcell.RuneNEqual, '}': tcell.RuneSterling, '~': tcell.RuneBullet,
}

// Charset is the character set of the locale in env (LC_ALL, then LC_CTYPE, then LANG): "UTF-8"
// unless the locale names another, "US-ASCII" for C and POSIX.
func Charset(getenv func(string) string) string {
	locale := getenv("LC_ALL")
	if locale == "" {
		locale = getenv("LC_CTYPE")
	}
	if locale == "" {
		locale = getenv("LANG")
	}
	if locale == "C" || locale == "POSIX" {
		return "US-ASCII"
	}
	if i := strings.IndexByte(locale, '@'); i >= 0 {
		locale = locale[:i]
	}
	i := strings.IndexByte(locale, '.')
	if i < 0 {
		return "UTF-8"
	}
	return locale[i+1:]
}

// appendRGB sets the foreground (SGR 38) or background (48) to RGB colour col.
func (c *caps) appendRGB(b []byte, sgr string, col tcell.Color) []byte {
	r, g, bl := col.RGB()
	if !c.rgbANSI {
		cap := c.setFgRGB
		if sgr == "48" {
			cap = c.setBgRGB
		}
		return append(b, c.ti.TParm(cap, int(r), int(g), int(bl))...)
	}
	b = append(b, "\x1b["...)
	b = append(b, sgr...)
	b = append(b, ";2;"...)
	return append(appendRGB(b, r, g, bl, ';'), 'm')
}

// appendRGB writes a colour's three components in decimal, sep between them.
func appendRGB(b []byte, r, g, bl int32, sep byte) []byte {
	b = strconv.AppendInt(b, int64(r), 10)
	b = append(b, sep)
	b = strconv.AppendInt(b, int64(g), 10)
	b = append(b, sep)
	return strconv.AppendInt(b, int64(bl), 10)
}

// appendGoto moves the cursor to column x, row y.
func (c *caps) appendGoto(b []byte, x, y int) []byte {
	if c.cupANSI {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(y+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(x+1), 10)
		return append(b, 'H')
	}
	return append(b, c.ti.TParm(c.cup, y, x)...)
}
