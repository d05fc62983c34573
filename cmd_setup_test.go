package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// setupIn runs `tickmux setup ARGS` with HOME at home and returns its output.
func setupIn(t *testing.T, home string, args ...string) string {
	t.Helper()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	var out, errw bytes.Buffer
	if code := run(append([]string{"setup"}, args...), stdio{in: strings.NewReader(""), out: &out, err: &errw}); code != 0 {
		t.Fatalf("setup %v exited %d: %s", args, code, errw.String())
	}
	return out.String()
}

func backups(t *testing.T, path string) []string {
	m, _ := filepath.Glob(path + ".tickmux-backup-*")
	return m
}

// TestSetupClaudeCodeMergesAndKeeps: --write adds the hook and the MCP server to the user's files,
// keeps every setting and hook already there, backs each file up first, and a second run changes
// nothing.
func TestSetupClaudeCodeMergesAndKeeps(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	before := `{"model":"opus","permissions":{"allow":["Bash(ls:*)"]},"hooks":{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"mine.sh"}]}],"Stop":[{"hooks":[{"type":"command","command":"notify.sh"}]}]},"cleanupPeriodDays":30}`
	if err := os.WriteFile(settings, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	out := setupIn(t, home, "claude-code", "--write")
	if !strings.Contains(out, "added the hooks") || !strings.Contains(out, "added the MCP server") {
		t.Fatalf("output:\n%s", out)
	}
	var got struct {
		Model       string
		Permissions struct {
			Allow       []string
			DefaultMode string
		}
		Cleanup json.Number `json:"cleanupPeriodDays"`
		Hooks   map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	b, _ := os.ReadFile(settings)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	pr := got.Hooks["PermissionRequest"]
	for _, e := range claudeEvents {
		if l := got.Hooks[e.name]; len(l) == 0 || !strings.HasSuffix(l[len(l)-1].Hooks[0].Command, " hook claude-code") {
			t.Errorf("no tickmux hook for %s:\n%s", e.name, b)
		}
	}
	if got.Model != "opus" || got.Permissions.Allow[0] != "Bash(ls:*)" || got.Permissions.DefaultMode != "default" || got.Cleanup != "30" || len(got.Hooks["Stop"]) != 2 || got.Hooks["Stop"][0].Hooks[0].Command != "notify.sh" ||
		len(pr) != 2 || pr[0].Hooks[0].Command != "mine.sh" || pr[1].Matcher != "*" ||
		!strings.HasSuffix(pr[1].Hooks[0].Command, " hook claude-code") || pr[1].Hooks[0].Timeout != 600 {
		t.Fatalf("settings after setup:\n%s", b)
	}
	if bk := backups(t, settings); len(bk) != 1 {
		t.Fatalf("backups %v, want one", bk)
	} else if old, _ := os.ReadFile(bk[0]); string(old) != before {
		t.Fatalf("the backup holds %q, want the file as it was", old)
	}
	if st, _ := os.Stat(settings); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want the file's own 0644", st.Mode().Perm())
	}
	var state struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	b, _ = os.ReadFile(filepath.Join(home, ".claude.json"))
	if err := json.Unmarshal(b, &state); err != nil || state.MCPServers["tickmux"].Args[0] != "mcp" {
		t.Fatalf(".claude.json after setup (%v):\n%s", err, b)
	}

	out = setupIn(t, home, "claude-code", "--write")
	if strings.Count(out, "already set up") != 2 || len(backups(t, settings)) != 1 {
		t.Fatalf("the second run changed something:\n%s", out)
	}
}

// TestSetupCodexAppendsToConfigToml: the MCP server and the hook are appended to config.toml,
// whose comments, tables and other hooks stay as they were; a second run changes nothing.
func TestSetupCodexAppendsToConfigToml(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(path), 0o700)
	before := "# my settings\nmodel = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\n[[hooks.PermissionRequest]]\nmatcher = \"Bash\"\n[[hooks.PermissionRequest.hooks]]\ntype = \"command\"\ncommand = \"mine.sh\"\n"
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	out := setupIn(t, home, "codex", "--write")
	for _, w := range []string{"added the MCP server tickmux; added the hooks (PermissionRequest, and the events", "set daemon_auto_start = false under [features]", "/hooks"} {
		if !strings.Contains(out, w) {
			t.Fatalf("setup did not say %q:\n%s", w, out)
		}
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), before) {
		t.Fatalf("the file's own lines changed:\n%s", b)
	}
	var cfg struct {
		Model      string
		MCPServers map[string]struct {
			Command string
			Args    []string
			EnvVars []string `toml:"env_vars"`
		} `toml:"mcp_servers"`
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
		Features map[string]any
	}
	if err := toml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("config.toml after setup is not TOML: %v\n%s", err, b)
	}
	// Codex gives MCP servers only the variables it lists (and a few of its own choice): the
	// socket's go through.
	if ev := cfg.MCPServers["tickmux"].EnvVars; !slices.Contains(ev, "TICKMUX_SOCKET") || !slices.Contains(ev, "XDG_RUNTIME_DIR") {
		t.Errorf("env_vars of the MCP server = %q, want the socket's variables", ev)
	}
	pr := cfg.Hooks["PermissionRequest"]
	if cfg.Model != "gpt-5" || cfg.MCPServers["docs"].Command != "docs-mcp" || cfg.MCPServers["tickmux"].Args[0] != "mcp" ||
		len(pr) != 2 || pr[0].Hooks[0].Command != "mine.sh" || !strings.HasSuffix(pr[1].Hooks[0].Command, " hook codex") || pr[1].Hooks[0].Timeout != 600 {
		t.Fatalf("config after setup: %+v\n%s", cfg, b)
	}
	for _, e := range codexEvents {
		if l := cfg.Hooks[e.name]; len(l) == 0 || !strings.HasSuffix(l[len(l)-1].Hooks[0].Command, " hook codex") {
			t.Errorf("no tickmux hook for %s:\n%s", e.name, b)
		}
	}
	// Codex's background app-server would run the next session's hooks outside the pane.
	if cfg.Features["daemon_auto_start"] != false {
		t.Errorf("[features] daemon_auto_start = %v, want false:\n%s", cfg.Features["daemon_auto_start"], b)
	}
	if bk := backups(t, path); len(bk) != 1 {
		t.Fatalf("backups %v, want one", bk)
	}
	out = setupIn(t, home, "codex", "--write")
	if !strings.Contains(out, "already set up") || len(backups(t, path)) != 1 {
		t.Fatalf("the second run changed something:\n%s", out)
	}
	// Printing alone writes nothing and shows the tables.
	fresh := t.TempDir()
	out = setupIn(t, fresh, "codex")
	if !strings.Contains(out, "[[hooks.PermissionRequest.hooks]]") || !strings.Contains(out, "[mcp_servers.tickmux]") {
		t.Fatalf("printed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(fresh, ".codex")); err == nil {
		t.Fatal("setup without --write wrote something")
	}
}

// TestSetupCodexAddsEnvVarsToAnEarlierSetup: a config.toml set up before the MCP server's table
// passed the socket's variables on gets env_vars under the table's header, the rest of the file as
// it was; a table in a form setup cannot edit safely is an error saying the line to add, and the
// file is left alone.
func TestSetupCodexAddsEnvVarsToAnEarlierSetup(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(path), 0o700)
	fresh := setupIn(t, t.TempDir(), "codex") // the printed tables: the hooks as setup writes them
	hooks := fresh[strings.Index(fresh, "\n[[hooks."):]
	hooks = hooks[:strings.LastIndex(hooks, "\n"+codexFeaturesBlock)] // the hooks alone
	earlier := "model = \"gpt-5\"\n\n[mcp_servers.tickmux]\ncommand = \"tickmux\"\nargs = [\"mcp\"]\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n" + hooks + "\n"
	if err := os.WriteFile(path, []byte(earlier), 0o600); err != nil {
		t.Fatal(err)
	}
	out := setupIn(t, home, "codex", "--write")
	b, _ := os.ReadFile(path)
	want := strings.Replace(earlier, "[mcp_servers.tickmux]\n", "[mcp_servers.tickmux]\n"+codexEnvVars+"\n", 1) +
		"\n# Added by tickmux setup codex: Codex asks through tickmux's cards.\n" + codexFeaturesBlock
	if string(b) != want {
		t.Fatalf("after setup (%s):\n%s\nwant:\n%s", out, b, want)
	}
	if out := setupIn(t, home, "codex", "--write"); !strings.Contains(out, "already set up") {
		t.Fatalf("the second run: %s", out)
	}

	if !strings.Contains(out, "added "+codexEnvVars+" to the MCP server tickmux; set daemon_auto_start = false") || strings.Contains(out, "added the MCP server tickmux") || strings.Contains(out, "added the hooks") {
		t.Errorf("setup does not say exactly what it added:\n%s", out)
	}

	// An inline table: setup says what to add and changes nothing.
	inline := "mcp_servers.tickmux = { command = \"tickmux\", args = [\"mcp\"] }\n" + hooks + "\n[features]\ndaemon_auto_start = false\n"
	if err := os.WriteFile(path, []byte(inline), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"setup", "codex", "--write"}, stdio{in: strings.NewReader(""), out: &stdout, err: &stderr}); code == 0 || !strings.Contains(stderr.String(), codexEnvVars) {
		t.Fatalf("setup on an inline table exited %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	if b, _ := os.ReadFile(path); string(b) != inline {
		t.Fatalf("the file changed:\n%s", b)
	}
}

// Issue 44 item 2: Claude Code's auto mode (its default when unset) asks nothing, so no card
// comes. --write sets permissions.defaultMode "default" (and marks the start's "make auto mode
// your default?" nudge seen, where one Enter would undo it), leaves a mode the person chose, and
// says each; without --write setup says which settings will bypass the cards.
func TestSetupClaudeCodePermissionMode(t *testing.T) {
	for _, c := range []struct {
		name, before, wantMode string
		say                    []string
	}{
		{"unset", `{}`, "default", []string{`added the hooks`, `set permissions.defaultMode to "default" (it was unset, which is auto)`}},
		{"auto, hooks there already", "", "default", []string{`: set permissions.defaultMode to "default" (it was "auto")`}},
		{"bypassPermissions", `{"permissions":{"defaultMode":"bypassPermissions"}}`, "bypassPermissions", []string{`permissions.defaultMode is "bypassPermissions": Claude Code then runs some tools without asking`}},
		{"default already", `{"permissions":{"defaultMode":"default"}}`, "default", []string{"added the hooks"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			settings := filepath.Join(home, ".claude", "settings.json")
			os.MkdirAll(filepath.Dir(settings), 0o700)
			before := c.before
			if before == "" { // an earlier setup's file: the hooks, and the mode auto
				setupIn(t, home, "claude-code", "--write")
				b, _ := os.ReadFile(settings)
				var m map[string]any
				json.Unmarshal(b, &m)
				m["permissions"] = map[string]any{"defaultMode": "auto"}
				nb, _ := json.Marshal(m)
				before = string(nb)
			}
			os.WriteFile(settings, []byte(before), 0o600)
			out := setupIn(t, home, "claude-code", "--write")
			for _, w := range c.say {
				if !strings.Contains(out, w) {
					t.Errorf("setup did not say %q:\n%s", w, out)
				}
			}
			if c.before == "" && strings.Contains(out, "added the hooks") {
				t.Errorf("setup says it added the hooks, which were there:\n%s", out)
			}
			var got struct{ Permissions struct{ DefaultMode string } }
			b, _ := os.ReadFile(settings)
			if json.Unmarshal(b, &got); got.Permissions.DefaultMode != c.wantMode {
				t.Errorf("defaultMode %q, want %q:\n%s", got.Permissions.DefaultMode, c.wantMode, b)
			}
			var state map[string]any
			b, _ = os.ReadFile(filepath.Join(home, ".claude.json"))
			if json.Unmarshal(b, &state); state["hasSeenAutoDefaultNudge"] != true {
				t.Errorf(".claude.json does not mark the auto-mode nudge seen:\n%s", b)
			}
		})
	}
	// Without --write: the user's unset mode, and a project's acceptEdits that wins over it.
	home, project := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(project, ".claude"), 0o700)
	os.WriteFile(filepath.Join(project, ".claude", "settings.local.json"), []byte(`{"permissions":{"defaultMode":"acceptEdits"}}`), 0o600)
	t.Chdir(project)
	out := setupIn(t, home, "claude-code")
	for _, w := range []string{`"defaultMode": "default"`, "permissions.defaultMode is unset, which is auto", `settings.local.json: permissions.defaultMode is "acceptEdits"`} {
		if !strings.Contains(out, w) {
			t.Errorf("setup without --write did not say %q:\n%s", w, out)
		}
	}
}

// TestSetupCodexTurnsTheDaemonOff (issue 44 item 4): Codex's background app-server outlives
// its TUI and runs the next session's hooks outside the pane; setup sets daemon_auto_start =
// false in the file's own [features] table when it has one, says so, and leaves a true the
// person wrote, saying what it costs.
func TestSetupCodexTurnsTheDaemonOff(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(path), 0o700)
	setupIn(t, home, "codex", "--write")
	b, _ := os.ReadFile(path)
	before := strings.Replace(string(b), codexFeaturesBlock, "[features]\nweb_search_request = true\n", 1)
	os.WriteFile(path, []byte(before), 0o600)
	out := setupIn(t, home, "codex", "--write")
	b, _ = os.ReadFile(path)
	if want := strings.Replace(before, "[features]\n", codexFeaturesBlock, 1); string(b) != want {
		t.Fatalf("after setup:\n%s\nwant:\n%s", b, want)
	}
	if !strings.Contains(out, ": set daemon_auto_start = false under [features] (else Codex's background app-server") {
		t.Errorf("setup did not say it:\n%s", out)
	}
	os.WriteFile(path, []byte(strings.Replace(string(b), codexDaemonOff, "daemon_auto_start = true", 1)), 0o600)
	out = setupIn(t, home, "codex", "--write")
	if !strings.Contains(out, "already set up") || !strings.Contains(out, "[features] daemon_auto_start is true: setup leaves your choice") {
		t.Errorf("with daemon_auto_start = true, setup said:\n%s", out)
	}
}
