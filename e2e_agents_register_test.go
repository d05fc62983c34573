package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue 44, done when: docs/agents.md's "Register tickmux with an agent" lines run as written with
// the pinned Claude Code (2.1.197 and 2.1.328) and Codex, each in a home of the test's own, and
// leave tickmux registered as `tickmux mcp`.
func TestAgentsDocRegisterLinesRun(t *testing.T) {
	doc, err := os.ReadFile("docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^((claude|codex) mcp add [^#\n]*?)\s*#`).FindAllSubmatch(doc, -1) {
		lines[string(m[2])] = string(m[1])
	}
	if lines["claude"] == "" || lines["codex"] == "" {
		t.Fatalf("docs/agents.md gives no `claude mcp add` or `codex mcp add` line: %q", lines)
	}
	run := func(bin, line string, env ...string) (string, string) {
		t.Helper()
		home := t.TempDir()
		work := filepath.Join(home, "work")
		for _, d := range []string{work, filepath.Join(home, ".claude"), filepath.Join(home, ".codex")} {
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		args := strings.Fields(line)[1:]
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), append([]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
			"CODEX_HOME=" + filepath.Join(home, ".codex"), "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1"}, env...)...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s (as docs/agents.md writes it): %v\n%s", line, err, out)
		}
		return home, work
	}
	for _, c := range []struct{ what, dir string }{{"Claude Code", claudeCodeDir}, {"Claude Code 2.1.328", claudeCode328Dir}} {
		bin := pinnedAgent(t, c.what, c.dir, "claude")
		home, work := run(bin, lines["claude"])
		b, _ := os.ReadFile(filepath.Join(home, ".claude", ".claude.json"))
		// Local scope: the server is the work folder's, command tickmux, args [mcp].
		if !regexp.MustCompile(`(?s)"` + regexp.QuoteMeta(work) + `".*"tickmux":\s*\{[^}]*"command":\s*"tickmux"[^}]*"args":\s*\[\s*"mcp"\s*\]`).Match(b) {
			t.Errorf("%s: after %q, .claude.json does not register tickmux mcp for %s:\n%s", c.what, lines["claude"], work, b)
		}
	}
	home, _ := run(codexBin(t), lines["codex"])
	b, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if !regexp.MustCompile(`(?s)\[mcp_servers\.tickmux\]\s*command = "tickmux"\s*args = \["mcp"\]`).Match(b) {
		t.Errorf("Codex: after %q, config.toml does not register tickmux mcp:\n%s", lines["codex"], b)
	}
}
