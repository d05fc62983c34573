package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"tickmux/internal/flagusage"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// runSetup is `tickmux setup claude-code|codex [--write]`: the settings that make the agent ask
// through tickmux (its permission hook) and reach tickmux over MCP. Alone it prints them; with
// --write it merges them into the user's files, keeping what is there, after a backup.
func runSetup(args []string, std stdio) int {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(std.err)
	write := fs.Bool("write", false, "merge the settings into the agent's files (a backup of each is kept beside it)")
	fs.Usage = func() {
		usageHead(std.err, "setup")
		flagusage.Print(std.err, fs)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintf(std.err, "tickmux setup: cannot find your home directory: %v; set HOME\n", err)
		return 1
	}
	exe := setupCommand()
	var files []setupFile
	switch pos[0] {
	case "claude-code":
		files = claudeSetup(home, exe)
	case "codex":
		files = codexSetup(home, exe)
	default:
		fmt.Fprintf(std.err, "tickmux setup: unknown agent %q: use claude-code or codex\n", pos[0])
		return 2
	}
	if !*write {
		for _, f := range files {
			fmt.Fprintf(std.out, "# %s: %s\n%s\n", f.path, f.what, f.snippet)
		}
		fmt.Fprintf(std.out, "# tickmux setup %s --write merges these into the files above (each is backed up first).\n", pos[0])
		if pos[0] == "claude-code" {
			dir, _ := os.Getwd()
			for _, n := range claudeModeNotes(files[0].path, dir) {
				fmt.Fprintf(std.out, "# %s\n", n)
			}
		}
		printSetupNotes(std.out, pos[0])
		return 0
	}
	for _, f := range files {
		msg, err := f.write(time.Now())
		if err != nil {
			fmt.Fprintf(std.err, "tickmux setup: %s: %v\n", f.path, err)
			return 1
		}
		fmt.Fprintf(std.out, "%s: %s\n", f.path, msg)
	}
	if pos[0] == "claude-code" {
		dir, _ := os.Getwd()
		for _, n := range claudeModeNotes(files[0].path, dir) {
			if !strings.HasPrefix(n, files[0].path+":") { // the user's own was just set
				fmt.Fprintf(std.out, "%s\n", n)
			}
		}
	}
	printSetupNotes(std.out, pos[0])
	return 0
}

func printSetupNotes(w io.Writer, agent string) {
	fmt.Fprintln(w, "# The hook asks the running tickmux (the one whose pane the agent runs in, else the default socket's); with none running, or nobody to answer, the agent asks on its own prompt.")
	if agent == "codex" {
		fmt.Fprintln(w, "# Codex runs a new or changed hook only once you trust it: it asks at its next start (\"Trust all and continue\"), or type /hooks in Codex.")
	}
}

// setupCommand is how the agents' settings name tickmux: "tickmux" when PATH finds this very
// executable by that name, else its absolute path (quoted for a shell when it needs to be).
func setupCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "tickmux"
	}
	if found, err := exec.LookPath("tickmux"); err == nil && sameFile(found, self) {
		return "tickmux"
	}
	if strings.ContainsAny(self, " \t'\"\\$`") {
		return strconv.Quote(self)
	}
	return self
}

// setupFile is one file an agent reads and what tickmux adds to it.
type setupFile struct {
	path, what string
	snippet    string
	// merge returns the file's new content from its current one ("" when it does not exist) and
	// what it did to it, each in a phrase a person reads ("added the MCP server tickmux"), none
	// when nothing changed; it keeps everything that is there. Notes are what it has to say
	// without changing anything (a choice of the person's it left).
	merge func(old []byte) (out []byte, did, notes []string, err error)
}

// hookTimeout is the timeout the hooks are registered with, in seconds; the hook gives up a little
// before it (agent.DefaultHookTimeout).
const hookTimeout = 600

// claudeSetup: the hook in settings.json, the MCP server in .claude.json (both in
// $CLAUDE_CONFIG_DIR when it is set, else in ~/.claude and ~).
func claudeSetup(home, exe string) []setupFile {
	settings, state := filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude.json")
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		settings, state = filepath.Join(dir, "settings.json"), filepath.Join(dir, ".claude.json")
	}
	hookCmd := exe + " hook claude-code"
	events := map[string]any{}
	groups := map[string]map[string]any{}
	for _, e := range claudeEvents {
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCmd, "timeout": e.timeout}}}
		if e.matcher != "" {
			g["matcher"] = e.matcher
		}
		groups[e.name] = g
		events[e.name] = []any{g}
	}
	hooks := map[string]any{"hooks": events, "permissions": map[string]any{"defaultMode": "default"}}
	mcp := map[string]any{"hasSeenAutoDefaultNudge": true, "mcpServers": map[string]any{"tickmux": map[string]any{"type": "stdio", "command": strings.Trim(exe, `"`), "args": []any{"mcp"}}}}
	settingsFile := setupFile{path: settings, what: "the hooks (PermissionRequest, and the events that show the agent's state)", snippet: indent(hooks)}
	settingsFile.merge = func(old []byte) ([]byte, []string, []string, error) {
		return mergeJSON(old, func(m map[string]any) (did, notes []string, err error) {
			var added []string
			hm, err := objectAt(m, "hooks")
			if err != nil {
				return nil, nil, err
			}
			for _, e := range claudeEvents {
				list, _ := hm[e.name].([]any)
				if hm[e.name] != nil && list == nil {
					return nil, nil, fmt.Errorf(`"hooks.%s" is not a list; fix it by hand, then run setup again`, e.name)
				}
				found := false
				for _, g := range list {
					found = found || hasHookCommand(g, " hook claude-code")
				}
				if !found {
					hm[e.name] = append(list, groups[e.name])
					added = append(added, e.name)
				}
			}
			if len(added) > 0 {
				did = append(did, addedHooks(added, len(claudeEvents)))
			}
			modeChanged, said, err := claudeDefaultMode(m)
			switch {
			case err != nil:
				return nil, nil, err
			case modeChanged:
				did = append(did, said)
			case said != "":
				notes = append(notes, said)
			}
			return did, notes, nil
		})
	}
	return []setupFile{
		settingsFile,
		{path: state, what: "the MCP server (user scope; `claude mcp add --scope user tickmux -- tickmux mcp` does the same)", snippet: indent(mcp), merge: func(old []byte) ([]byte, []string, []string, error) {
			return mergeJSON(old, func(m map[string]any) (did, notes []string, err error) {
				servers, err := objectAt(m, "mcpServers")
				if err != nil {
					return nil, nil, err
				}
				if servers["tickmux"] == nil {
					servers["tickmux"] = mcp["mcpServers"].(map[string]any)["tickmux"]
					did = append(did, "added the MCP server tickmux (user scope; `claude mcp add --scope user tickmux -- tickmux mcp` does the same)")
				}
				// The nudge at start ("Make auto mode your default permission mode?", Yes
				// preselected) would turn the cards off again with one Enter.
				if m["hasSeenAutoDefaultNudge"] != true {
					m["hasSeenAutoDefaultNudge"] = true
					did = append(did, `set hasSeenAutoDefaultNudge, so that Claude Code does not ask at start to make auto mode the default (Yes preselected: one Enter would turn the cards off)`)
				}
				return did, nil, nil
			})
		}},
	}
}

// addedHooks says which of an agent's hook events setup added tickmux's hook for (of all, when
// it added every one).
func addedHooks(events []string, all int) string {
	if len(events) == all {
		return "added the hooks (PermissionRequest, and the events that show the agent's state: " + strings.Join(events[1:], ", ") + ")"
	}
	return "added the hooks for " + strings.Join(events, ", ") + " (the others were there)"
}

// claudeDefaultMode makes Claude Code ask (so that its prompts, and so the cards, come): its
// permissions.defaultMode "auto" (the default since 2.1.3xx when unset) lets a classifier decide
// and runs no PermissionRequest hook. Unset or "auto" becomes "default"; a mode the person chose
// that asks even less (acceptEdits, bypassPermissions, dontAsk) is left, and said.
func claudeDefaultMode(m map[string]any) (changed bool, said string, err error) {
	perms, err := objectAt(m, "permissions")
	if err != nil {
		return false, "", err
	}
	switch mode, _ := perms["defaultMode"].(string); {
	case perms["defaultMode"] == nil || mode == "auto":
		perms["defaultMode"] = "default"
		was := "unset, which is auto"
		if mode == "auto" {
			was = `"auto"`
		}
		return true, fmt.Sprintf(`set permissions.defaultMode to "default" (it was %s): in auto mode Claude Code asks nothing, so no card would come`, was), nil
	case mode == "default" || mode == "plan":
		return false, "", nil
	default:
		return false, claudeModeWarning(fmt.Sprintf("%q", mode)), nil
	}
}

// claudeModeWarning says what a permission mode that asks less than "default" does to the cards.
func claudeModeWarning(mode string) string {
	return fmt.Sprintf("permissions.defaultMode is %s: Claude Code then runs some tools without asking, and those never come as cards; setup leaves your choice (set it to \"default\" for a card at every prompt)", mode)
}

// claudeModeNotes reads the settings Claude Code will use here (the user's, then this
// directory's project and local settings, which win) and says when they will bypass the cards.
func claudeModeNotes(userSettings, dir string) []string {
	var notes []string
	for _, p := range []string{userSettings, filepath.Join(dir, ".claude", "settings.json"), filepath.Join(dir, ".claude", "settings.local.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			if p == userSettings {
				notes = append(notes, p+": permissions.defaultMode is unset, which is auto: Claude Code asks nothing, so no card comes; --write sets \"default\"")
			}
			continue
		}
		var s struct {
			Permissions struct {
				DefaultMode *string `json:"defaultMode"`
			} `json:"permissions"`
		}
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		switch mode := s.Permissions.DefaultMode; {
		case mode == nil && p == userSettings:
			notes = append(notes, p+": permissions.defaultMode is unset, which is auto: Claude Code asks nothing, so no card comes; --write sets \"default\"")
		case mode == nil, *mode == "default", *mode == "plan":
		case *mode == "auto" && p == userSettings:
			notes = append(notes, p+`: permissions.defaultMode is "auto": Claude Code asks nothing, so no card comes; --write sets "default"`)
		default:
			notes = append(notes, p+": "+claudeModeWarning(fmt.Sprintf("%q", *mode)))
		}
	}
	return notes
}

// setupEvent is one hook event setup registers tickmux for.
type setupEvent struct {
	name, matcher string
	timeout       int // seconds
}

// claudeEvents: the permission prompt (a card), and the events that keep the agent's state on its
// pane (answered at once; a short timeout).
var claudeEvents = []setupEvent{
	{"PermissionRequest", "*", hookTimeout},
	{"SessionStart", "", 10}, {"SessionEnd", "", 10}, {"UserPromptSubmit", "", 10},
	{"PreToolUse", "*", 10}, {"PostToolUse", "*", 10}, {"Notification", "", 10}, {"Stop", "", 10},
}

// codexEvents are Codex's: it has no Notification event, and clamps a SessionEnd hook's timeout to
// 3 s (with a warning at start when it is longer).
var codexEvents = []setupEvent{
	{"PermissionRequest", "*", hookTimeout},
	{"SessionStart", "", 10}, {"SessionEnd", "", 3}, {"UserPromptSubmit", "", 10},
	{"PreToolUse", "*", 10}, {"PostToolUse", "*", 10}, {"Stop", "", 10},
}

// hasHookCommand reports whether a hook group (a matcher and its hooks) runs a command ending in
// suffix.
func hasHookCommand(group any, suffix string) bool {
	g, _ := group.(map[string]any)
	hs, _ := g["hooks"].([]any)
	for _, h := range hs {
		hm, _ := h.(map[string]any)
		if c, _ := hm["command"].(string); strings.HasSuffix(strings.TrimSpace(c), suffix) || strings.Contains(c, suffix+" ") {
			return true
		}
	}
	return false
}

// objectAt returns m[key] as an object, making it when absent.
func objectAt(m map[string]any, key string) (map[string]any, error) {
	switch v := m[key].(type) {
	case nil:
		o := map[string]any{}
		m[key] = o
		return o, nil
	case map[string]any:
		return v, nil
	}
	return nil, fmt.Errorf("%q is not an object; fix it by hand, then run setup again", key)
}

// mergeJSON applies change to the JSON object in old (an empty object when old is empty) and
// returns it indented. Everything in the file is kept; the keys come out sorted.
func mergeJSON(old []byte, change func(map[string]any) (did, notes []string, err error)) ([]byte, []string, []string, error) {
	m := map[string]any{}
	if len(bytes.TrimSpace(old)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(old))
		dec.UseNumber() // numbers stay as written
		if err := dec.Decode(&m); err != nil {
			return nil, nil, nil, fmt.Errorf("the file is not a JSON object (%v); fix it, then run setup again", err)
		}
	}
	did, notes, err := change(m)
	if err != nil || len(did) == 0 {
		return old, nil, notes, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, nil, nil, err
	}
	return b.Bytes(), did, notes, nil
}

func indent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// codexSetup: the MCP server and the hook as inline tables in ~/.codex/config.toml ($CODEX_HOME
// when it is set). The tables are appended as text, so the file's comments and layout stay.
func codexSetup(home, exe string) []setupFile {
	dir := filepath.Join(home, ".codex")
	if d := os.Getenv("CODEX_HOME"); d != "" {
		dir = d
	}
	path := filepath.Join(dir, "config.toml")
	bin := strings.Trim(exe, `"`)
	// Codex starts MCP servers with a pruned environment (HOME, PATH, USER, LANG and the like):
	// env_vars passes on the two that say where the person's tickmux listens.
	mcpBlock := fmt.Sprintf("[mcp_servers.tickmux]\ncommand = %s\nargs = [\"mcp\"]\n%s\n", tomlString(bin), codexEnvVars)
	block := func(e setupEvent) string {
		b := fmt.Sprintf("[[hooks.%s]]\n", e.name)
		if e.matcher != "" {
			b += fmt.Sprintf("matcher = %s\n", tomlString(e.matcher))
		}
		return b + fmt.Sprintf("[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n", e.name, tomlString(exe+" hook codex"), e.timeout)
	}
	snippet := mcpBlock
	for _, e := range codexEvents {
		snippet += "\n" + block(e)
	}
	snippet += "\n" + codexFeaturesBlock
	return []setupFile{{path: path, what: "the MCP server, the hooks (PermissionRequest, and the events that show the agent's state) and daemon_auto_start = false", snippet: snippet,
		merge: func(old []byte) ([]byte, []string, []string, error) {
			var cur struct {
				MCPServers map[string]any `toml:"mcp_servers"`
				Hooks      map[string]any `toml:"hooks"`
				Features   map[string]any `toml:"features"`
			}
			if err := toml.Unmarshal(old, &cur); err != nil {
				return nil, nil, nil, fmt.Errorf("the file is not valid TOML (%v); fix it, then run setup again", err)
			}
			var add, did, notes []string
			switch t, _ := cur.MCPServers["tickmux"].(map[string]any); {
			case cur.MCPServers["tickmux"] == nil:
				add = append(add, mcpBlock)
				did = append(did, "added the MCP server tickmux")
			case t != nil && t["env_vars"] == nil:
				// An earlier setup's table, written before it passed the socket's variables on.
				var err error
				if old, err = withLineUnder(old, "[mcp_servers.tickmux]", codexEnvVars, "tickmux's MCP server table has no env_vars"); err != nil {
					return nil, nil, nil, err
				}
				did = append(did, "added "+codexEnvVars+" to the MCP server tickmux")
			}
			var events []string
			for _, e := range codexEvents {
				groups, _ := cur.Hooks[e.name].([]any)
				found := false
				for _, g := range groups {
					found = found || hasHookCommand(g, " hook codex")
				}
				if !found {
					add = append(add, block(e))
					events = append(events, e.name)
				}
			}
			if len(events) > 0 {
				did = append(did, addedHooks(events, len(codexEvents)))
			}
			// Codex's background app-server (its daemon) outlives the TUI and runs the next
			// session's hooks outside the pane: without it each codex runs its own, in the pane.
			switch v, set := cur.Features["daemon_auto_start"]; {
			case cur.Features == nil && bytes.Contains(old, []byte("features")):
				// Written in a form (a dotted key, an inline table) setup does not edit.
				return nil, nil, nil, fmt.Errorf("setup cannot place daemon_auto_start in this file's [features]; add `%s` to it by hand", codexDaemonOff)
			case cur.Features == nil:
				add = append(add, codexFeaturesBlock)
				did = append(did, "set "+codexDaemonOff+" under [features]"+codexDaemonWhy)
			case !set:
				var err error
				if old, err = withLineUnder(old, "[features]", codexDaemonOff, "the [features] table has no daemon_auto_start"); err != nil {
					return nil, nil, nil, err
				}
				did = append(did, "set "+codexDaemonOff+" under [features]"+codexDaemonWhy)
			case v != false:
				notes = append(notes, fmt.Sprintf("[features] daemon_auto_start is %v: setup leaves your choice, but a codex started after another in the same pane then runs its hooks in Codex's background app-server, outside the pane, and its cards say \"a terminal outside tickmux\" (set it to false)", v))
			}
			if len(add) == 0 {
				return old, did, notes, nil
			}
			out := append([]byte(nil), old...)
			if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, '\n')
			}
			out = append(out, "\n# Added by tickmux setup codex: Codex asks through tickmux's cards.\n"...)
			out = append(out, strings.Join(add, "\n")...)
			var check map[string]any
			if err := toml.Unmarshal(out, &check); err != nil {
				return nil, nil, nil, fmt.Errorf("the file's own tables clash with what setup adds (%v); add the lines `tickmux setup codex` prints by hand", err)
			}
			return out, did, notes, nil
		}}}
}

// codexDaemonOff keeps Codex from handing its sessions to a background app-server (a daemon)
// that outlives the TUI: that daemon, not the pane's codex, would run the next session's hooks,
// and tickmux would find no pane for them (issue 44 item 4).
const (
	codexDaemonOff     = "daemon_auto_start = false"
	codexFeaturesBlock = "[features]\n" + codexDaemonOff + "\n"
	codexDaemonWhy     = " (else Codex's background app-server outlives its TUI and runs the next session's hooks outside the pane, whose cards then say \"a terminal outside tickmux\")"
)

// codexEnvVars is the line of Codex's MCP server table that passes the socket's variables on.
const codexEnvVars = `env_vars = ["TICKMUX_SOCKET", "XDG_RUNTIME_DIR"]`

// withLineUnder puts line in config's table under its header line (written alone on its line,
// once); a table written in another form is left to the person: the error (what is missing)
// names the line to add.
func withLineUnder(config []byte, header, line, missing string) ([]byte, error) {
	lines := strings.SplitAfter(string(config), "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == header {
			if at >= 0 {
				at = -1
				break
			}
			at = i
		}
	}
	manual := fmt.Errorf("%s, and setup cannot place it in this file's form; add `%s` to it by hand", missing, line)
	if at < 0 {
		return nil, manual
	}
	out := strings.Join(lines[:at+1], "")
	if !strings.HasSuffix(out, "\n") { // the header is the file's last line
		out += "\n"
	}
	out += line + "\n" + strings.Join(lines[at+1:], "")
	if toml.Unmarshal([]byte(out), new(map[string]any)) != nil {
		return nil, manual
	}
	return []byte(out), nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	b, _ := json.Marshal(s) // JSON's escapes are TOML's for a basic string
	return string(b)
}

// write merges the settings into the file: a backup of the file as it was is kept beside it
// (path.tickmux-backup-TIME), and the new content replaces it in one rename.
func (f setupFile) write(now time.Time) (string, error) {
	old, err := os.ReadFile(f.path)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return "", fmt.Errorf("cannot read it: %w", err)
	default:
		if st, err := os.Stat(f.path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	out, did, notes, err := f.merge(old)
	if err != nil {
		return "", err
	}
	var said string // the notes, each on a line of its own after the message
	for _, n := range notes {
		said += "\n" + f.path + ": " + n
	}
	if len(did) == 0 {
		return "already set up: " + f.what + " (left as it was)" + said, nil
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return "", err
	}
	msg := strings.Join(did, "; ")
	if old != nil {
		backup := f.path + ".tickmux-backup-" + now.UTC().Format("20060102T150405Z")
		if err := os.WriteFile(backup, old, mode); err != nil {
			return "", fmt.Errorf("cannot write the backup, so nothing was changed: %w", err)
		}
		msg += "; the file as it was is in " + backup
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return "", err
	}
	return msg + said, nil
}
