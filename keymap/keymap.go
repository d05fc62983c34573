package keymap

import (
	"fmt"
	"sort"
	"strings"
)

// Mode is where a key is read.
type Mode string

const (
	// ModeRoot: keys typed into a pane; only bindings here are taken before the pane sees them.
	ModeRoot Mode = "root"
	// ModePrefix: the key after the prefix.
	ModePrefix Mode = "prefix"
	// ModeCard: an approval card has the focus (prefix + a).
	ModeCard Mode = "card"
	// ModePanel: the side panel has the focus (prefix + Tab); read after the root bindings.
	ModePanel Mode = "panel"
	// ModeScroll: scroll/copy mode over a pane's history.
	ModeScroll Mode = "scroll"
	// ModeLocked: every key goes to the pane but the unlock binding.
	ModeLocked Mode = "locked"
	// ModeEnded: the focused pane's program has ended; read after the root bindings (every
	// other key is dropped: nothing runs to type into).
	ModeEnded Mode = "ended"
)

// Modes lists the modes in the order help shows them.
var Modes = []Mode{ModePrefix, ModeRoot, ModeCard, ModePanel, ModeScroll, ModeLocked, ModeEnded}

// Keymap binds keys to actions, per mode.
type Keymap struct {
	Prefix   Key
	bindings map[Mode]map[Key]Action
}

// Binding is one entry, for the help overlay.
type Binding struct {
	Mode   Mode
	Key    Key
	Action Action
}

// New returns an empty keymap with the given prefix.
func New(prefix Key) *Keymap {
	return &Keymap{Prefix: prefix, bindings: map[Mode]map[Key]Action{}}
}

// Bind binds key to action in mode; ActionNone unbinds it.
func (k *Keymap) Bind(mode Mode, key Key, action Action) {
	m := k.bindings[mode]
	if m == nil {
		m = map[Key]Action{}
		k.bindings[mode] = m
	}
	if action == ActionNone {
		delete(m, key)
		return
	}
	m[key] = action
}

// BindString binds from text, as the config file does.
func (k *Keymap) BindString(mode Mode, key, action string) error {
	if !validMode(mode) {
		return fmt.Errorf("unknown key mode %q (modes: %s)", mode, modeNames())
	}
	kk, err := Parse(key)
	if err != nil {
		return err
	}
	a := Action(action)
	if a != ActionNone && !a.Valid() {
		return fmt.Errorf("key %q: unknown action %q (see tickmux's help overlay for the list)", key, action)
	}
	k.Bind(mode, kk, a)
	return nil
}

func validMode(m Mode) bool {
	for _, x := range Modes {
		if x == m {
			return true
		}
	}
	return false
}

func modeNames() string {
	var names []string
	for _, m := range Modes {
		names = append(names, string(m))
	}
	return strings.Join(names, ", ")
}

// Lookup returns the action bound to key in mode.
func (k *Keymap) Lookup(mode Mode, key Key) (Action, bool) {
	a, ok := k.bindings[mode][key]
	return a, ok
}

// KeysFor returns the keys bound to action in mode, sorted.
func (k *Keymap) KeysFor(mode Mode, action Action) []Key {
	var keys []Key
	for key, a := range k.bindings[mode] {
		if a == action {
			keys = append(keys, key)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// Bindings lists every binding, by mode then by action order, for the help overlay.
func (k *Keymap) Bindings() []Binding {
	order := map[Action]int{}
	for i, a := range allActions {
		order[a.action] = i
	}
	var out []Binding
	for _, m := range Modes {
		var bs []Binding
		for key, a := range k.bindings[m] {
			bs = append(bs, Binding{Mode: m, Key: key, Action: a})
		}
		sort.Slice(bs, func(i, j int) bool {
			if order[bs[i].Action] != order[bs[j].Action] {
				return order[bs[i].Action] < order[bs[j].Action]
			}
			return bs[i].Key.String() < bs[j].Key.String()
		})
		out = append(out, bs...)
	}
	return out
}

// Default is tickmux's keymap: tmux's prefix and most of its keys.
func Default() *Keymap {
	k := New(MustParse("C-b"))
	for _, b := range defaultBindings {
		k.Bind(b.mode, MustParse(b.key), b.action)
	}
	return k
}

var defaultBindings = []struct {
	mode   Mode
	key    string
	action Action
}{
	{ModePrefix, "%", SplitRight},
	{ModePrefix, "|", SplitRight},
	{ModePrefix, "\"", SplitDown},
	{ModePrefix, "-", SplitDown},
	{ModePrefix, "S", SplitSandboxed},
	{ModePrefix, "Left", FocusLeft},
	{ModePrefix, "h", FocusLeft},
	{ModePrefix, "Right", FocusRight},
	{ModePrefix, "l", FocusRight},
	{ModePrefix, "Up", FocusUp},
	{ModePrefix, "k", FocusUp},
	{ModePrefix, "Down", FocusDown},
	{ModePrefix, "j", FocusDown},
	{ModePrefix, "o", FocusNext},
	{ModePrefix, "C-Left", ResizeLeft},
	{ModePrefix, "H", ResizeLeft},
	{ModePrefix, "C-Right", ResizeRight},
	{ModePrefix, "L", ResizeRight},
	{ModePrefix, "C-Up", ResizeUp},
	{ModePrefix, "K", ResizeUp},
	{ModePrefix, "C-Down", ResizeDown},
	{ModePrefix, "J", ResizeDown},
	{ModePrefix, "z", Zoom},
	{ModePrefix, "x", ClosePane},
	{ModePrefix, "}", SwapNext},
	{ModePrefix, "{", SwapPrev},
	{ModePrefix, "F", ToggleFloat},
	{ModePrefix, "w", ChooseTree},
	{ModePrefix, "Space", NextLayout},
	{ModePrefix, "M-1", LayoutEvenHorizontal},
	{ModePrefix, "M-2", LayoutEvenVertical},
	{ModePrefix, "M-3", LayoutMainHorizontal},
	{ModePrefix, "M-4", LayoutMainVertical},
	{ModePrefix, "M-5", LayoutTiled},
	{ModePrefix, "!", BreakPane},
	{ModePrefix, "&", KillTab},
	{ModePrefix, ":", Prompt},
	{ModePrefix, "c", NewTab},
	{ModePrefix, "C", NewShell},
	{ModePrefix, "n", NextTab},
	{ModePrefix, "p", PrevTab},
	{ModePrefix, ",", RenameTab},
	{ModePrefix, "0", SelectTab0},
	{ModePrefix, "1", SelectTab1},
	{ModePrefix, "2", SelectTab2},
	{ModePrefix, "3", SelectTab3},
	{ModePrefix, "4", SelectTab4},
	{ModePrefix, "5", SelectTab5},
	{ModePrefix, "6", SelectTab6},
	{ModePrefix, "7", SelectTab7},
	{ModePrefix, "8", SelectTab8},
	{ModePrefix, "9", SelectTab9},
	{ModePrefix, "T", RenamePane},
	{ModePrefix, ";", LastPane},
	{ModePrefix, "q", DisplayPanes},
	{ModePrefix, "R", RespawnPane},
	{ModePrefix, "]", PasteBuffer},
	{ModePrefix, "=", ChooseBuffer},
	{ModePrefix, "t", TogglePanel},
	{ModePrefix, "Tab", FocusPanel},
	{ModePrefix, "a", Approvals},
	{ModePrefix, "?", Help},
	{ModePrefix, "[", ScrollMode},
	{ModePrefix, "PgUp", ScrollMode},
	{ModePrefix, "g", Lock},
	{ModePrefix, "Q", Quit},
	{ModePrefix, "d", Detach},
	{ModePrefix, "C-z", Suspend},
	{ModePrefix, "C-b", SendPrefix},

	{ModeCard, "y", AllowOnce},
	{ModeCard, "r", AllowRevision},
	{ModeCard, "n", Deny},
	{ModeCard, "N", DenyAll},
	{ModeCard, "Esc", LeaveCard},
	{ModeCard, "Down", NextCard},
	{ModeCard, "j", NextCard},
	{ModeCard, "Up", PrevCard},
	{ModeCard, "k", PrevCard},
	// Reading through a card taller than the panel.
	{ModeCard, "PgDn", PageDown},
	{ModeCard, "Space", PageDown},
	{ModeCard, "PgUp", PageUp},
	{ModeCard, "Home", ScrollTop},
	{ModeCard, "End", ScrollBottom},

	{ModePanel, "Up", ScrollUp},
	{ModePanel, "k", ScrollUp},
	{ModePanel, "Down", ScrollDown},
	{ModePanel, "j", ScrollDown},
	{ModePanel, "PgUp", PageUp},
	{ModePanel, "PgDn", PageDown},
	{ModePanel, "Home", ScrollTop},
	{ModePanel, "s", ToggleSchemas},
	{ModePanel, "1", RevokeGrant1},
	{ModePanel, "2", RevokeGrant2},
	{ModePanel, "3", RevokeGrant3},
	{ModePanel, "4", RevokeGrant4},
	{ModePanel, "5", RevokeGrant5},
	{ModePanel, "6", RevokeGrant6},
	{ModePanel, "7", RevokeGrant7},
	{ModePanel, "8", RevokeGrant8},
	{ModePanel, "9", RevokeGrant9},
	{ModePanel, "Esc", LeavePanel},
	{ModePanel, "Tab", LeavePanel},
	{ModePanel, "q", LeavePanel},

	{ModeScroll, "Up", ScrollUp},
	{ModeScroll, "k", ScrollUp},
	{ModeScroll, "Down", ScrollDown},
	{ModeScroll, "j", ScrollDown},
	{ModeScroll, "PgUp", PageUp},
	{ModeScroll, "C-b", PageUp},
	{ModeScroll, "PgDn", PageDown},
	{ModeScroll, "C-f", PageDown},
	{ModeScroll, "g", ScrollTop},
	{ModeScroll, "G", ScrollBottom},
	{ModeScroll, "/", SearchForward}, // as tmux's vi copy mode: / searches down, ? up
	{ModeScroll, "?", SearchBackward},
	{ModeScroll, "n", SearchNext},
	{ModeScroll, "N", SearchPrev},
	{ModeScroll, "Space", StartSelection},
	{ModeScroll, "v", StartSelection},
	{ModeScroll, "Left", CursorLeft},
	{ModeScroll, "h", CursorLeft},
	{ModeScroll, "Right", CursorRight},
	{ModeScroll, "l", CursorRight},
	{ModeScroll, "Enter", Copy},
	{ModeScroll, "y", Copy},
	{ModeScroll, "q", ExitMode},
	{ModeScroll, "Esc", ExitMode},
	// tmux's copy-mode-vi motions.
	{ModeScroll, "0", LineStart},
	{ModeScroll, "$", LineEnd},
	{ModeScroll, "w", NextWord},
	{ModeScroll, "b", PrevWord},
	{ModeScroll, "e", WordEnd},
	{ModeScroll, "H", ScreenTop},
	{ModeScroll, "M", ScreenMiddle},
	{ModeScroll, "L", ScreenBottom},
	{ModeScroll, "C-u", HalfPageUp},
	{ModeScroll, "C-d", HalfPageDown},
	{ModeScroll, "V", SelectLine},

	{ModeLocked, "C-g", Unlock},

	{ModeEnded, "Enter", RunPlain},
}
