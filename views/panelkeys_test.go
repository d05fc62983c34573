package views

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
	"tickmux/keymap"
)

// useConfigKeys gives a harness's App, before it starts, the keymap of a config file's text: the
// App, its side panel and its status bar share the one keymap they were made with.
func useConfigKeys(t *testing.T, hs *harness, text string) {
	t.Helper()
	cfg, err := config.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	*hs.app.keys = *cfg.Keymap
}

// The focused side panel reads its keys from [keys.panel] like every other key: a key bound
// there does the action, the default key unbound does nothing, and the panel's hint names the
// bound key.
func TestPanelKeysComeFromTheConfig(t *testing.T) {
	hs := newHarness(t, 160, 60)
	useConfigKeys(t, hs, `
[keys.panel]
"x" = "toggle-schemas"
"s" = "none"
"Esc" = "none"
"e" = "leave-panel"
`)
	hs.start()
	hs.openTick("longschema")
	hs.waitFor("View Tick")
	hs.prefix()
	hs.key(tcell.KeyTab, 0, 0)
	hs.waitFor("x show schemas")
	// s is unbound: had it toggled the schemas, x would hide them again.
	hs.typeText("sx")
	hs.waitFor("END-OF-SCHEMA-LINE")
	hs.waitFor("x hide schemas")
	// Esc is unbound and swallowed (the panel keeps the focus); e gives the focus back.
	hs.key(tcell.KeyEscape, 0, 0)
	hs.typeText("x")
	hs.waitGone("END-OF-SCHEMA-LINE")
	hs.typeText("e")
	hs.waitFor("C-b Tab focus the panel")
}

// The help overlay (prefix ?) lists every key of the focused panel under its own heading, from
// the same keymap the panel reads.
func TestHelpListsPanelKeys(t *testing.T) {
	hs := newHarness(t, 120, 50)
	hs.start()
	hs.prefix()
	hs.typeText("?")
	hs.typeText("toggle-schemas")
	scr := hs.waitFor("In the side panel")
	if !strings.Contains(scr, "s             toggle-schemas") {
		t.Fatalf("the help does not list s toggle-schemas:\n%s", scr)
	}
	rows := onUIValue(hs, func() []string {
		var out []string
		hs.app.help.query = ""
		for _, l := range hs.app.help.rows(120) {
			var b strings.Builder
			for _, s := range l {
				b.WriteString(s.text)
			}
			out = append(out, b.String())
		}
		return out
	})
	in := false
	listed := map[string]bool{}
	for _, r := range rows {
		switch {
		case r == modeTitle(keymap.ModePanel):
			in = true
		case in && r == "":
			in = false
		case in:
			if f := strings.Fields(r); len(f) >= 2 {
				listed[f[0]+" "+f[1]] = true
			}
		}
	}
	n := 0
	for _, b := range hs.app.keys.Bindings() {
		if b.Mode != keymap.ModePanel {
			continue
		}
		n++
		if !listed[b.Key.String()+" "+string(b.Action)] {
			t.Errorf("the help's panel section lacks %s %s; it has %v", b.Key, b.Action, listed)
		}
	}
	if n < 10 {
		t.Fatalf("the default keymap binds %d panel keys", n)
	}
}

// The grants' hint names the keys that revoke, whatever they are.
func TestRevokeHintFollowsTheKeymap(t *testing.T) {
	cfg := config.Default()
	p := NewSidePanel(cfg.Theme, cfg.Keymap)
	if got := p.revokeHint(); got != "C-b Tab then 1–9 revokes" {
		t.Errorf("unfocused, default keys: %q", got)
	}
	p.focused = true
	if got := p.revokeHint(); got != "1–9 revokes" {
		t.Errorf("focused, default keys: %q", got)
	}
	for n := 1; n <= 9; n++ {
		cfg.Keymap.Bind(keymap.ModePanel, keymap.MustParse(string(rune('0'+n))), keymap.ActionNone)
	}
	if err := cfg.Keymap.BindString(keymap.ModePanel, "F1", "revoke-grant-1"); err != nil {
		t.Fatal(err)
	}
	if got := p.revokeHint(); got != "F1 revokes the first" {
		t.Errorf("focused, F1 revokes the first: %q", got)
	}
}
