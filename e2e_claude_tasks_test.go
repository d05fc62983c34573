package main

// End-to-end with the real Claude Code 2.1.328 (testdata/claudecode-2.1.328, pinned; installed
// by scripts/install-test-deps), which takes MCP tasks (SEP-2663): a mutating call_tick comes
// back as a task at once, the card waits in tickmux, and after y the model is sent the call's
// result in a task notification.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"tickmux/host/journal"
)

const claudeCode328Dir = "testdata/claudecode-2.1.328"

// notedStub is a messagesStub that keeps every request body holding a task notification
// (Claude Code puts it in a <system-reminder>, which the stub's script does not read).
type notedStub struct {
	*messagesStub
	mu    sync.Mutex
	notes []string
}

func (s *notedStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// Each notification once, however many later requests repeat it. (Tool descriptions mention
	// <task-notification> too: the task-id tag that follows is the notification's.)
	const start, end = `<task-notification>\n<task-id>`, `</task-notification>`
	for rest := string(body); ; {
		i := strings.Index(rest, start)
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], end)
		if j < 0 {
			break
		}
		note := rest[i : i+j+len(end)]
		rest = rest[i+j:]
		s.mu.Lock()
		if !slices.Contains(s.notes, note) {
			s.notes = append(s.notes, note)
		}
		s.mu.Unlock()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.messagesStub.ServeHTTP(w, r)
}

// notifications returns the task notifications the model was sent, each once, in order.
func (s *notedStub) notifications() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}

// TestEndToEndClaudeCodeTasks: Claude Code 2.1.328 runs interactively in a tickmux pane with
// tickmux's MCP server; the model calls call_tick increment on the counter Tick; the answer is a
// task at once (Claude Code moves it to the background and tells the model so), the card waits,
// y runs the call, and the model is sent the result in a task notification; n sends the denial
// the same way; and a task the model stops (TaskStop) withdraws its card.
func TestEndToEndClaudeCodeTasks(t *testing.T) {
	claude := pinnedAgent(t, "Claude Code 2.1.328", claudeCode328Dir, "claude")
	r := newTmuxRig(t)
	work, cfg := r.mkdir("work"), r.mkdir("claude-config")
	// And the auto-mode question answered: 2.1.328 asks at start whether to make auto mode the
	// default when the user's settings set another mode.
	claudeState(t, cfg, work, "2.1.328", map[string]any{"hasSeenAutoDefaultNudge": true})
	// tickmux's tools allowed by a rule: in auto mode (2.1.328's default) an MCP tool no rule
	// allows goes to a classifier that a loopback API cannot answer. The person's say is the card.
	if err := os.MkdirAll(filepath.Join(work, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["mcp__tickmux"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// tickmux mcp as Claude Code starts it, on the rig's socket (the test binary plays tickmux),
	// its log in mcpLog.
	mcpLog := filepath.Join(r.dir, "tickmux-mcp.log")
	env := map[string]string{}
	for _, kv := range r.env {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == envAsMain || strings.HasPrefix(k, "XDG_")) {
			env[k] = v
		}
	}
	mcpConfig, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"tickmux": map[string]any{"command": "/bin/sh", "args": []string{"-c", `exec "$0" mcp --socket "$1" 2>>"$2"`, r.self, r.socket, mcpLog}, "env": env}}})
	mcpFile := filepath.Join(r.dir, "mcp.json")
	if err := os.WriteFile(mcpFile, mcpConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	stub := &notedStub{messagesStub: &messagesStub{script: map[string][]toolCall{
		"CALLTICK": {{"mcp__tickmux__call_tick", map[string]any{"id": "hosted:1", "tool": "increment", "args": map[string]any{"amount": 5}}}},
	}}}
	api := httptest.NewServer(stub)
	defer api.Close()

	r.start()
	r.waitFor("shell:1")
	// The counter Tick, opened by the CLI (a card the person approves) as hosted:1.
	open := r.cli("open", "--", r.self, "example", "counter")
	var openOut bytes.Buffer
	open.Stdout, open.Stderr = &openOut, &openOut
	if err := open.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitFor("wants to open")
	r.prefix("a", "allow once")
	r.keys("y")
	if err := open.Wait(); err != nil {
		t.Fatalf("open: %v\n%s", err, openOut.String())
	}
	r.waitFor("hosted:1")
	r.keys("C-b", "o") // back to the shell, in case the new pane took the focus
	r.typeLine(fmt.Sprintf("cd %s && DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "+
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1 ANTHROPIC_BASE_URL=%s ANTHROPIC_API_KEY=dummy CLAUDE_CONFIG_DIR=%s %s --mcp-config %s --debug-file %s",
		work, api.URL, cfg, claude, mcpFile, filepath.Join(r.dir, "claude-debug.log")), "Claude Code v2.1.328")

	// tasks counts the placeholders the model was sent for calls that became tasks, each once
	// (the stub's answer to a notification names the last result again).
	tasks := func() int {
		seen := map[string]bool{}
		for _, res := range stub.results() {
			if strings.Contains(res.Content, "started server-side task") {
				seen[res.Content] = true
			}
		}
		return len(seen)
	}
	r.prompt("please CALLTICK")
	// The call came back as a task at once: the model is told it went to the background while
	// the card still waits.
	r.waitFor("wants to call increment on hosted:1")
	waitUntilTrue(func() bool { return tasks() >= 1 })
	if res := stub.results(); tasks() != 1 || res[0].IsError {
		debug, _ := os.ReadFile(filepath.Join(r.dir, "claude-debug.log"))
		t.Fatalf("the model was sent %+v, want the task's placeholder:\n%s\n%s", res, r.screen(), lastLines(string(debug), 40))
	}
	r.prefix("a", "allow once")
	r.keys("y")
	waitUntilTrue(func() bool { return len(stub.notifications()) >= 1 })
	notes := stub.notifications()
	if len(notes) == 0 {
		debug, _ := os.ReadFile(filepath.Join(r.dir, "claude-debug.log"))
		t.Fatalf("the model was never sent a task notification:\n%s\n%s", r.screen(), lastLines(string(debug), 40))
	}
	// The notification holds the call's result, as call_tick gives it (the JSON quoted in the
	// request body's text).
	n := notes[0]
	t.Logf("the model was sent: %s", n)
	if !strings.Contains(n, "<status>completed</status>") || !strings.Contains(n, `\"status\":\"ok\"`) || !strings.Contains(n, `\"value\":5`) {
		t.Errorf("the task notification does not hold the result:\n%s", lastLines(n, 20))
	}

	// n: the task completes with the denial, which the model is sent the same way.
	r.prompt("please CALLTICK")
	waitUntilTrue(func() bool { return tasks() >= 2 })
	if tasks() != 2 {
		t.Fatalf("the second call did not become a task: the model was sent %+v\n%s", stub.results(), r.screen())
	}
	r.waitFor("wants to call increment on hosted:1")
	r.prefix("a", "allow once")
	r.keys("n")
	waitUntilTrue(func() bool { return len(stub.notifications()) >= 2 })
	notes = stub.notifications()
	if len(notes) < 2 {
		mlog, _ := os.ReadFile(mcpLog)
		t.Fatalf("the model was never sent the denial's task notification:\n%s\ntickmux mcp's log:\n%s", r.screen(), mlog)
	}
	n = notes[len(notes)-1]
	t.Logf("after n, the model was sent: %s", n)
	if !strings.Contains(n, "denied") || strings.Contains(n, `\"value\":10`) {
		t.Errorf("the task notification does not hold the denial:\n%s", n)
	}

	// Cancelled from Claude Code: the model stops the background task (TaskStop, with the id
	// Claude Code's placeholder gave), Claude Code sends tasks/cancel, and the card comes down,
	// withdrawn in the journal.
	r.prompt("please CALLTICK")
	waitUntilTrue(func() bool { return tasks() >= 3 })
	var placeholder string
	for _, res := range stub.results() {
		if strings.Contains(res.Content, "started server-side task call:kept-3") {
			placeholder = res.Content
		}
	}
	_, after, ok := strings.Cut(placeholder, `TaskStop with task_id "`)
	id, _, _ := strings.Cut(after, `"`)
	if !ok || id == "" {
		t.Fatalf("no task id to stop in the model's results %+v:\n%s", stub.results(), r.screen())
	}
	r.waitFor("wants to call increment on hosted:1")
	stub.messagesStub.mu.Lock() // the script's lock, not the notes'
	stub.script["STOPTASK"] = []toolCall{{"TaskStop", map[string]any{"task_id": id}}}
	stub.messagesStub.mu.Unlock()
	r.prompt("please STOPTASK")
	withdrawn := r.waitLog("the withdrawn task", func(e journal.Entry) bool {
		return e.Decision == journal.Withdrawn && e.Tool == "increment"
	})
	r.waitGone("e2e", "wants to call increment")
	if withdrawn.Client.Name != "claude-code" || withdrawn.Instance != "hosted:1" {
		t.Errorf("the withdrawn entry: %+v", withdrawn)
	}
	r.prompt("/exit")
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
