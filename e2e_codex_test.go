package main

// End-to-end with the real Codex (testdata/codex, pinned; installed by scripts/install-test-deps):
// it runs interactively in a tickmux pane against a loopback stand-in for the OpenAI Responses
// API that plays scripted shell commands asking for escalated permissions, and its permission
// prompts are answered with tickmux cards.

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

	"tickmux/host/journal"
)

const codexDir = "testdata/codex"

// codexBin returns the codex executable, or skips (fails in CI) saying why it is missing.
func codexBin(t *testing.T) string { return pinnedAgent(t, "Codex", codexDir, "codex") }

// responsesStub plays the OpenAI Responses API as Codex streams it: when the person's last prompt
// holds a keyword of the script, it answers with the keyword's exec_command calls one after
// another (each after the previous one's output), then with a text naming the last output;
// anything else (Codex's own requests, such as a task title, have no tools) gets "ok".
type responsesStub struct {
	script map[string][]stubCall // keyword → the calls to make, one after another
	mu     sync.Mutex
	seen   []string // the last output of each script played to its end, in order
	tools  []string // the tools of the last request that had any (NAMESPACE/NAME in a namespace)
	n      int
}

// stubCall is a call of tool with args (an MCP server's tool is named as the server has it: Codex
// offers them in a namespace of the server's).
type stubCall struct {
	tool string
	args map[string]any
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

func (s *responsesStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":[],"models":[]}`))
		return
	}
	var body struct {
		Tools []struct {
			Type, Name string
			Tools      []struct{ Name string } // a namespace's (an MCP server's tools)
		}
		Input []responsesItem
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The last prompt the person typed (Codex's own context comes as user messages in <tags>),
	// and the outputs of the calls since.
	prompt, outputs := "", []string(nil)
	for _, it := range body.Input {
		switch {
		case it.Type == "function_call_output":
			var out string
			if json.Unmarshal(it.Output, &out) != nil {
				out = string(it.Output)
			}
			outputs = append(outputs, out)
		case it.Type == "message" && it.Role == "user":
			var parts []struct{ Type, Text string }
			json.Unmarshal(it.Content, &parts)
			for _, p := range parts {
				if p.Type == "input_text" && !strings.HasPrefix(strings.TrimSpace(p.Text), "<") {
					prompt, outputs = p.Text, nil
				}
			}
		}
	}
	s.mu.Lock()
	if len(body.Tools) > 0 {
		s.tools = s.tools[:0]
		for _, tl := range body.Tools {
			if tl.Type != "namespace" {
				s.tools = append(s.tools, tl.Name)
			}
			for _, in := range tl.Tools {
				s.tools = append(s.tools, tl.Name+"/"+in.Name)
			}
		}
	}
	// call is the function_call item of the tool named name, in its namespace if it has one.
	call := func(name string, args map[string]any) map[string]any {
		b, _ := json.Marshal(args)
		item := map[string]any{"type": "function_call", "name": name, "arguments": string(b),
			"call_id": fmt.Sprintf("call_stub_%d", s.n), "id": fmt.Sprintf("fc_stub_%d", s.n)}
		for _, full := range s.tools {
			if ns, n, ok := strings.Cut(full, "/"); ok && n == name {
				item["namespace"] = ns
			}
		}
		return item
	}
	s.n++
	id := s.n
	item := map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_stub_%d", id),
		"content": []any{map[string]any{"type": "output_text", "text": "ok"}}}
	for kw, calls := range s.script {
		if len(body.Tools) == 0 || !strings.Contains(prompt, kw) {
			continue
		}
		if len(outputs) < len(calls) {
			c := calls[len(outputs)]
			item = call(c.tool, c.args)
		} else {
			last := outputs[len(outputs)-1]
			s.seen = append(s.seen, last)
			item["content"] = []any{map[string]any{"type": "output_text", "text": "stub-saw-output: " + strings.ReplaceAll(last, "\n", " ")}}
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
	}
	rid := fmt.Sprintf("resp_stub_%d", id)
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": rid}})
	event(map[string]any{"type": "response.output_item.done", "item": item})
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": rid,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
}

// toolNames returns the tools Codex offered the model last.
func (s *responsesStub) toolNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tools...)
}

// outputs returns the outputs the stub answered a finished script with, so far.
func (s *responsesStub) outputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// TestEndToEndRealCodex: Codex 0.171.0, set up by `tickmux setup codex --write`, runs in a tickmux
// pane; a command that asks to leave Codex's sandbox shows its card with the whole command, and y
// runs it; n stops another, and the model's next request carries the denial; tickmux's MCP server,
// which Codex starts with a pruned environment, reaches this tickmux; the pane's border says what
// the agent does, and that its session ended.
func TestEndToEndRealCodex(t *testing.T) {
	codex := codexBin(t)
	r := newTmuxRig(t)
	work, home := r.mkdir("work"), r.mkdir("codex-home")
	stub := &responsesStub{script: map[string][]stubCall{
		"RUNCMD": {{"exec_command", map[string]any{"cmd": "echo codex-ran-$((6*7)) > " + filepath.Join(work, "ran.txt"),
			"sandbox_permissions": "require_escalated", "justification": "Write a marker file"}}},
		"DENYCMD": {{"exec_command", map[string]any{"cmd": "touch " + filepath.Join(work, "denied.txt"),
			"sandbox_permissions": "require_escalated", "justification": "Touch a file"}}},
		"LISTTICKS": {{"list_ticks", map[string]any{}}},
	}}
	api := httptest.NewServer(stub)
	defer api.Close()
	setUpCodex(t, r, api.URL, work, home)

	r.start()
	r.waitFor("shell:1")
	// Codex runs a hook only once the person trusted it: at the first start after setup it asks.
	r.typeLine(fmt.Sprintf("cd %s && CODEX_HOME=%s STUB_API_KEY=dummy %s", work, home, codex), "Hooks need review")
	r.keys("2") // Trust all and continue
	r.waitFor("› 2. Trust all")
	r.keys("Enter")
	r.waitFor("OpenAI Codex (v0.171.0)")
	// y: the command runs.
	r.prompt("please RUNCMD")
	s := r.waitFor("Codex wants to run its tool Bash in shell:1")
	if !strings.Contains(s, "echo codex-ran-$((6*7)) >") || !strings.Contains(s, "shell:1 Codex waiting for you") {
		t.Fatalf("the card or the border:\n%s", s)
	}
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFile(filepath.Join(work, "ran.txt"), "codex-ran-42\n")
	r.waitFor("stub-saw-output:")

	// n: the command does not run, and the model reads the denial.
	r.prompt("please DENYCMD")
	r.waitFor("the agent says: Touch a file") // the card (its command wraps in the panel's width)
	r.waitFor("⚑ 1 pending")
	r.prefix("a", "allow once")
	r.keys("n")
	r.waitFor("Blocked by hook")
	waitUntilTrue(func() bool { return len(stub.outputs()) >= 2 })
	if out := stub.outputs(); len(out) != 2 || !strings.Contains(out[1], "denied by the person in tickmux") {
		t.Fatalf("the model was sent %q, want the denial second:\n%s", out, r.screen())
	}
	if _, err := os.Stat(filepath.Join(work, "denied.txt")); err == nil {
		t.Fatal("the denied command ran")
	}
	r.waitFor("shell:1 Codex done")

	// tickmux's MCP server, started by Codex with its pruned environment, finds this tickmux
	// through the socket's variable setup passed on: list_ticks lists the pane Codex runs in.
	r.prompt("please LISTTICKS")
	r.waitFor("stub-saw-output:")
	waitUntilTrue(func() bool { return len(stub.outputs()) >= 3 })
	if out := stub.outputs(); len(out) != 3 || !strings.Contains(out[2], "shell:1") {
		t.Fatalf("list_ticks through Codex gave %q (tools offered: %q):\n%s", out, stub.toolNames(), r.screen())
	}

	// Codex 0.171.0 hands the session to a background app-server as its TUI quits ("Any running
	// work continues") and sends no SessionEnd: the border says the session ended because tickmux
	// watched the agent's process exit.
	r.prompt("/quit")
	r.waitFor("shell:1 Codex ended")
}

// setUpCodex writes a Codex config in home whose model provider is the stub at apiURL (a key in
// the environment: no sign-in screen), with work trusted (no trust screen) and a burst of typed
// keys taken as typing, not a paste; then runs `tickmux setup codex --write` on it, as a person
// would, and tells the MCP server it starts that tickmux is this test binary.
func setUpCodex(t *testing.T, r *tmuxRig, apiURL, work, home string) {
	t.Helper()
	config := fmt.Sprintf("model = \"gpt-5-test\"\nmodel_provider = \"stub\"\ndisable_paste_burst = true\n\n"+
		"[model_providers.stub]\nname = \"stub\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"STUB_API_KEY\"\n\n"+
		"[projects.%q]\ntrust_level = \"trusted\"\n", apiURL+"/v1", work)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	setup := r.cli("setup", "codex", "--write")
	setup.Env = append(setup.Env, "CODEX_HOME="+home)
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	// tickmux is this test binary: told so in the MCP server's environment, which Codex prunes
	// to a few variables and the ones setup lists (the socket's).
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp_servers.tickmux.env]\n%s = \"1\"\n", envAsMain)
	f.Close()
}

// TestEndToEndCodexTwoSessionsInOnePane (issue 44 item 4): Codex 0.171.0 hands a session to a
// background app-server as its TUI quits, and that daemon ran the next codex's hooks, outside the
// pane ("a terminal outside tickmux"). With tickmux's setup (daemon_auto_start = false), two
// sessions one after the other in one pane each get their card attributed to that pane, and the
// journal says so.
func TestEndToEndCodexTwoSessionsInOnePane(t *testing.T) {
	codex := codexBin(t)
	r := newTmuxRig(t)
	work, home := r.mkdir("work"), r.mkdir("codex-home")
	run := func(n int) []stubCall {
		return []stubCall{{"exec_command", map[string]any{"cmd": fmt.Sprintf("echo session-%d > %s", n, filepath.Join(work, fmt.Sprintf("ran%d.txt", n))),
			"sandbox_permissions": "require_escalated", "justification": fmt.Sprintf("Mark session %d", n)}}}
	}
	stub := &responsesStub{script: map[string][]stubCall{"RUNONE": run(1), "RUNTWO": run(2)}}
	api := httptest.NewServer(stub)
	defer api.Close()
	setUpCodex(t, r, api.URL, work, home)

	r.start()
	r.waitFor("shell:1")
	start := fmt.Sprintf("cd %s && CODEX_HOME=%s STUB_API_KEY=dummy %s", work, home, codex)
	for n, kw := range []string{"RUNONE", "RUNTWO"} {
		n++
		if n == 1 { // the hooks are trusted once, at the first start after setup
			r.typeLine(start, "Hooks need review")
			r.keys("2") // Trust all and continue
			r.waitFor("› 2. Trust all")
			r.keys("Enter")
		} else {
			r.typeLine(start, "OpenAI Codex (v0.171.0)")
		}
		r.waitFor("OpenAI Codex (v0.171.0)")
		r.prompt("please " + kw)
		s := r.waitFor(fmt.Sprintf("the agent says: Mark session %d", n))
		if !strings.Contains(s, "Codex wants to run its tool Bash in shell:1") || strings.Contains(s, "outside tickmux") {
			t.Fatalf("session %d's card is not shell:1's:\n%s", n, s)
		}
		r.prefix("a", "allow once")
		r.keys("y")
		r.waitFile(filepath.Join(work, fmt.Sprintf("ran%d.txt", n)), fmt.Sprintf("session-%d\n", n))
		e := r.waitLog(fmt.Sprintf("session %d's card", n), func(e journal.Entry) bool {
			return e.Decision == journal.Once && e.Tool == "Bash" && strings.Contains(string(e.Args), fmt.Sprintf("ran%d.txt", n))
		})
		if e.Instance != "shell:1" || e.Client.Pane != "shell:1" {
			t.Errorf("session %d's journal entry is not shell:1's: instance %q, client %+v", n, e.Instance, e.Client)
		}
		r.waitFor("stub-saw-output:")
		r.prompt("/quit")
		r.waitFor("shell:1 Codex ended")
		r.keys("clear", "Enter") // the next session's screen shows nothing of this one's
		r.waitGone("e2e", "stub-saw-output:")
	}
}
