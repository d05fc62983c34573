package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue 42 item 18: named sessions, as tmux's. `tickmux new -d -s NAME` starts a server of its
// own on NAME.sock beside the default socket (no terminal needed with -d); a second one of that
// name is refused; `new -d` alone takes the first free number; `tickmux sessions` (and tmux's
// list-sessions) lists the sessions that run, with their panes and views, the current one marked;
// `kill-server -t NAME` ends one, and `attach -t NAME` of a session that does not run says so.
// (attach -t in a terminal: TestReadmeCommandsRun.)
func TestNamedSessions(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envAsMain, "1") // the servers are this binary playing tickmux
	for _, kv := range [][2]string{{"XDG_STATE_HOME", dir}, {"XDG_CONFIG_HOME", dir}, {"HOME", dir}, {"SHELL", "/bin/sh"},
		{"TICKMUX_SOCKET", filepath.Join(dir, "default.sock")}, {"GORACE", "atexit_sleep_ms=0"}} {
		t.Setenv(kv[0], kv[1])
	}
	tm := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		return code, out.String(), errb.String()
	}
	t.Cleanup(func() {
		for _, name := range []string{"work", "0"} {
			tm("kill-server", "-t", name)
		}
	})

	if code, out, errs := tm("new", "-d", "-s", "work"); code != 0 || !strings.Contains(out, "session work started: tickmux attach -t work") {
		t.Fatalf("tickmux new -d -s work: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "work.sock")); err != nil {
		t.Fatalf("no work.sock beside the default socket: %v", err)
	}
	if code, _, errs := tm("new", "-d", "-s", "work"); code != 1 || !strings.Contains(errs, "a session named work runs already: tickmux attach -t work") {
		t.Errorf("a second tickmux new -s work: exit %d, %q", code, errs)
	}
	if code, _, errs := tm("new", "-d", "-s", "../up"); code != 2 || !strings.Contains(errs, `"../up" cannot name a session`) {
		t.Errorf("tickmux new -s ../up: exit %d, %q", code, errs)
	}
	if code, out, errs := tm("new-session", "-d"); code != 0 || !strings.Contains(out, "session 0 started") {
		t.Fatalf("tickmux new-session -d: exit %d\n%s%s", code, out, errs)
	}

	// The list: both sessions, one pane each (a shell), no view; none is the current one
	// ($TICKMUX_SOCKET names default.sock, where nothing runs).
	code, out, errs := tm("sessions")
	rows := regexp.MustCompile(`(?m)^(\S+)\s+1\s+0\s+0\s+\d{4}-\d\d-\d\d \d\d:\d\d\s*$`).FindAllStringSubmatch(out, -1)
	if code != 0 || len(rows) != 2 || rows[0][1] != "0" || rows[1][1] != "work" || !strings.HasPrefix(out, "NAME ") {
		t.Fatalf("tickmux sessions: exit %d\n%s%s", code, out, errs)
	}
	var list []sessionInfo
	if code, out, _ := tm("list-sessions", "--json"); code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 ||
		list[1].Name != "work" || list[1].Socket != filepath.Join(dir, "work.sock") || list[1].Panes != 1 || list[1].Views == nil || *list[1].Views != 0 || list[1].Created == "" {
		t.Fatalf("tickmux list-sessions --json: exit %d\n%s", code, out)
	}
	// Inside the session work (a pane's $TICKMUX_SOCKET), work is the current one.
	t.Setenv("TICKMUX_SOCKET", filepath.Join(dir, "work.sock"))
	if _, out, _ := tm("sessions"); !regexp.MustCompile(`(?m)^work \*\s+1\s`).MatchString(out) {
		t.Errorf("tickmux sessions inside work does not mark it:\n%s", out)
	}
	// The verbs reach a session by its socket.
	if code, out, errs := tm("ls", "--socket", filepath.Join(dir, "work.sock")); code != 0 || !strings.Contains(out, "shell:1") {
		t.Errorf("tickmux ls in the session work: exit %d\n%s%s", code, out, errs)
	}

	if code, _, errs := tm("kill-server", "-t", "work"); code != 0 {
		t.Fatalf("tickmux kill-server -t work: exit %d, %q", code, errs)
	}
	if code, _, errs := tm("attach", "-t", "work"); code != 1 || !strings.Contains(errs, "no session named work runs") {
		t.Errorf("tickmux attach -t work after kill-server: exit %d, %q", code, errs)
	}
	if code, _, errs := tm("kill-server", "-t", "work"); code != 1 || !strings.Contains(errs, "no session named work runs") {
		t.Errorf("a second tickmux kill-server -t work: exit %d, %q", code, errs)
	}
	if _, out, _ := tm("sessions"); strings.Contains(out, "work") || !strings.Contains(out, "\n0 ") {
		t.Errorf("tickmux sessions after kill-server -t work:\n%s", out)
	}
	if code, _, _ := tm("kill-server", "-t", "0"); code != 0 {
		t.Fatalf("tickmux kill-server -t 0: exit %d", code)
	}
	if code, out, errs := tm("sessions"); code != 1 || out != "" || !strings.Contains(errs, "no session runs") {
		t.Errorf("tickmux sessions with none running: exit %d, %q %q", code, out, errs)
	}
}
