package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tickmux/host/snapshot"
	"tickmux/server"
)

// Issue 39's test: a reboot played through the real TUI. A server with three tabs (one of them
// the demo's five Ticks and a shell), splits, a zoom, shells cd'd into their own directories,
// less in one pane, python3's http.server in another, an agent session its hook reported, a
// pending card and an r grant; then kill -9 of the server, its guardian and every program it
// started, and the runtime files gone. The next tickmux asks; y brings the session back: the
// tabs and their names, the directories, the Ticks, less running again, the http server and
// the agent offered; the card has its outcome line in the journal; the grant is gone.
func TestEndToEndRestoreAfterAReboot(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is missing (scripts/install-test-deps installs it)")
	}
	r := newTmuxRig(t)
	dirA, dirB := filepath.Join(r.dir, "proj-a"), filepath.Join(r.dir, "proj-b")
	for _, d := range []string{dirA, dirB} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dirB, "notes.txt"), []byte("first-line-of-notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.start("demo")
	r.waitFor("shell:1")
	r.typeLine("cd "+dirA+" && echo in-$(basename $PWD)", "in-proj-a")

	// Tab 1: less in proj-b, and beside it the http server, zoomed.
	r.prefix("c", "1:")
	r.typeLine("cd "+dirB+" && less notes.txt", "first-line-of-notes")
	r.prefix("%", "shell:3")
	r.typeLine("python3 -m http.server 0 --bind 127.0.0.1", "Serving HTTP")
	r.prefix("z", "Z")

	// Tab 2, named: an agent session its hook reported, kept alive by the job it runs in.
	r.prefix("c", "2:")
	hook, _ := json.Marshal(map[string]any{"session_id": "5f0c-restore-e2e", "hook_event_name": "SessionStart", "cwd": dirA, "source": "startup"})
	hookFile := filepath.Join(r.dir, "session-start.json")
	if err := os.WriteFile(hookFile, hook, 0o600); err != nil {
		t.Fatal(err)
	}
	r.typeLine("sh -c '"+r.self+" hook claude-code <"+hookFile+" && echo hooked; sleep 1000'", "hooked")
	r.waitFor("Claude Code")
	r.keys("C-b", ",", "C-u", "agents", "Enter")
	r.waitFor("2:agents")

	// An r grant on the counter, and a card left waiting (an open).
	r.prefix("0", "counter")
	call := r.startCall("--json", "hosted:1", "increment", `{"amount":1}`)
	r.waitFor("wants to call increment on hosted:1")
	r.answerCardIn("e2e", "APPROVE", "r")
	call.returned(t)
	r.waitGone("e2e", "wants to call")
	pending := r.startCall("--json", "hosted:1", "increment", `{"amount":2}`) // granted: no card
	pending.returned(t)
	open := r.cli("open", "--", "sleep", "77")
	if err := open.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { open.Process.Kill(); open.Wait() })
	r.waitFor("wants to open")
	time.Sleep(2500 * time.Millisecond) // a snapshot is written at most every 2 s: let the last change in

	// The reboot: every process tickmux started dies at once by SIGKILL, the view too, and the
	// runtime directory's files are gone.
	for _, pid := range r.launched() {
		if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); !strings.HasPrefix(string(comm), "tmux") {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	exec.Command("tmux", "-S", r.tmuxSoc, "kill-session", "-t", "e2e").Run()
	r.waitAllEnded(10*time.Second, "the reboot")
	os.Remove(r.socket)
	os.Remove(strings.TrimSuffix(r.socket, ".sock") + ".agent.sock")

	if sdir, err := server.SnapshotDir(filepath.Join(r.dir, "tickmux"), r.socket); err == nil {
		if sess, name, _, err := snapshot.Latest(sdir); err == nil && sess != nil {
			b, _ := json.MarshalIndent(sess, "", " ")
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the newest snapshot before the restore, %s:\n%s", name, b)
				}
			})
		}
	}
	r.startIn("after", "")
	s := r.waitIn("after", "restore the session of ")
	if !strings.Contains(s, "3 tabs, 9 panes? (y/n)") {
		t.Errorf("the question does not count the session:\n%s", s)
	}
	r.keysTo("after", "y")
	s = r.waitIn("after", "2:agents")
	// The status line says it for a while; a loaded machine may take longer to get here.
	if log := r.log(); !strings.Contains(s, "grants (r) were not") && !strings.Contains(log, "1 grants (r) were not: each call asks again") {
		t.Errorf("the lost grant is not said:\n%s\n%s", s, log)
	}
	// Tab 0 (the demo's Ticks) is shown; its Ticks are ready again.
	r.waitIn("after", "counter")
	r.waitUntil("after", "the demo's Ticks ready", func(s string) bool { return strings.Count(s, "· ready") >= 5 })
	// Tab 1: less runs again in proj-b; the http server is offered (zoomed).
	r.keysTo("after", "C-b", "1")
	s = r.waitIn("after", "-m http.server 0 --bind 127.0.0.1 · Enter runs it again")
	r.keysTo("after", "C-b", "z")
	r.waitIn("after", "first-line-of-notes")
	r.keysTo("after", "C-b", "z")
	r.keysTo("after", "Enter")
	r.waitIn("after", "Serving HTTP")
	// Tab 2: the agent offered with its own resume, in its directory.
	r.keysTo("after", "C-b", "2")
	r.waitIn("after", "Claude Code session 5f0c-res… · Enter resumes it: cd "+dirA+" && claude --resume 5f0c")

	// The card that waited has its outcome.
	log := r.run("log")
	if !strings.Contains(log, "voided: the server ended") || strings.Contains(log, "no outcome recorded") {
		t.Errorf("the journal has no outcome for the card that waited:\n%s", log)
	}
	// No grant: the same call asks again.
	again := r.startCall("--json", "hosted:1", "increment", `{"amount":3}`)
	r.keysTo("after", "C-b", "0")
	r.waitIn("after", "wants to call increment on hosted:1")
	r.answerCardIn("after", "APPROVE", "n")
	<-again.done // denied: it fails; startCall's goroutine waited for it

	// A server that ended by kill-server is not offered again.
	r.run("kill-server")
	r.waitAllEnded(10*time.Second, "kill-server")
	exec.Command("tmux", "-S", r.tmuxSoc, "kill-session", "-t", "after").Run() // it may have ended with its view
	r.startIn("third", "")
	s = r.waitIn("third", "shell:1")
	if strings.Contains(s, "restore the session") {
		t.Errorf("a session that ended by kill-server is offered:\n%s", s)
	}
}
