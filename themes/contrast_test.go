package themes

import (
	"math"
	"sort"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// minContrast is the least contrast ratio (WCAG 2's, 1 to 21) a role's foreground must have on
// its background: WCAG's minimum for large text and for the parts of a user interface.
const minContrast = 3.0

// luminance is a colour's relative luminance (WCAG 2), from tcell's RGB for it.
func luminance(c tcell.Color) float64 {
	r, g, b := c.RGB()
	lin := func(v int32) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func contrast(a, b tcell.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// readable says why fg on bg may not be read, "" when it can: explicit colours need minContrast;
// a colour on the terminal's own (default) background or under its own foreground must be
// readable whatever that is, dark or light (a dark terminal's black, a light one's white); the
// terminal's own pair always is.
func readable(fg, bg tcell.Color) string {
	black, white := tcell.NewRGBColor(0, 0, 0), tcell.NewRGBColor(255, 255, 255)
	def := func(c tcell.Color) bool { return c == tcell.ColorDefault || c == tcell.ColorReset }
	switch {
	case def(fg) && def(bg):
		return ""
	case def(bg):
		if c := contrast(fg, black); c < minContrast {
			return "a dark foreground on the terminal's background: unreadable on a dark terminal"
		}
		if c := contrast(fg, white); c < minContrast {
			return "a light foreground on the terminal's background: unreadable on a light terminal"
		}
	case def(fg):
		if contrast(bg, black) < minContrast || contrast(bg, white) < minContrast {
			return "the terminal's foreground on a set background: unreadable on a dark or a light terminal"
		}
	default:
		if c := contrast(fg, bg); c < minContrast {
			return "too little contrast between its colours"
		}
	}
	return ""
}

// Issue 42 item 11: every role of every built-in theme can be read, whatever the terminal's own
// colours: its foreground stands out from its background (contrast 3:1 at least), and no role
// puts a dark or a light colour on the terminal's background, which may be either (the light
// theme drew bold black titles on it, invisible on a dark terminal).
func TestEveryRoleIsReadable(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		th, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		styles := allStyles(th)
		roles := make([]string, 0, len(styles))
		for r := range styles {
			roles = append(roles, r)
		}
		sort.Strings(roles)
		for _, role := range roles {
			fg, bg, _ := styles[role].Decompose()
			if why := readable(fg, bg); why != "" {
				t.Errorf("%s: %s (%v on %v): %s", name, roleName(role), fg, bg, why)
			}
		}
	}
}

// The check itself: what it must refuse, and what it must let through.
func TestReadableCatchesWhatCannotBeRead(t *testing.T) {
	t.Parallel()
	hex := tcell.NewHexColor
	for _, c := range []struct {
		fg, bg tcell.Color
		ok     bool
	}{
		{tcell.ColorDefault, tcell.ColorDefault, true},
		{hex(0x000000), tcell.ColorDefault, false}, // the light theme's bold black title
		{hex(0xffffff), tcell.ColorDefault, false},
		{hex(0x585858), tcell.ColorDefault, false},
		{hex(0x000000), hex(0xeeeeee), true},
		{hex(0xbcbcbc), hex(0x262626), true},
		{hex(0x808080), hex(0x767676), false},
		{tcell.ColorDefault, hex(0x303030), false},
		{tcell.ColorYellow, tcell.ColorBlack, true},
	} {
		if got := readable(c.fg, c.bg) == ""; got != c.ok {
			t.Errorf("%v on %v: readable %v, want %v", c.fg, c.bg, got, c.ok)
		}
	}
}
