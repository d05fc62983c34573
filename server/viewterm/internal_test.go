package viewterm

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
)

// The cursor addressing written without the terminfo interpreter is the interpreter's.
func TestGotoAsTerminfo(t *testing.T) {
	ti, err := terminfo.LookupTerminfo("xterm-256color")
	if err != nil {
		t.Fatal(err)
	}
	c := newCaps(ti, "UTF-8")
	if !c.cupANSI {
		t.Fatal("xterm's cup not taken as CSI row;col H")
	}
	for _, p := range [][2]int{{0, 0}, {9, 0}, {0, 9}, {79, 23}, {199, 59}, {1000, 3}} {
		if got, want := string(c.appendGoto(nil, p[0], p[1])), ti.TGoto(p[0], p[1]); got != want {
			t.Fatalf("goto %v: %q, terminfo %q", p, got, want)
		}
	}
}

func TestUnpad(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[H\x1b[J$<50>": "\x1b[H\x1b[J",
		"$<5>\x1b[%i%p1%dH": "\x1b[%i%p1%dH",
		"a$<2*/>b$<1>c":     "abc",
		"no padding":        "no padding",
		"unterminated $<5":  "unterminated $<5",
	} {
		if got := unpad(in); got != want {
			t.Fatalf("unpad(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCharset(t *testing.T) {
	for env, want := range map[[3]string]string{
		{"", "", ""}:                      "UTF-8",
		{"C", "", "en_US.UTF-8"}:          "US-ASCII",
		{"", "POSIX", ""}:                 "US-ASCII",
		{"", "", "de_DE.ISO-8859-1@euro"}: "ISO-8859-1",
		{"", "en_US.UTF-8", "C"}:          "UTF-8",
		{"", "", "en_US"}:                 "UTF-8",
	} {
		got := Charset(func(k string) string {
			return map[string]string{"LC_ALL": env[0], "LC_CTYPE": env[1], "LANG": env[2]}[k]
		})
		if got != want {
			t.Fatalf("%q: %q, want %q", env, got, want)
		}
	}
}

func TestCompleteUTF8(t *testing.T) {
	for in, want := range map[string]int{
		"":                  0,
		"abc":               3,
		"a\xc3":             1,
		"a\xc3\xa9":         3,
		"\xe4\xb8":          0,
		"\xe4\xb8\x96":      3,
		"x\xf0\x9f\x99":     1,
		"x\xf0\x9f\x99\x82": 5,
		"\x80\x80":          2, // not a sequence's start: passed on as it is
		"\x1b[A":            3,
	} {
		if got := completeUTF8([]byte(in)); got != want {
			t.Fatalf("completeUTF8(%q) = %d, want %d", in, got, want)
		}
	}
}

// The process's cache of fitted colours is bounded: a program printing every RGB colour does
// not grow it past maxFitColors, and what it answers is tcell's nearest colour.
func TestFitColorBounded(t *testing.T) {
	p := make([]tcell.Color, 256)
	for i := range p {
		p[i] = tcell.PaletteColor(i)
	}
	for i := 0; i < 3*maxFitColors; i++ {
		c := tcell.NewRGBColor(int32(i&0xff), int32(i>>8&0xff), 7)
		if got := fitColor(c, 256); i%997 == 0 && got != tcell.FindColor(c, p) {
			t.Fatalf("%v fitted to %v, tcell's %v", c, got, tcell.FindColor(c, p))
		}
	}
	paletteFits.mu.Lock()
	n := len(paletteFits.m)
	paletteFits.mu.Unlock()
	if n > maxFitColors {
		t.Fatalf("cache holds %d colours, bound %d", n, maxFitColors)
	}
}

// The RGB colours written without the terminfo interpreter are the interpreter's.
func TestRGBAsTerminfo(t *testing.T) {
	ti, err := terminfo.LookupTerminfo("xterm-direct")
	if err != nil {
		t.Fatal(err)
	}
	c := newCaps(ti, "UTF-8")
	if !c.rgbANSI {
		t.Fatal("xterm-direct's RGB capabilities not taken as SGR 38;2 and 48;2")
	}
	for _, rgb := range [][3]int32{{0, 0, 0}, {255, 135, 0}, {1, 22, 255}} {
		col := tcell.NewRGBColor(rgb[0], rgb[1], rgb[2])
		if got, want := string(c.appendRGB(nil, "38", col)), ti.TParm(ti.SetFgRGB, int(rgb[0]), int(rgb[1]), int(rgb[2])); got != want {
			t.Fatalf("fg %v: %q, terminfo %q", rgb, got, want)
		}
		if got, want := string(c.appendRGB(nil, "48", col)), ti.TParm(ti.SetBgRGB, int(rgb[0]), int(rgb[1]), int(rgb[2])); got != want {
			t.Fatalf("bg %v: %q, terminfo %q", rgb, got, want)
		}
	}
}
