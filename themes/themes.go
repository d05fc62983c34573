// Package themes names every colour role tickmux draws with. A Theme is data: three are built in
// (dark, the default; light; high-contrast), the config file can change any role, and NO_COLOR
// turns every role into attributes only.
package themes

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Theme is a style per role. Field names, lowercased with underscores, are the role names of the
// config file ("border_focused").
type Theme struct {
	Name string `role:"-"`

	Background     tcell.Style // the screen behind panes
	Border         tcell.Style // a pane's border
	BorderFocused  tcell.Style // the focused pane's border
	BorderAlert    tcell.Style // a pane whose instance has a pending approval
	Title          tcell.Style // instance id and title in a border
	TitleFocused   tcell.Style
	StatusStarting tcell.Style // "starting" in a border or a list
	StatusReady    tcell.Style
	StatusEnded    tcell.Style

	StatusBar    tcell.Style // the bottom line
	StatusAccent tcell.Style // the mode and prefix hint on it
	Badge        tcell.Style // the pending-approval count
	Sandboxed    tcell.Style // the badge of a sandboxed pane, after its id (trusted: no title can draw it)

	Panel        tcell.Style // side panel text
	PanelHeading tcell.Style
	PanelMuted   tcell.Style // secondary text: at, seq, counters' labels
	JSONKey      tcell.Style
	JSONString   tcell.Style
	JSONNumber   tcell.Style
	JSONLiteral  tcell.Style // true, false, null
	Mutates      tcell.Style // the badge of a mutating tool
	Query        tcell.Style // the badge of a non-mutating tool
	Sparkline    tcell.Style
	OK           tcell.Style // a call that succeeded
	Error        tcell.Style // a call that failed, an end reason

	Card        tcell.Style // an approval card's body
	CardBorder  tcell.Style
	CardFocused tcell.Style // the card that takes y/r/n
	KeyHint     tcell.Style // keys shown in hints: "y allow once"

	Prompt      tcell.Style // the command prompt and the help overlay
	Selection   tcell.Style // copy-mode selection
	SearchMatch tcell.Style
}

func c(hex int32) tcell.Color { return tcell.NewHexColor(hex) }

// Dark is the default theme. Its roles set their background (a near black) as well as their
// foreground: light text on the terminal's own background could not be read on a light terminal.
func Dark() *Theme {
	s := tcell.StyleDefault.Background(c(0x121212)).Foreground(c(0xd0d0d0))
	return &Theme{
		Name:           "dark",
		Background:     s,
		Border:         s.Foreground(c(0x626262)),
		BorderFocused:  s.Foreground(c(0x5fafff)),
		BorderAlert:    s.Foreground(c(0xffaf00)).Bold(true),
		Title:          s.Foreground(c(0x9e9e9e)),
		TitleFocused:   s.Foreground(c(0xffffff)).Bold(true),
		StatusStarting: s.Foreground(c(0xffd75f)),
		StatusReady:    s.Foreground(c(0x87d787)),
		StatusEnded:    s.Foreground(c(0xff5f5f)),
		StatusBar:      tcell.StyleDefault.Background(c(0x262626)).Foreground(c(0xbcbcbc)),
		StatusAccent:   tcell.StyleDefault.Background(c(0x5fafff)).Foreground(c(0x000000)).Bold(true),
		Badge:          tcell.StyleDefault.Background(c(0xffaf00)).Foreground(c(0x000000)).Bold(true),
		Sandboxed:      tcell.StyleDefault.Background(c(0x87d787)).Foreground(c(0x000000)).Bold(true),
		Panel:          s.Foreground(c(0xd0d0d0)),
		PanelHeading:   s.Foreground(c(0x5fafff)).Bold(true),
		PanelMuted:     s.Foreground(c(0x808080)),
		JSONKey:        s.Foreground(c(0x87afd7)),
		JSONString:     s.Foreground(c(0xafd787)),
		JSONNumber:     s.Foreground(c(0xffaf87)),
		JSONLiteral:    s.Foreground(c(0xd787d7)),
		Mutates:        tcell.StyleDefault.Background(c(0xd75f00)).Foreground(c(0xffffff)).Bold(true),
		Query:          tcell.StyleDefault.Background(c(0x3a3a3a)).Foreground(c(0xbcbcbc)),
		Sparkline:      s.Foreground(c(0x5fd7af)),
		OK:             s.Foreground(c(0x87d787)),
		Error:          s.Foreground(c(0xff5f5f)),
		Card:           tcell.StyleDefault.Background(c(0x303030)).Foreground(c(0xeeeeee)),
		CardBorder:     tcell.StyleDefault.Background(c(0x303030)).Foreground(c(0xffaf00)),
		CardFocused:    tcell.StyleDefault.Background(c(0x303030)).Foreground(c(0xffd700)).Bold(true),
		KeyHint:        tcell.StyleDefault.Background(c(0x303030)).Foreground(c(0x5fafff)).Bold(true),
		Prompt:         tcell.StyleDefault.Background(c(0x303030)).Foreground(c(0xeeeeee)),
		Selection:      tcell.StyleDefault.Background(c(0x5f87af)).Foreground(c(0xffffff)),
		SearchMatch:    tcell.StyleDefault.Background(c(0xffd700)).Foreground(c(0x000000)),
	}
}

// Light suits a light terminal background. Its roles set their background (white) as well as
// their foreground: its dark text on the terminal's own background could not be read on a dark
// terminal (issue 42 item 11).
func Light() *Theme {
	s := tcell.StyleDefault.Background(c(0xffffff)).Foreground(c(0x303030))
	return &Theme{
		Name:           "light",
		Background:     s,
		Border:         s.Foreground(c(0x8a8a8a)),
		BorderFocused:  s.Foreground(c(0x005fd7)),
		BorderAlert:    s.Foreground(c(0xd75f00)).Bold(true),
		Title:          s.Foreground(c(0x585858)),
		TitleFocused:   s.Foreground(c(0x000000)).Bold(true),
		StatusStarting: s.Foreground(c(0xaf8700)),
		StatusReady:    s.Foreground(c(0x008700)),
		StatusEnded:    s.Foreground(c(0xd70000)),
		StatusBar:      tcell.StyleDefault.Background(c(0xdadada)).Foreground(c(0x303030)),
		StatusAccent:   tcell.StyleDefault.Background(c(0x005fd7)).Foreground(c(0xffffff)).Bold(true),
		Badge:          tcell.StyleDefault.Background(c(0xd75f00)).Foreground(c(0xffffff)).Bold(true),
		Sandboxed:      tcell.StyleDefault.Background(c(0x008700)).Foreground(c(0xffffff)).Bold(true),
		Panel:          s.Foreground(c(0x303030)),
		PanelHeading:   s.Foreground(c(0x005fd7)).Bold(true),
		PanelMuted:     s.Foreground(c(0x767676)),
		JSONKey:        s.Foreground(c(0x005f87)),
		JSONString:     s.Foreground(c(0x5f8700)),
		JSONNumber:     s.Foreground(c(0xaf5f00)),
		JSONLiteral:    s.Foreground(c(0x870087)),
		Mutates:        tcell.StyleDefault.Background(c(0xd75f00)).Foreground(c(0xffffff)).Bold(true),
		Query:          tcell.StyleDefault.Background(c(0xdadada)).Foreground(c(0x303030)),
		Sparkline:      s.Foreground(c(0x00875f)),
		OK:             s.Foreground(c(0x008700)),
		Error:          s.Foreground(c(0xd70000)),
		Card:           tcell.StyleDefault.Background(c(0xeeeeee)).Foreground(c(0x121212)),
		CardBorder:     tcell.StyleDefault.Background(c(0xeeeeee)).Foreground(c(0xd75f00)),
		CardFocused:    tcell.StyleDefault.Background(c(0xeeeeee)).Foreground(c(0xaf5f00)).Bold(true),
		KeyHint:        tcell.StyleDefault.Background(c(0xeeeeee)).Foreground(c(0x005fd7)).Bold(true),
		Prompt:         tcell.StyleDefault.Background(c(0xeeeeee)).Foreground(c(0x121212)),
		Selection:      tcell.StyleDefault.Background(c(0x87afd7)).Foreground(c(0x000000)),
		SearchMatch:    tcell.StyleDefault.Background(c(0xffd700)).Foreground(c(0x000000)),
	}
}

// HighContrast uses the 16 basic colours at full strength, black and white, and bold.
func HighContrast() *Theme {
	s := tcell.StyleDefault.Background(tcell.ColorBlack).Foreground(tcell.ColorWhite)
	inv := tcell.StyleDefault.Background(tcell.ColorWhite).Foreground(tcell.ColorBlack)
	return &Theme{
		Name:           "high-contrast",
		Background:     s,
		Border:         s.Foreground(tcell.ColorWhite),
		BorderFocused:  s.Foreground(tcell.ColorYellow).Bold(true),
		BorderAlert:    s.Foreground(tcell.ColorFuchsia).Bold(true),
		Title:          s,
		TitleFocused:   s.Foreground(tcell.ColorYellow).Bold(true),
		StatusStarting: s.Foreground(tcell.ColorYellow),
		StatusReady:    s.Foreground(tcell.ColorLime),
		StatusEnded:    s.Foreground(tcell.ColorRed).Bold(true),
		StatusBar:      inv,
		StatusAccent:   tcell.StyleDefault.Background(tcell.ColorYellow).Foreground(tcell.ColorBlack).Bold(true),
		Badge:          tcell.StyleDefault.Background(tcell.ColorFuchsia).Foreground(tcell.ColorBlack).Bold(true),
		Sandboxed:      tcell.StyleDefault.Background(tcell.ColorLime).Foreground(tcell.ColorBlack).Bold(true),
		Panel:          s,
		PanelHeading:   s.Foreground(tcell.ColorYellow).Bold(true).Underline(true),
		PanelMuted:     s.Foreground(tcell.ColorSilver),
		JSONKey:        s.Foreground(tcell.ColorAqua),
		JSONString:     s.Foreground(tcell.ColorLime),
		JSONNumber:     s.Foreground(tcell.ColorYellow),
		JSONLiteral:    s.Foreground(tcell.ColorFuchsia),
		Mutates:        tcell.StyleDefault.Background(tcell.ColorRed).Foreground(tcell.ColorWhite).Bold(true),
		Query:          inv,
		Sparkline:      s.Foreground(tcell.ColorAqua),
		OK:             s.Foreground(tcell.ColorLime).Bold(true),
		Error:          s.Foreground(tcell.ColorRed).Bold(true),
		Card:           s,
		CardBorder:     s.Foreground(tcell.ColorFuchsia).Bold(true),
		CardFocused:    s.Foreground(tcell.ColorYellow).Bold(true).Reverse(true),
		KeyHint:        s.Foreground(tcell.ColorAqua).Bold(true).Underline(true),
		Prompt:         inv,
		Selection:      inv,
		SearchMatch:    tcell.StyleDefault.Background(tcell.ColorYellow).Foreground(tcell.ColorBlack),
	}
}

// Monochrome is what NO_COLOR gets: no colour at all, only bold, reverse, underline and dim.
func Monochrome() *Theme {
	s := tcell.StyleDefault
	return &Theme{
		Name:           "no-color",
		Background:     s,
		Border:         s.Dim(true),
		BorderFocused:  s.Bold(true),
		BorderAlert:    s.Bold(true).Reverse(true),
		Title:          s,
		TitleFocused:   s.Bold(true),
		StatusStarting: s.Italic(true),
		StatusReady:    s,
		StatusEnded:    s.Bold(true),
		StatusBar:      s.Reverse(true),
		StatusAccent:   s.Bold(true),
		Badge:          s.Bold(true).Underline(true),
		Sandboxed:      s.Reverse(true),
		Panel:          s,
		PanelHeading:   s.Bold(true).Underline(true),
		PanelMuted:     s.Dim(true),
		JSONKey:        s.Bold(true),
		JSONString:     s,
		JSONNumber:     s,
		JSONLiteral:    s.Italic(true),
		Mutates:        s.Reverse(true).Bold(true),
		Query:          s.Underline(true),
		Sparkline:      s,
		OK:             s,
		Error:          s.Bold(true),
		Card:           s,
		CardBorder:     s.Bold(true),
		CardFocused:    s.Bold(true).Reverse(true),
		KeyHint:        s.Bold(true).Underline(true),
		Prompt:         s.Reverse(true),
		Selection:      s.Reverse(true),
		SearchMatch:    s.Underline(true).Bold(true),
	}
}

// Names lists the built-in themes.
func Names() []string { return []string{"dark", "light", "high-contrast"} }

// ByName returns a built-in theme.
func ByName(name string) (*Theme, error) {
	switch strings.ToLower(name) {
	case "", "dark":
		return Dark(), nil
	case "light":
		return Light(), nil
	case "high-contrast", "highcontrast", "contrast":
		return HighContrast(), nil
	}
	return nil, fmt.Errorf("unknown theme %q (themes: %s)", name, strings.Join(Names(), ", "))
}

// NoColor reports whether the environment asks for no colour (https://no-color.org: NO_COLOR set
// and not empty).
func NoColor() bool { return os.Getenv("NO_COLOR") != "" }

// Roles lists the config names of every role.
func Roles() []string {
	t := reflect.TypeOf(Theme{})
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Tag.Get("role") != "-" {
			names = append(names, roleName(f.Name))
		}
	}
	sort.Strings(names)
	return names
}

func roleName(field string) string {
	var b strings.Builder
	for i, r := range field {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Set changes one role from a spec such as "#ff8700", "yellow on black", "bold reverse" or
// "#5fafff on default underline".
func (t *Theme) Set(role, spec string) error {
	v := reflect.ValueOf(t).Elem()
	ty := v.Type()
	for i := 0; i < ty.NumField(); i++ {
		f := ty.Field(i)
		if f.Tag.Get("role") == "-" || roleName(f.Name) != role {
			continue
		}
		style, err := ParseStyle(spec, v.Field(i).Interface().(tcell.Style))
		if err != nil {
			return fmt.Errorf("colour %s: %w", role, err)
		}
		v.Field(i).Set(reflect.ValueOf(style))
		return nil
	}
	return fmt.Errorf("unknown colour role %q (roles: %s)", role, strings.Join(Roles(), ", "))
}

// ParseStyle reads "FG [on BG] [ATTR...]" on top of base. Colours are names (tcell's: red,
// darkorange, …), #rrggbb, a palette number 0-255, or "default".
func ParseStyle(spec string, base tcell.Style) (tcell.Style, error) {
	words := strings.Fields(strings.ToLower(spec))
	if len(words) == 0 {
		return base, fmt.Errorf("empty style")
	}
	style := base
	fgSet := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w {
		case "bold":
			style = style.Bold(true)
		case "dim":
			style = style.Dim(true)
		case "italic":
			style = style.Italic(true)
		case "underline":
			style = style.Underline(true)
		case "reverse":
			style = style.Reverse(true)
		case "blink":
			style = style.Blink(true)
		case "plain":
			style = style.Bold(false).Dim(false).Italic(false).Underline(false).Reverse(false).Blink(false)
		case "on":
			if i+1 >= len(words) {
				return base, fmt.Errorf("%q: a colour must follow \"on\"", spec)
			}
			col, err := parseColor(words[i+1])
			if err != nil {
				return base, fmt.Errorf("%q: %w", spec, err)
			}
			style = style.Background(col)
			i++
		default:
			if fgSet {
				return base, fmt.Errorf("%q: unknown word %q", spec, w)
			}
			col, err := parseColor(w)
			if err != nil {
				return base, fmt.Errorf("%q: %w", spec, err)
			}
			style = style.Foreground(col)
			fgSet = true
		}
	}
	return style, nil
}

func parseColor(s string) (tcell.Color, error) {
	if s == "default" {
		return tcell.ColorDefault, nil
	}
	if strings.HasPrefix(s, "#") && len(s) == 7 {
		col := tcell.GetColor(s)
		if col != tcell.ColorDefault {
			return col, nil
		}
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err == nil && fmt.Sprint(n) == s && n >= 0 && n < 256 {
		return tcell.PaletteColor(n), nil
	}
	if col, ok := tcell.ColorNames[s]; ok {
		return col, nil
	}
	return tcell.ColorDefault, fmt.Errorf("unknown colour %q (use a name, #rrggbb or 0-255)", s)
}
