package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// README "Let the agent use the tools": Claude Code in print mode (`claude -p`) refuses tickmux's
// MCP tools unless they are allowed, and `--allowedTools mcp__tickmux` allows them. The real
// Claude Code 2.1.197 runs `claude -p` with tickmux as its MCP server (`tickmux mcp`) against a
// loopback stand-in for the Messages API that asks for list_ticks; the tool's result, or its
// refusal, comes back in the model's next request.
func TestEndToEndClaudePrintModeNeedsAllowedTools(t *testing.T) {
	t.Parallel()
	claude := claudeCode(t)
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	work, cfg := r.mkdir("work"), r.mkdir("claude-config")
	state, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "lastOnboardingVersion": "2.1.197",
		"customApiKeyResponses": map[string]any{"approved": []string{"dummy"}, "rejected": []string{}}})
	if err := os.WriteFile(filepath.Join(cfg, ".claude.json"), state, 0o600); err != nil {
		t.Fatal(err)
	}
	// tickmux mcp as Claude Code starts it, on the rig's socket (the test binary plays tickmux).
	env := map[string]string{}
	for _, kv := range r.env {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == envAsMain || strings.HasPrefix(k, "XDG_")) {
			env[k] = v
		}
	}
	mcpConfig, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"tickmux": map[string]any{"command": r.self, "args": []string{"mcp", "--socket", r.socket}, "env": env}}})
	stub := &messagesStub{script: map[string][]toolCall{"LISTTICKS": {{"mcp__tickmux__list_ticks", map[string]any{}}}}}
	api := httptest.NewServer(stub)
	defer api.Close()
	run := func(extra ...string) toolResult {
		t.Helper()
		before := len(stub.results())
		args := append(append([]string{"-p", "LISTTICKS"}, extra...), "--mcp-config", string(mcpConfig))
		cmd := exec.Command(claude, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "ANTHROPIC_BASE_URL="+api.URL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CONFIG_DIR="+cfg, "HOME="+r.dir,
			"DISABLE_AUTOUPDATER=1") // never update the machine's Claude Code (issue 44 item 9)
		out, err := cmd.CombinedOutput()
		seen := stub.results()
		if len(seen) == before {
			t.Fatalf("claude %q: the model never saw the tool's result (%v):\n%s", extra, err, out)
		}
		return seen[len(seen)-1]
	}
	res := run()
	t.Logf("without: %+v", res)
	if !res.IsError || !strings.Contains(res.Content, "permission") {
		t.Errorf("without --allowedTools, list_ticks gave %q: the README says print mode refuses it for want of permission", res.Content)
	}
	// The line docs/agents.md gives, as written (its "..." the prompt), with the test's MCP config.
	doc, err := os.ReadFile("docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`claude -p \"\\.\\.\\.\" ([^`]*)`").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/agents.md gives no `claude -p \"...\" ...` line for print mode")
	}
	res = run(strings.Fields(string(m[1]))...)
	t.Logf("with: %.200s", res.Content)
	if res.IsError || !strings.Contains(res.Content, "shell:1") {
		t.Errorf("with --allowedTools mcp__tickmux, list_ticks gave %q (error %v), want the list with shell:1", res.Content, res.IsError)
	}
}
