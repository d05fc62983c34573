package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tickmux/host"
)

// Claude Code 2.1.197 in a sandboxed pane (prefix S): set up from inside the sandbox, it calls a
// Tick through tickmux's MCP server (tickmux mcp on the agent socket), which shows the call's card;
// its Edit's permission hook is answered through the agent socket (a card, y), and the file changes
// on disk, outside the sandbox.
func TestEndToEndClaudeCodeInASandbox(t *testing.T) {
	claude := claudeCode(t)
	if _, err := host.SandboxAvailable(); err != nil {
		if os.Getenv("CI") == "true" { // scripts/install-test-deps installs bubblewrap: a skip would hide its absence
			t.Fatalf("no sandbox here: %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
	r := newTmuxRig(t)
	// The pinned Claude Code lies in this checkout, which may be under /tmp (a CI clone): the
	// sandbox's /tmp is its own, so the checkout's package is made visible through sandbox_write
	// (as a person whose agent is installed somewhere the sandbox hides would).
	pkg, _ := filepath.Abs(claudeCodeDir)
	conf := filepath.Join(r.mkdir("tickmux"), "config.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("sandbox_write = [\"~\", %q]\n", pkg)), 0o600); err != nil {
		t.Fatal(err)
	}
	// Under the rig's HOME, which a sandboxed pane may write (sandbox_write's default).
	work, cfg := r.mkdir("work"), r.mkdir("claude-config")
	if err := os.WriteFile(filepath.Join(work, "f.txt"), []byte("one\nalpha\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	claudeState(t, cfg, work, "2.1.197", nil)
	stub := &messagesStub{script: map[string][]toolCall{
		"CALLTICK": {{"mcp__tickmux__call_tick", map[string]any{"id": "hosted:1", "tool": "increment", "args": map[string]any{"amount": 2}}}},
		"EDITFILE": {{"Read", map[string]any{"file_path": filepath.Join(work, "f.txt")}},
			{"Edit", map[string]any{"file_path": filepath.Join(work, "f.txt"), "old_string": "alpha", "new_string": "beta"}}},
	}}
	api := httptest.NewServer(stub)
	defer api.Close()

	// tickmux with the counter Tick, started in work: prefix S opens the sandboxed shell there.
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "e2e", "-c", work, r.self+" -- "+r.self+" example counter")
	r.waitFor("hosted:1 Counter · ready")
	r.prefix("S", "shell:1  sandboxed  sh · ready")
	// Set up from inside: the settings name the tickmux the sandbox finds on PATH.
	r.typeLine("CLAUDE_CONFIG_DIR="+cfg+" tickmux setup claude-code --write >/dev/null; echo SETUP=$?", "SETUP=0")
	r.typeLine(fmt.Sprintf("DISABLE_AUTOUPDATER=1 ANTHROPIC_BASE_URL=%s ANTHROPIC_API_KEY=dummy CLAUDE_CONFIG_DIR=%s %s --debug-file %s",
		api.URL, cfg, claude, filepath.Join(r.dir, "claude-debug.log")), "Claude Code v2.1.197")
	r.waitFor("shell:1  sandboxed  Claude Code started")

	// An MCP tool: Claude Code's permission card, then tickmux's card for the Tick's mutating call.
	r.prompt("please CALLTICK")
	r.waitFor("MCP tool call_tick")
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFor("wants to call increment on hosted:1")
	r.prefix("a", "allow once")
	r.keys("y")
	waitUntilTrue(func() bool { return len(stub.results()) >= 1 })
	if res := stub.results(); len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, `"value"`) {
		t.Fatalf("call_tick through Claude Code in the sandbox gave %+v:\n%s", res, r.screen())
	}
	if out, _ := r.cli("read", "hosted:1").CombinedOutput(); !strings.Contains(string(out), `"value": 2`) && !strings.Contains(string(out), `"value":2`) {
		t.Errorf("the counter after the call:\n%s", out)
	}

	// An Edit: its hook asks through the agent socket; y writes the file, seen from outside.
	r.prompt("please EDITFILE")
	s := r.waitFor("Claude Code wants to run its tool Edit in shell:1")
	if card := s[strings.Index(s, "Claude Code wants to run its tool Edit"):]; !strings.Contains(card, "-alpha") || !strings.Contains(card, "+beta") {
		t.Fatalf("the card does not show the diff:\n%s", s)
	}
	if !strings.Contains(s, "shell:1  sandboxed  Claude Code") || !strings.Contains(s, "shell:1  sandboxed  /bin/sh  ready") {
		t.Errorf("the border and the panel do not say Claude Code's pane is sandboxed:\n%s", s)
	}
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFile(filepath.Join(work, "f.txt"), "one\nbeta\nthree\n")
	r.waitFor("shell:1  sandboxed  Claude Code done")
	r.prompt("/exit")
	r.waitFor("Resume this session with")
}
