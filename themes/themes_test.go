package themes

import (
	"reflect"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func allStyles(t *Theme) map[string]tcell.Style {
	out := map[string]tcell.Style{}
	v := reflect.ValueOf(t).Elem()
	for i := 0; i < v.NumField(); i++ {
		if s, ok := v.Field(i).Interface().(tcell.Style); ok {
			out[v.Type().Field(i).Name] = s
		}
	}
	return out
}

func TestBuiltInThemesSetEveryRole(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		th, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for role, s := range allStyles(th) {
			if s == tcell.StyleDefault && role != "Background" {
				t.Errorf("%s: role %s is unset", name, role)
			}
		}
	}
	if _, err := ByName("neon"); err == nil {
		t.Error("unknown theme accepted")
	}
}

func TestMonochromeHasNoColour(t *testing.T) {
	t.Parallel()
	for role, s := range allStyles(Monochrome()) {
		fg, bg, _ := s.Decompose()
		if fg != tcell.ColorDefault || bg != tcell.ColorDefault {
			t.Errorf("role %s has colour %v on %v under NO_COLOR", role, fg, bg)
		}
	}
	// Roles that must stand out still do, by attribute.
	for _, s := range []tcell.Style{Monochrome().BorderFocused, Monochrome().Badge, Monochrome().CardFocused, Monochrome().Mutates} {
		if _, _, a := s.Decompose(); a == tcell.AttrNone {
			t.Error("an emphasis role has no attribute under NO_COLOR")
		}
	}
}

func TestNoColorEnv(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	if NoColor() {
		t.Error("empty NO_COLOR counts")
	}
	t.Setenv("NO_COLOR", "1")
	if !NoColor() {
		t.Error("NO_COLOR=1 ignored")
	}
}

func TestSetRole(t *testing.T) {
	t.Parallel()
	th := Dark()
	cases := []struct {
		role, spec string
		fg, bg     tcell.Color
		attr       tcell.AttrMask
	}{
		{"border_focused", "#ff8700", tcell.NewHexColor(0xff8700), tcell.ColorDefault, 0},
		{"badge", "black on yellow bold", tcell.ColorBlack, tcell.ColorYellow, tcell.AttrBold},
		{"status_bar", "15 on 236", tcell.PaletteColor(15), tcell.PaletteColor(236), 0},
		{"panel", "default underline", tcell.ColorDefault, tcell.ColorDefault, tcell.AttrUnderline},
	}
	for _, c := range cases {
		if err := th.Set(c.role, c.spec); err != nil {
			t.Fatalf("%s = %q: %v", c.role, c.spec, err)
		}
	}
	fg, bg, a := th.Badge.Decompose()
	if fg != tcell.ColorBlack || bg != tcell.ColorYellow || a&tcell.AttrBold == 0 {
		t.Errorf("badge %v %v %v", fg, bg, a)
	}
	if fg, _, _ := th.BorderFocused.Decompose(); fg != tcell.NewHexColor(0xff8700) {
		t.Errorf("border_focused fg %v", fg)
	}
	for _, bad := range [][2]string{{"nope", "red"}, {"badge", "chartreusey"}, {"badge", "red on"}, {"badge", ""}, {"badge", "red blue"}} {
		if err := th.Set(bad[0], bad[1]); err == nil {
			t.Errorf("%s = %q accepted", bad[0], bad[1])
		}
	}
	if len(Roles()) < 30 {
		t.Errorf("%d roles", len(Roles()))
	}
}
