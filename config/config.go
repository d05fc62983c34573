// Package config reads tickmux's config file, $XDG_CONFIG_HOME/tickmux/config.toml:
//
//	theme = "dark"          # dark, light or high-contrast; NO_COLOR overrides it
//	prefix = "C-b"
//	scrollback = 10000      # lines kept per pane
//	side_panel = "auto"     # auto (shown at 100 columns or more), on, off
//	clipboard = "off"       # on: programs in panes may set the clipboard (OSC 52)
//	notify = "bell"         # a card waits: bell, osc9, osc777 or none, in every attached view
//	notify_command = ""     # with no view attached: run this (sh -c) with the card as JSON on stdin
//	journal_max_mb = 32     # the approval journal's files together, in MB
//	sandbox = "agents"      # panes run in a bubblewrap sandbox: off, agents (the panes agents open), all
//	sandbox_write = ["~"]   # what a sandboxed pane may write besides its own directory
//	pane_borders = "auto"   # boxed, shared (tmux's: one line between panes), auto (shared under 100x30)
//	restore = "ask"         # after a crash or reboot: ask, auto or off
//	restore_scrollback = false  # keep each pane's scrollback in the snapshot (output may hold secrets)
//	restore_programs = ["vi", "vim", "nvim", "emacs", "man", "less", "more", "tail", "top", "htop"]
//	restore_env = []        # environment variables a snapshot keeps, by name (none by default)
//
//	[[hosts]]               # a tickmux server on another machine, reached with ssh
//	name = "gpu"
//	ssh = "me@gpu.example"  # the destination, as ssh takes it
//	ssh_args = []           # before the destination, e.g. ["-F", "PATH"]
//	tickmux = "tickmux"     # its path there
//	socket = ""             # its server's socket there ("": its default)
//
//	[colors]                # any role of package themes: "FG [on BG] [bold|dim|italic|underline|reverse]"
//	border_focused = "#ff8700"
//
//	[keys.prefix]           # modes: prefix, root, card, panel, scroll, locked; "none" unbinds
//	"v" = "split-right"
//	"%" = "none"
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"tickmux/keymap"
	"tickmux/themes"
)

// Side panel settings.
const (
	PanelAuto = "auto"
	PanelOn   = "on"
	PanelOff  = "off"
)

// DefaultScrollback is how many lines a pane keeps when the config says nothing.
const DefaultScrollback = 10000

// File is the config file as written.
type File struct {
	Theme      string                       `toml:"theme"`
	Prefix     string                       `toml:"prefix"`
	Scrollback *int                         `toml:"scrollback"`
	SidePanel  string                       `toml:"side_panel"`
	Clipboard  string                       `toml:"clipboard"`
	Notify     string                       `toml:"notify"`
	NotifyCmd  string                       `toml:"notify_command"`
	JournalMB  *int                         `toml:"journal_max_mb"`
	Sandbox    string                       `toml:"sandbox"`
	SandboxW   *[]string                    `toml:"sandbox_write"`
	RemainOnEx string                       `toml:"remain_on_exit"`
	Borders    string                       `toml:"pane_borders"`
	Restore    string                       `toml:"restore"`
	RestoreSB  *bool                        `toml:"restore_scrollback"`
	RestorePrg *[]string                    `toml:"restore_programs"`
	RestoreEnv *[]string                    `toml:"restore_env"`
	Hosts      []HostFile                   `toml:"hosts"`
	Colors     map[string]string            `toml:"colors"`
	Keys       map[string]map[string]string `toml:"keys"`
}

// Config is what tickmux runs with.
type Config struct {
	Path       string // the file read, "" when there was none
	Theme      *themes.Theme
	Keymap     *keymap.Keymap
	Scrollback int
	SidePanel  string
	// ProgramClipboard lets programs in panes set the clipboard with OSC 52 (clipboard = "on").
	// Off by default, as tmux's set-clipboard external: copy mode still copies.
	ProgramClipboard bool
	// Notify is how a waiting card gets the person's attention in each attached view.
	Notify string
	// NotifyCommand runs (sh -c) with a waiting card's summary as JSON on stdin when no view is
	// attached; "" runs nothing.
	NotifyCommand string
	// JournalMaxBytes bounds the approval journal's files together.
	JournalMaxBytes int64
	// Sandbox says which panes run in a bubblewrap sandbox: SandboxOff, SandboxAgents (the panes
	// agents open, and those asked for) or SandboxAll.
	Sandbox string
	// SandboxWrite lists what a sandboxed pane may write besides its own directory (~ is $HOME);
	// nil means $HOME.
	SandboxWrite []string
	// RemainOnExit keeps every ended pane (remain_on_exit = "on"); by default ("failed") a shell
	// that exits with status 0 closes its pane, as tmux's do.
	RemainOnExit bool
	// PaneBorders is how panes are framed: BordersBoxed (each pane its own box), BordersShared
	// (tmux's: one line between panes, the title on it) or BordersAuto (shared when the
	// workspace is small).
	PaneBorders string
	// Restore is what a start finds a snapshot of a server that did not end by quit or
	// kill-server does with it: RestoreAsk, RestoreAuto or RestoreOff.
	Restore string
	// RestoreScrollback keeps each pane's scrollback (bounded) in the snapshots.
	RestoreScrollback bool
	// RestorePrograms are the programs a restore runs again in their shells; any other is
	// offered (Enter runs it again).
	RestorePrograms []string
	// RestoreEnv names the environment variables a snapshot keeps of each pane.
	RestoreEnv []string
	// Hosts are the tickmux servers on other machines, in the file's order.
	Hosts []Host
}

// HostFile is one [[hosts]] table as written.
type HostFile struct {
	Name    string   `toml:"name"`
	SSH     string   `toml:"ssh"`
	SSHArgs []string `toml:"ssh_args"`
	Tickmux string   `toml:"tickmux"`
	Socket  string   `toml:"socket"`
}

// Host is a tickmux server on another machine, reached with the person's ssh.
type Host struct {
	Name    string   // how tickmux names it: tabs, cards, ls
	SSH     string   // the destination, as ssh takes it
	SSHArgs []string // passed to ssh before the destination
	Tickmux string   // tickmux's path on that host ("tickmux" when not set)
	Socket  string   // the server's socket there ("": its default)
}

// Pane border settings.
const (
	BordersAuto   = "auto"
	BordersBoxed  = "boxed"
	BordersShared = "shared"
)

// Restore settings.
const (
	RestoreAsk  = "ask"
	RestoreAuto = "auto"
	RestoreOff  = "off"
)

// DefaultRestorePrograms are the programs a restore runs again by default (tmux-resurrect's).
var DefaultRestorePrograms = []string{"vi", "vim", "nvim", "emacs", "man", "less", "more", "tail", "top", "htop"}

// Sandbox settings (the host's policies).
const (
	SandboxOff    = "off"
	SandboxAgents = "agents"
	SandboxAll    = "all"
)

// Notify settings.
const (
	NotifyBell   = "bell"
	NotifyOSC9   = "osc9"
	NotifyOSC777 = "osc777"
	NotifyNone   = "none"
)

// DefaultJournalMB is the journal's bound when the config says nothing.
const DefaultJournalMB = 32

// DefaultPath is $XDG_CONFIG_HOME/tickmux/config.toml, or ~/.config/tickmux/config.toml.
func DefaultPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "tickmux", "config.toml")
}

// Default is the configuration without a file.
func Default() *Config {
	th := themes.Dark()
	if themes.NoColor() {
		th = themes.Monochrome()
	}
	return &Config{Theme: th, Keymap: keymap.Default(), Scrollback: DefaultScrollback, SidePanel: PanelAuto,
		Notify: NotifyBell, JournalMaxBytes: DefaultJournalMB << 20, Sandbox: SandboxAgents,
		Restore: RestoreAsk, RestorePrograms: slices.Clone(DefaultRestorePrograms), PaneBorders: BordersAuto}
}

// Load reads path. Only the default path (DefaultPath) may be missing, which gives the defaults:
// a file the person named (--config) that is not there is an error, not a silent start without
// it. Every problem is reported with the file's name, so the person can fix it.
func Load(path string) (*Config, error) {
	cfg := Default()
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if path == DefaultPath() {
			return cfg, nil
		}
		return nil, fmt.Errorf("the config file %s does not exist: check the path given to --config, or leave --config out to use %s", path, DefaultPath())
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the config file: %w", err)
	}
	cfg.Path = path
	if err := cfg.apply(string(data)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// Parse applies config text to the defaults.
func Parse(text string) (*Config, error) {
	cfg := Default()
	return cfg, cfg.apply(text)
}

func (cfg *Config) apply(text string) error {
	var f File
	if err := toml.NewDecoder(strings.NewReader(text)).DisallowUnknownFields().Decode(&f); err != nil {
		var unknown *toml.StrictMissingError
		if errors.As(err, &unknown) {
			var msgs []string
			for _, e := range unknown.Errors {
				key := strings.Join(e.Key(), ".")
				line, _ := e.Position()
				m := fmt.Sprintf("line %d: unknown setting %s", line, key)
				if near := nearestSetting(key); near != "" {
					m += fmt.Sprintf(" (did you mean %s?)", near)
				}
				msgs = append(msgs, m)
			}
			return fmt.Errorf("%s; the settings are %s, [colors], [keys.MODE] and [[hosts]] (docs/reference.md, CONFIGURATION)", strings.Join(msgs, "; "), strings.Join(settingNames(), ", "))
		}
		var bad *toml.DecodeError
		if errors.As(err, &bad) {
			line, col := bad.Position()
			return fmt.Errorf("line %d, column %d: %s", line, col, plainDecodeError(err.Error()))
		}
		return err
	}
	if f.Theme != "" && !themes.NoColor() {
		th, err := themes.ByName(f.Theme)
		if err != nil {
			return err
		}
		cfg.Theme = th
	}
	if !themes.NoColor() {
		roles := make([]string, 0, len(f.Colors))
		for r := range f.Colors {
			roles = append(roles, r)
		}
		sort.Strings(roles)
		for _, r := range roles {
			if err := cfg.Theme.Set(r, f.Colors[r]); err != nil {
				return err
			}
		}
	}
	if f.Prefix != "" {
		k, err := keymap.Parse(f.Prefix)
		if err != nil {
			return fmt.Errorf("prefix: %w", err)
		}
		cfg.Keymap.Prefix = k
	}
	modes := make([]string, 0, len(f.Keys))
	for m := range f.Keys {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	for _, m := range modes {
		keys := make([]string, 0, len(f.Keys[m]))
		for k := range f.Keys[m] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := cfg.Keymap.BindString(keymap.Mode(m), k, f.Keys[m][k]); err != nil {
				return fmt.Errorf("[keys.%s]: %w", m, err)
			}
		}
	}
	if f.Scrollback != nil {
		if *f.Scrollback < 0 || *f.Scrollback > 1_000_000 {
			return fmt.Errorf("scrollback = %d: use 0 to 1000000 lines", *f.Scrollback)
		}
		cfg.Scrollback = *f.Scrollback
	}
	switch f.SidePanel {
	case "":
	case PanelAuto, PanelOn, PanelOff:
		cfg.SidePanel = f.SidePanel
	default:
		return fmt.Errorf("side_panel = %q: use auto, on or off", f.SidePanel)
	}
	switch f.RemainOnEx {
	case "", "failed":
	case "on":
		cfg.RemainOnExit = true
	default:
		return fmt.Errorf("remain_on_exit = %q: use failed (a shell that exits with status 0 closes its pane) or on (every ended pane stays)", f.RemainOnEx)
	}
	switch f.Clipboard {
	case "", "off":
	case "on":
		cfg.ProgramClipboard = true
	default:
		return fmt.Errorf("clipboard = %q: use off (programs in panes cannot set the clipboard) or on", f.Clipboard)
	}
	switch f.Notify {
	case "":
	case NotifyBell, NotifyOSC9, NotifyOSC777, NotifyNone:
		cfg.Notify = f.Notify
	default:
		return fmt.Errorf("notify = %q: use bell, osc9, osc777 or none", f.Notify)
	}
	cfg.NotifyCommand = f.NotifyCmd
	if f.JournalMB != nil {
		if *f.JournalMB < 1 || *f.JournalMB > 4096 {
			return fmt.Errorf("journal_max_mb = %d: use 1 to 4096", *f.JournalMB)
		}
		cfg.JournalMaxBytes = int64(*f.JournalMB) << 20
	}
	switch f.Sandbox {
	case "":
	case SandboxOff, SandboxAgents, SandboxAll:
		cfg.Sandbox = f.Sandbox
	default:
		return fmt.Errorf("sandbox = %q: use off, agents (the panes agents open) or all", f.Sandbox)
	}
	if f.SandboxW != nil {
		cfg.SandboxWrite = append([]string{}, *f.SandboxW...)
		for _, p := range cfg.SandboxWrite {
			if p != "~" && !strings.HasPrefix(p, "~/") && !filepath.IsAbs(p) {
				return fmt.Errorf("sandbox_write: %q is not an absolute path (or one starting with ~/)", p)
			}
		}
	}
	switch f.Borders {
	case "":
	case BordersAuto, BordersBoxed, BordersShared:
		cfg.PaneBorders = f.Borders
	default:
		return fmt.Errorf("pane_borders = %q: use auto (shared on a terminal under 100x30), boxed or shared", f.Borders)
	}
	switch f.Restore {
	case "":
	case RestoreAsk, RestoreAuto, RestoreOff:
		cfg.Restore = f.Restore
	default:
		return fmt.Errorf("restore = %q: use ask (the first view asks), auto or off", f.Restore)
	}
	if f.RestoreSB != nil {
		cfg.RestoreScrollback = *f.RestoreSB
	}
	if f.RestorePrg != nil {
		cfg.RestorePrograms = slices.Clone(*f.RestorePrg)
	}
	if f.RestoreEnv != nil {
		cfg.RestoreEnv = slices.Clone(*f.RestoreEnv)
		for _, n := range cfg.RestoreEnv {
			if n == "" || strings.ContainsAny(n, "= \t\n") {
				return fmt.Errorf("restore_env: %q is not a variable's name", n)
			}
		}
	}
	hosts, err := parseHosts(f.Hosts)
	if err != nil {
		return err
	}
	cfg.Hosts = hosts
	return nil
}

// hostName is what a host may be named: it shows in tabs, cards and ls, and names files.
var hostName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$`)

// parseHosts checks the [[hosts]] tables: each named once, each with a destination.
func parseHosts(files []HostFile) ([]Host, error) {
	var hosts []Host
	seen := map[string]bool{}
	for i, f := range files {
		if !hostName.MatchString(f.Name) {
			return nil, fmt.Errorf("[[hosts]] #%d: name = %q: use letters, digits, '.', '_' or '-' (up to 32, starting with a letter or digit)", i+1, f.Name)
		}
		if f.Name == "local" {
			return nil, fmt.Errorf("[[hosts]] #%d: name = \"local\" is this machine's name in tickmux: choose another", i+1)
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("[[hosts]]: %q is named twice", f.Name)
		}
		seen[f.Name] = true
		if f.SSH == "" || strings.HasPrefix(f.SSH, "-") || strings.ContainsAny(f.SSH, " \t\n") {
			return nil, fmt.Errorf("[[hosts]] %s: ssh = %q: give the destination as ssh takes it (user@host, or a Host of ~/.ssh/config)", f.Name, f.SSH)
		}
		h := Host{Name: f.Name, SSH: f.SSH, SSHArgs: slices.Clone(f.SSHArgs), Tickmux: f.Tickmux, Socket: f.Socket}
		if h.Tickmux == "" {
			h.Tickmux = "tickmux"
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// settingNames are the top-level settings (File's toml names but the tables).
func settingNames() []string {
	var names []string
	t := reflect.TypeFor[File]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if name != "" && name != "colors" && name != "keys" && name != "hosts" {
			names = append(names, name)
		}
	}
	return names
}

// nearestSetting is the setting a mistyped key most likely meant: at most two edits away (or
// three for a long name), "" when none is that near.
func nearestSetting(key string) string {
	best, bestD := "", 0
	for _, n := range append(settingNames(), "colors", "keys", "hosts") {
		d := editDistance(strings.ToLower(key), n)
		if limit := min(2+len(n)/8, 3); d <= limit && (best == "" || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// decodeMismatch is go-toml's wording of a value of the wrong type.
var decodeMismatch = regexp.MustCompile(`cannot decode TOML (\w+) into (?:struct field \w+\.File\.(\w+) of type )?(\S+)`)

// plainDecodeError says a wrong type in the file's terms, not Go's: "scrollback takes a whole
// number, not a string".
func plainDecodeError(msg string) string {
	m := decodeMismatch.FindStringSubmatch(msg)
	if m == nil {
		return strings.TrimPrefix(msg, "toml: ")
	}
	got, field, want := m[1], m[2], m[3]
	name := "this value"
	if f, ok := reflect.TypeFor[File]().FieldByName(field); ok {
		n, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		name = n
	}
	words := map[string]string{"int": "a whole number", "string": "a string in quotes", "bool": "true or false", "[]string": "a list of strings in quotes ([\"...\"])"}
	w, ok := words[strings.TrimPrefix(want, "*")]
	if !ok {
		w = "another kind of value"
	}
	return fmt.Sprintf("%s takes %s, not %s %s", name, w, article(got), got)
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
