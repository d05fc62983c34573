package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/keymap"
)

func TestParse(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	cfg, err := Parse(`
theme = "light"
prefix = "C-a"
scrollback = 500
side_panel = "off"
clipboard = "on"

[colors]
badge = "black on #ffd700 bold"

[keys.prefix]
"v" = "split-right"
"%" = "none"

[keys.locked]
"C-q" = "unlock"
`)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Theme.Name != "light" || cfg.Scrollback != 500 || cfg.SidePanel != PanelOff || !cfg.ProgramClipboard {
		t.Fatalf("cfg %+v", cfg)
	}
	if cfg.Keymap.Prefix != keymap.MustParse("C-a") {
		t.Fatal("prefix not applied")
	}
	if a, _ := cfg.Keymap.Lookup(keymap.ModePrefix, keymap.MustParse("v")); a != keymap.SplitRight {
		t.Fatal("binding not applied")
	}
	if _, ok := cfg.Keymap.Lookup(keymap.ModePrefix, keymap.MustParse("%")); ok {
		t.Fatal("unbinding not applied")
	}
	if a, _ := cfg.Keymap.Lookup(keymap.ModeLocked, keymap.MustParse("C-q")); a != keymap.Unlock {
		t.Fatal("locked binding not applied")
	}
	if _, bg, _ := cfg.Theme.Badge.Decompose(); bg != tcell.NewHexColor(0xffd700) {
		t.Fatal("colour not applied")
	}
}

func TestParseErrorsSayWhat(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`theme = "neon"`:                     "unknown theme",
		`prefix = "X-q"`:                     "prefix",
		`colour = "x"`:                       "unknown setting colour",
		"theme = \"dark\"\nnotfy = \"bell\"": "line 2: unknown setting notfy (did you mean notify?)",
		`scrollback = "many"`:                "line 1, column 14: scrollback takes a whole number, not a string",
		`theme = 3`:                          "theme takes a string in quotes, not an integer",
		`sandbox_write = "~"`:                "sandbox_write takes a list of strings",
		"[keys.prefix]\nv = 3":               "line 2, column 5: this value takes a string in quotes, not an integer",
		"[colors]\nnope = \"red\"":           "unknown colour role",
		"[keys.prefix]\n\"v\" = \"fly\"":     "unknown action",
		"[keys.sideways]\n\"v\" = \"zoom\"":  "unknown key mode",
		`scrollback = -1`:                    "scrollback",
		`side_panel = "left"`:                "side_panel",
		`clipboard = "yes"`:                  "clipboard",
		`notify = "siren"`:                   "notify",
		`remain_on_exit = "off"`:             "remain_on_exit = \"off\": use failed",
		`journal_max_mb = 0`:                 "journal_max_mb",
		`theme = `:                           "",
	}
	for text, want := range cases {
		_, err := Parse(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one mentioning %q", text, err, want)
		}
	}
}

func TestClipboardOffByDefault(t *testing.T) {
	t.Parallel()
	cfg, err := Parse(``)
	if err != nil || cfg.ProgramClipboard {
		t.Fatalf("programs may set the clipboard by default (%v)", err)
	}
	cfg, err = Parse(`clipboard = "off"`)
	if err != nil || cfg.ProgramClipboard {
		t.Fatalf("clipboard = off: %v %v", cfg.ProgramClipboard, err)
	}
}

// remain_on_exit: by default a shell's clean exit closes its pane (issue 42 item 15); on keeps
// every ended pane.
func TestRemainOnExit(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{``: false, `remain_on_exit = "failed"`: false, `remain_on_exit = "on"`: true} {
		cfg, err := Parse(text)
		if err != nil {
			t.Errorf("%q: %v", text, err)
		} else if cfg.RemainOnExit != want {
			t.Errorf("%q: RemainOnExit %v, want %v", text, cfg.RemainOnExit, want)
		}
	}
}

func TestNotifyAndJournalSettings(t *testing.T) {
	t.Parallel()
	cfg, err := Parse(``)
	if err != nil || cfg.Notify != NotifyBell || cfg.NotifyCommand != "" || cfg.JournalMaxBytes != 32<<20 {
		t.Fatalf("defaults: notify %q, notify_command %q, journal %d (%v)", cfg.Notify, cfg.NotifyCommand, cfg.JournalMaxBytes, err)
	}
	cfg, err = Parse("notify = \"osc777\"\nnotify_command = \"notify-send tickmux\"\njournal_max_mb = 2")
	if err != nil || cfg.Notify != NotifyOSC777 || cfg.NotifyCommand != "notify-send tickmux" || cfg.JournalMaxBytes != 2<<20 {
		t.Fatalf("got notify %q, notify_command %q, journal %d (%v)", cfg.Notify, cfg.NotifyCommand, cfg.JournalMaxBytes, err)
	}
}

func TestNoColorWins(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	cfg, err := Parse("theme = \"light\"\n[colors]\nbadge = \"red\"")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Theme.Name != "no-color" {
		t.Fatalf("theme %s under NO_COLOR", cfg.Theme.Name)
	}
}

func TestLoadFromXDG(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if got := DefaultPath(); got != filepath.Join(dir, "tickmux", "config.toml") {
		t.Fatalf("path %s", got)
	}
	cfg, err := Load(DefaultPath())
	if err != nil || cfg.Path != "" {
		t.Fatalf("missing file: %v %+v", err, cfg)
	}
	// A file the person named must be there.
	named := filepath.Join(dir, "no-such.toml")
	if _, err := Load(named); err == nil || !strings.Contains(err.Error(), named) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing --config file: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "tickmux"), 0o700)
	os.WriteFile(DefaultPath(), []byte("scrollback = 42\n"), 0o600)
	cfg, err = Load(DefaultPath())
	if err != nil || cfg.Scrollback != 42 || cfg.Path == "" {
		t.Fatalf("load: %v %+v", err, cfg)
	}
	os.WriteFile(DefaultPath(), []byte("scrollback = \"many\"\n"), 0o600)
	if _, err := Load(DefaultPath()); err == nil || !strings.Contains(err.Error(), DefaultPath()) {
		t.Fatalf("a bad file's error does not name it: %v", err)
	}
}

// The example configs of docs/reference.md (every setting) and of the README are valid.
func TestReadmeExample(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, doc := range []string{"../docs/reference.md", "../README.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		start := strings.Index(text, "```toml\n")
		if start < 0 {
			t.Fatalf("%s has no toml block", doc)
		}
		block := text[start+len("```toml\n"):]
		block = block[:strings.Index(block, "```")]
		cfg, err := Parse(block)
		if err != nil {
			t.Fatalf("the config of %s: %v\n%s", doc, err, block)
		}
		if doc == "../docs/reference.md" {
			if a, _ := cfg.Keymap.Lookup(keymap.ModeRoot, keymap.MustParse("M-Left")); a != keymap.FocusLeft {
				t.Fatalf("the root binding of %s's config did not apply", doc)
			}
		}
	}
}

func TestRestoreSettings(t *testing.T) {
	cfg, err := Parse("")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Restore != RestoreAsk || cfg.RestoreScrollback || !slices.Equal(cfg.RestorePrograms, DefaultRestorePrograms) || cfg.RestoreEnv != nil {
		t.Fatalf("defaults: %q %v %v %v", cfg.Restore, cfg.RestoreScrollback, cfg.RestorePrograms, cfg.RestoreEnv)
	}
	cfg, err = Parse("restore = \"auto\"\nrestore_scrollback = true\nrestore_programs = [\"nvim\"]\nrestore_env = [\"VIRTUAL_ENV\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Restore != RestoreAuto || !cfg.RestoreScrollback || !slices.Equal(cfg.RestorePrograms, []string{"nvim"}) || !slices.Equal(cfg.RestoreEnv, []string{"VIRTUAL_ENV"}) {
		t.Fatalf("set: %q %v %v %v", cfg.Restore, cfg.RestoreScrollback, cfg.RestorePrograms, cfg.RestoreEnv)
	}
	for text, want := range map[string]string{
		`restore = "sometimes"`:     "use ask",
		`restore_env = ["A=B"]`:     "not a variable's name",
		`restore_scrollback = "on"`: "true or false",
	} {
		if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error saying %q", text, err, want)
		}
	}
}

func TestHosts(t *testing.T) {
	cfg, err := Parse("[[hosts]]\nname = \"gpu\"\nssh = \"me@gpu\"\nssh_args = [\"-F\", \"/x\"]\n\n[[hosts]]\nname = \"b\"\nssh = \"b\"\ntickmux = \"/opt/tickmux\"\nsocket = \"/run/t.sock\"\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{Name: "gpu", SSH: "me@gpu", SSHArgs: []string{"-F", "/x"}, Tickmux: "tickmux"}, {Name: "b", SSH: "b", Tickmux: "/opt/tickmux", Socket: "/run/t.sock"}}
	if !reflect.DeepEqual(cfg.Hosts, want) {
		t.Fatalf("hosts = %+v, want %+v", cfg.Hosts, want)
	}
	for text, want := range map[string]string{
		"[[hosts]]\nname = \"a b\"\nssh = \"x\"\n":                                     "use letters",
		"[[hosts]]\nname = \"local\"\nssh = \"x\"\n":                                   "this machine's name",
		"[[hosts]]\nname = \"a\"\nssh = \"-oProxyCommand=x\"\n":                        "destination",
		"[[hosts]]\nname = \"a\"\n":                                                    "destination",
		"[[hosts]]\nname = \"a\"\nssh = \"x\"\n[[hosts]]\nname = \"a\"\nssh = \"y\"\n": "named twice",
		"[[hosts]]\nname = \"a\"\nssh = \"x\"\nport = 22\n":                            "unknown setting",
	} {
		if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error saying %q", text, err, want)
		}
	}
}
