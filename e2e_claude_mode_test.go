package main

// End-to-end with the real Claude Code 2.1.328 (testdata/claudecode-2.1.328) set up by tickmux
// and started as a person starts it: its default permission mode is auto, which asks nothing and
// runs no PermissionRequest hook, so no card would come (issue 44 item 2).

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndToEndClaudeCode328SetUpAsks: `tickmux setup claude-code --write` on a Claude Code
// 2.1.328 config of the test's own (HOME and CLAUDE_CONFIG_DIR in the test's directory), then
// claude started in a tickmux pane with no permission flag: no "Make auto mode your default
// permission mode?" question at start, manual mode on, and a Bash command that needs permission
// (a touch outside the work folder) shows a Bash card in tickmux; y lets it run.
func TestEndToEndClaudeCode328SetUpAsks(t *testing.T) {
	claude := pinnedAgent(t, "Claude Code 2.1.328", claudeCode328Dir, "claude")
	r := newTmuxRig(t) // HOME is the rig's directory
	work, cfg := r.mkdir("work"), r.mkdir("claude-config")
	// Onboarding done, the key approved and the folder trusted, as after a person's first run;
	// the auto-mode question not yet seen, and no settings.json: setup writes what it needs.
	claudeState(t, cfg, work, "2.1.328", nil)
	setup := r.cli("setup", "claude-code", "--write")
	setup.Env = append(setup.Env, "CLAUDE_CONFIG_DIR="+cfg, "HOME="+r.dir)
	setup.Dir = work
	out, err := setup.CombinedOutput()
	if err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	for _, w := range []string{`set permissions.defaultMode to "default"`, "set hasSeenAutoDefaultNudge"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("setup did not say %q:\n%s", w, out)
		}
	}

	outside := filepath.Join(r.dir, "outside.txt") // not in the work folder: default mode asks
	stub := &messagesStub{script: map[string][]toolCall{
		"TOUCHOUT": {{"Bash", map[string]any{"command": "touch " + outside, "description": "Touch a file outside the work folder"}}},
	}}
	api := httptest.NewServer(stub)
	defer api.Close()

	r.start()
	r.waitFor("shell:1")
	r.typeLine(fmt.Sprintf("cd %s && DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "+
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1 ANTHROPIC_BASE_URL=%s ANTHROPIC_API_KEY=dummy CLAUDE_CONFIG_DIR=%s %s --debug-file %s",
		work, api.URL, cfg, claude, filepath.Join(r.dir, "claude-debug.log")), "Claude Code v2.1.328")
	// The start: Claude Code's SessionStart hook ran (the border), its footer says manual mode,
	// and the question that one Enter would answer Yes (auto mode) did not come. Claude Code asks
	// it once its auto-mode gate is checked (its debug log says so), within 0.25 s of that here
	// when it asks: look for 2 s after.
	r.waitFor("shell:1 Claude Code started")
	r.waitFor("manual mode on")
	debugLog := filepath.Join(r.dir, "claude-debug.log")
	gate := func() bool {
		b, _ := os.ReadFile(debugLog)
		return strings.Contains(string(b), "verifyAutoModeGateAccess")
	}
	if waitUntilTrue(gate); !gate() {
		t.Fatalf("Claude Code's debug log never says it checked the auto-mode gate (has 2.1.328 changed?):\n%s", r.screen())
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if s := r.screen(); strings.Contains(s, "auto mode your default") || !strings.Contains(s, "manual mode on") {
			t.Fatalf("Claude Code asks to make auto mode the default, or left manual mode:\n%s", s)
		}
	}

	r.prompt("please TOUCHOUT")
	s := r.waitFor("Claude Code wants to run its tool Bash in shell:1")
	if !strings.Contains(s, "touch "+outside) {
		t.Fatalf("the card does not show the command:\n%s", s)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the command ran before the person answered")
	}
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFile(outside, "")
	r.waitFor("stub-saw-result is_error=false")
	r.prompt("/exit")
}
