package keymap

import (
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestParseMatchesTypedKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		ev   *tcell.EventKey
	}{
		{"C-b", tcell.NewEventKey(tcell.KeyCtrlB, 'b', tcell.ModCtrl)},
		{"%", tcell.NewEventKey(tcell.KeyRune, '%', tcell.ModShift)},
		{"\"", tcell.NewEventKey(tcell.KeyRune, '"', tcell.ModNone)},
		{"H", tcell.NewEventKey(tcell.KeyRune, 'H', tcell.ModShift)},
		{"Left", tcell.NewEventKey(tcell.KeyLeft, 0, tcell.ModNone)},
		{"C-Left", tcell.NewEventKey(tcell.KeyLeft, 0, tcell.ModCtrl)},
		{"M-x", tcell.NewEventKey(tcell.KeyRune, 'x', tcell.ModAlt)},
		{"Space", tcell.NewEventKey(tcell.KeyRune, ' ', tcell.ModNone)},
		{"Tab", tcell.NewEventKey(tcell.KeyTab, 0, tcell.ModNone)},
		{"Enter", tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone)},
		{"Esc", tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone)},
		{"PgUp", tcell.NewEventKey(tcell.KeyPgUp, 0, tcell.ModNone)},
		{"F5", tcell.NewEventKey(tcell.KeyF5, 0, tcell.ModNone)},
		{"日", tcell.NewEventKey(tcell.KeyRune, '日', tcell.ModNone)},
	}
	for _, c := range cases {
		k, err := Parse(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if got := FromEvent(c.ev); got != k {
			t.Errorf("%q parses to %+v but the typed key is %+v", c.text, k, got)
		}
		if back, err := Parse(k.String()); err != nil || back != k {
			t.Errorf("%q: String() %q does not parse back (%v)", c.text, k.String(), err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "X-b", "C-", "Nope", "C-Nope"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	k := Default()
	if k.Prefix != MustParse("C-b") {
		t.Fatalf("prefix %v, want C-b as in tmux", k.Prefix)
	}
	table := []struct {
		mode Mode
		key  string
		want Action
	}{
		{ModePrefix, "%", SplitRight},
		{ModePrefix, "\"", SplitDown},
		{ModePrefix, "h", FocusLeft},
		{ModePrefix, "Right", FocusRight},
		{ModePrefix, "z", Zoom},
		{ModePrefix, "x", ClosePane},
		{ModePrefix, ":", Prompt},
		{ModePrefix, "a", Approvals},
		{ModePrefix, "?", Help},
		{ModePrefix, "[", ScrollMode},
		{ModePrefix, "C-b", SendPrefix},
		{ModeCard, "y", AllowOnce},
		{ModeCard, "r", AllowRevision},
		{ModeCard, "n", Deny},
		{ModeCard, "N", DenyAll},
		{ModeCard, "Esc", LeaveCard},
		{ModeLocked, "C-g", Unlock},
		// The side panel, when it has the focus (prefix Tab), and a card taller than the panel.
		{ModePanel, "k", ScrollUp},
		{ModePanel, "Down", ScrollDown},
		{ModePanel, "PgDn", PageDown},
		{ModePanel, "Home", ScrollTop},
		{ModePanel, "s", ToggleSchemas},
		{ModePanel, "1", RevokeGrant1},
		{ModePanel, "9", RevokeGrant9},
		{ModePanel, "Esc", LeavePanel},
		{ModePanel, "Tab", LeavePanel},
		{ModeCard, "Space", PageDown},
		{ModeCard, "End", ScrollBottom},
		// Where tmux has the same action, its key.
		{ModePrefix, "c", NewTab},
		{ModePrefix, "n", NextTab},
		{ModePrefix, "p", PrevTab},
		{ModePrefix, ",", RenameTab},
		{ModePrefix, "0", SelectTab0},
		{ModePrefix, "9", SelectTab9},
		{ModePrefix, ";", LastPane},
		{ModePrefix, "q", DisplayPanes},
		{ModePrefix, "]", PasteBuffer},
		{ModePrefix, "Q", Quit},
		{ModePrefix, "C", NewShell},
	}
	for _, c := range table {
		if a, ok := k.Lookup(c.mode, MustParse(c.key)); !ok || a != c.want {
			t.Errorf("%s %s: %q, want %q", c.mode, c.key, a, c.want)
		}
	}
	// Approvals are answered only in card mode: y/n/r typed into a pane or after the prefix
	// never approve anything.
	for _, m := range []Mode{ModeRoot, ModePrefix, ModeLocked, ModeScroll} {
		for _, key := range []string{"y", "r", "n", "N"} {
			if a, ok := k.Lookup(m, MustParse(key)); ok && (a == AllowOnce || a == AllowRevision || a == Deny || a == DenyAll) {
				t.Errorf("%s %s answers a card", m, key)
			}
		}
	}
	// Every default action is documented.
	for _, b := range k.Bindings() {
		if b.Action.Help() == "" {
			t.Errorf("%s has no help", b.Action)
		}
	}
	// Outside locked mode no key without the prefix is taken from a pane: emacs, nano and
	// readline need every control key (C-g cancels in all three).
	for _, b := range k.Bindings() {
		if b.Mode == ModeRoot {
			t.Errorf("root binding %s → %s takes a key from every pane", b.Key, b.Action)
		}
	}
	// Locked mode has an exit.
	if len(k.KeysFor(ModeLocked, Unlock)) == 0 {
		t.Error("no way out of locked mode")
	}
}

func TestBindString(t *testing.T) {
	t.Parallel()
	k := Default()
	if err := k.BindString(ModePrefix, "v", "split-right"); err != nil {
		t.Fatal(err)
	}
	if err := k.BindString(ModePrefix, "%", "none"); err != nil {
		t.Fatal(err)
	}
	if a, _ := k.Lookup(ModePrefix, MustParse("v")); a != SplitRight {
		t.Fatal("rebinding failed")
	}
	if _, ok := k.Lookup(ModePrefix, MustParse("%")); ok {
		t.Fatal("unbinding failed")
	}
	if err := k.BindString(ModePrefix, "v", "explode"); err == nil {
		t.Fatal("bound an unknown action")
	}
	if err := k.BindString("nowhere", "v", "zoom"); err == nil {
		t.Fatal("bound in an unknown mode")
	}
}

func TestSelectTabActions(t *testing.T) {
	t.Parallel()
	for n := 0; n <= 9; n++ {
		a := SelectTab(n)
		if !a.Valid() || a.Help() == "" {
			t.Errorf("%s is not a documented action", a)
		}
		if got, ok := TabOf(a); !ok || got != n {
			t.Errorf("TabOf(%s) = %d, %v", a, got, ok)
		}
	}
	if _, ok := TabOf(Zoom); ok {
		t.Error("zoom selects a tab")
	}
}

func TestRevokeGrantActions(t *testing.T) {
	for n := 1; n <= 9; n++ {
		a := RevokeGrant(n)
		if !a.Valid() || a.Help() == "" {
			t.Errorf("%s is not a documented action", a)
		}
		if got, ok := GrantOf(a); !ok || got != n {
			t.Errorf("GrantOf(%s) = %d, %v", a, got, ok)
		}
	}
	for _, a := range []Action{Zoom, "revoke-grant-0", "revoke-grant-10"} {
		if _, ok := GrantOf(a); ok {
			t.Errorf("%s revokes a grant", a)
		}
	}
	k := Default()
	if err := k.BindString(ModePanel, "x", "toggle-schemas"); err != nil {
		t.Fatalf("[keys.panel] cannot bind: %v", err)
	}
}
