package main

// End-to-end with the real Claude Code (testdata/claudecode, pinned; installed by
// scripts/install-test-deps): it runs interactively in a tickmux pane against a loopback stand-in
// for the Anthropic Messages API that plays scripted tool calls, and its permission prompts are
// answered with tickmux cards.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const claudeCodeDir = "testdata/claudecode"

// claudeCode returns the claude executable, or skips (fails in CI) saying why it is missing.
func claudeCode(t *testing.T) string { return pinnedAgent(t, "Claude Code", claudeCodeDir, "claude") }

// pinnedAgent returns the executable bin of an agent (what) that scripts/install-test-deps
// installs with npm ci in dir, or skips (fails in CI) saying why it is missing.
func pinnedAgent(t *testing.T, what, dir, bin string) string {
	t.Helper()
	path, _ := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", bin))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if why, err := os.ReadFile(filepath.Join(dir, ".install-failed")); err == nil {
		t.Skipf("%s could not be installed (npm ci in %s): %s", what, dir, strings.TrimSpace(string(why)))
	}
	msg := what + " is not installed: run ./scripts/install-test-deps (it runs npm ci in " + dir + ")"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// prompt types text into the agent's prompt as keys (not a paste), then Enter to submit it.
func (r *tmuxRig) prompt(text string) {
	r.t.Helper()
	r.keys("-l", text)
	r.waitFor(text)
	r.keys("Enter")
}

// waitUntilTrue polls ok until it holds or 30 s pass (only a guard against hanging); the caller
// then checks what it waited for and says what it found.
func waitUntilTrue(ok func() bool) {
	for deadline := time.Now().Add(30 * time.Second); !ok() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
}

// mkdir makes the directory name in the rig's directory (private to the person) and returns it.
// claudeState writes Claude Code's state file (.claude.json) in cfg so that its first start
// shows no first-run screen: onboarding done as of version, the dummy key approved and work
// trusted; extra adds keys (the auto-mode question answered, say).
func claudeState(t *testing.T, cfg, work, version string, extra map[string]any) {
	t.Helper()
	state := map[string]any{"hasCompletedOnboarding": true, "theme": "dark", "lastOnboardingVersion": version,
		"customApiKeyResponses": map[string]any{"approved": []string{"dummy"}, "rejected": []string{}},
		"projects":              map[string]any{work: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}}
	for k, v := range extra {
		state[k] = v
	}
	b, _ := json.Marshal(state)
	if err := os.WriteFile(filepath.Join(cfg, ".claude.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func (r *tmuxRig) mkdir(name string) string {
	r.t.Helper()
	d := filepath.Join(r.dir, name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		r.t.Fatal(err)
	}
	return d
}

// waitFile waits until the file at path holds want.
func (r *tmuxRig) waitFile(path, want string) {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && string(b) == want {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s holds %q (%v), want %q:\n%s", path, b, err, want, r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// toolCall is one scripted tool_use.
type toolCall struct {
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// messagesStub plays the Anthropic Messages API: when the person's last prompt holds a keyword of
// the script, it answers with the keyword's tool calls one after another (each after the
// previous one's result), then with a text naming the last result; anything else gets "ok".
type messagesStub struct {
	script map[string][]toolCall
	mu     sync.Mutex
	seen   []toolResult // every tool_result the stub was sent, in order
	nextID int
}

type toolResult struct {
	Content string
	IsError bool
}

type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"is_error"`
}

func (s *messagesStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}"))
		return
	}
	if strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"input_tokens":10}`))
		return
	}
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Tools    []struct{ Name string }
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The last prompt the person typed, and the tool results since.
	prompt, results := "", []toolResult(nil)
	for _, m := range body.Messages {
		if m.Role != "user" {
			continue
		}
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			var text string
			json.Unmarshal(m.Content, &text)
			blocks = []block{{Type: "text", Text: text}}
		}
		var texts []string
		var rs []toolResult
		for _, b := range blocks {
			switch {
			case b.Type == "tool_result":
				var c string
				if json.Unmarshal(b.Content, &c) != nil {
					var parts []block
					json.Unmarshal(b.Content, &parts)
					for _, p := range parts {
						c += p.Text
					}
				}
				rs = append(rs, toolResult{c, b.IsError})
			case b.Type == "text" && !strings.HasPrefix(b.Text, "<system-reminder>"):
				texts = append(texts, b.Text)
			}
		}
		if len(rs) > 0 {
			results = append(results, rs...)
		} else if len(texts) > 0 {
			prompt, results = strings.Join(texts, " "), nil
		}
	}
	hasBash := false
	for _, tl := range body.Tools {
		hasBash = hasBash || tl.Name == "Bash"
	}
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	var content []map[string]any
	stop := "end_turn"
	text := "ok"
	// The keyword typed last: under load, Claude Code once sent a prompt with the one before
	// it in front ("please DENYBASHplease EDITFILE", typed at its input as the earlier turn
	// ended), and which of the two the stub followed was left to the map's order.
	kw, at := "", -1
	for k := range s.script {
		if i := strings.LastIndex(prompt, k); i > at {
			kw, at = k, i
		}
	}
	if calls := s.script[kw]; hasBash && kw != "" {
		if len(results) < len(calls) {
			c := calls[len(results)]
			content = []map[string]any{{"type": "tool_use", "id": fmt.Sprintf("toolu_stub_%d", id), "name": c.Name, "input": c.Input}}
			stop = "tool_use"
		} else {
			last := results[len(results)-1]
			s.seen = append(s.seen, last)
			text = fmt.Sprintf("stub-saw-result is_error=%v: %s", last.IsError, last.Content)
		}
	}
	s.mu.Unlock()
	if content == nil {
		content = []map[string]any{{"type": "text", "text": text}}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := map[string]any{"id": fmt.Sprintf("msg_stub_%d", id), "type": "message", "role": "assistant", "model": body.Model,
		"stop_reason": nil, "stop_sequence": nil, "usage": usage, "content": []any{}}
	if !body.Stream {
		msg["content"], msg["stop_reason"] = content, stop
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": msg})
	for i, c := range content {
		if c["type"] == "text" {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		} else {
			input, _ := json.Marshal(c["input"])
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// results returns the tool results the stub has answered so far.
func (s *messagesStub) results() []toolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]toolResult(nil), s.seen...)
}

// TestEndToEndRealClaudeCode: Claude Code 2.1.197, set up by `tickmux setup claude-code --write`,
// runs in a tickmux pane; a Bash call shows its card with the whole command and y runs it; n stops
// another, and the model's next request carries the denial; an Edit shows its diff; an MCP tool of
// tickmux's shows its card, and tickmux's MCP server reaches this tickmux; the pane's border says
// what the agent does.
func TestEndToEndRealClaudeCode(t *testing.T) {
	claude := claudeCode(t)
	r := newTmuxRig(t)
	work, cfg := r.mkdir("work"), r.mkdir("claude-config")
	if err := os.WriteFile(filepath.Join(work, "f.txt"), []byte("one\nalpha\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	claudeState(t, cfg, work, "2.1.197", nil)
	setup := r.cli("setup", "claude-code", "--write")
	setup.Env = append(setup.Env, "CLAUDE_CONFIG_DIR="+cfg)
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}

	stub := &messagesStub{script: map[string][]toolCall{
		"RUNBASH":  {{"Bash", map[string]any{"command": "echo hook-ran-$((6*7)) > " + filepath.Join(work, "ran.txt"), "description": "Write a marker file"}}},
		"DENYBASH": {{"Bash", map[string]any{"command": "touch " + filepath.Join(work, "denied.txt"), "description": "Touch a file"}}},
		"EDITFILE": {{"Read", map[string]any{"file_path": filepath.Join(work, "f.txt")}},
			{"Edit", map[string]any{"file_path": filepath.Join(work, "f.txt"), "old_string": "alpha", "new_string": "beta"}}},
		"LISTTICKS": {{"mcp__tickmux__list_ticks", map[string]any{}}},
	}}
	api := httptest.NewServer(stub)
	defer api.Close()

	r.start()
	r.waitFor("shell:1")
	r.typeLine(fmt.Sprintf("cd %s && DISABLE_AUTOUPDATER=1 ANTHROPIC_BASE_URL=%s ANTHROPIC_API_KEY=dummy CLAUDE_CONFIG_DIR=%s %s --debug-file %s", work, api.URL, cfg, claude, filepath.Join(r.dir, "claude-debug.log")), "Claude Code v2.1.197")
	r.waitFor("shell:1 Claude Code started")
	// y: the command runs.
	r.prompt("please RUNBASH")
	s := r.waitFor("Claude Code wants to run its tool Bash in shell:1")
	if !strings.Contains(s, "echo hook-ran-$((6*7)) >") || !strings.Contains(s, "shell:1 Claude Code waiting for you") {
		t.Fatalf("the card or the border:\n%s", s)
	}
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFile(filepath.Join(work, "ran.txt"), "hook-ran-42\n")
	r.waitFor("Allowed by PermissionRequest hook")

	// n: the command does not run, and the model reads the denial.
	r.prompt("please DENYBASH")
	r.waitFor("touch " + filepath.Join(work, "denied.txt"))
	r.waitFor("⚑ 1 pending")
	r.prefix("a", "allow once")
	r.keys("n")
	r.waitFor("stub-saw-result is_error=true: denied by the person in tickmux")
	if res := stub.results(); len(res) != 2 || res[1] != (toolResult{"denied by the person in tickmux", true}) {
		t.Fatalf("the model was sent %+v, want the denial", res)
	}
	if _, err := os.Stat(filepath.Join(work, "denied.txt")); err == nil {
		t.Fatal("the denied command ran")
	}

	// An Edit shows its diff against the file on disk.
	r.prompt("please EDITFILE")
	s = r.waitFor("Claude Code wants to run its tool Edit in shell:1")
	card := s[strings.Index(s, "diff against the file on disk"):]
	if !strings.Contains(card, "-alpha") || !strings.Contains(card, "+beta") {
		t.Fatalf("the card does not show the diff:\n%s", s)
	}
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFile(filepath.Join(work, "f.txt"), "one\nbeta\nthree\n")
	r.waitFor("stub-saw-result is_error=false: The file")
	r.waitFor("shell:1 Claude Code done")

	// tickmux's MCP server, as setup registered it, reaches this tickmux: Claude Code asks before
	// it calls an MCP tool (a card naming the server and the tool), and list_ticks lists the pane
	// Claude Code runs in.
	r.prompt("please LISTTICKS")
	r.waitFor("MCP tool list_ticks")
	r.prefix("a", "allow once")
	r.keys("y")
	waitUntilTrue(func() bool { return len(stub.results()) >= 4 })
	if res := stub.results(); len(res) != 4 || res[3].IsError || !strings.Contains(res[3].Content, `"shell:1"`) {
		t.Fatalf("list_ticks through Claude Code gave %+v:\n%s", res, r.screen())
	}

	r.prompt("/exit")
	r.waitFor("Resume this session with")
	ended := func() bool { return strings.Contains(r.screen(), "shell:1 Claude Code ended") }
	if waitUntilTrue(ended); !ended() {
		debug, _ := os.ReadFile(filepath.Join(r.dir, "claude-debug.log"))
		var lines []string
		for _, l := range strings.Split(string(debug), "\n") {
			if strings.Contains(l, "SessionEnd") {
				lines = append(lines, l)
			}
		}
		t.Fatalf("the border does not say the session ended:\n%s\nClaude Code's log of SessionEnd:\n%s", r.screen(), strings.Join(lines, "\n"))
	}
}
