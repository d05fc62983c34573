package main

// The approval journal end to end: a real server in tmux, agents calling through the socket,
// the person answering with keys; `tickmux log --json` holds every decision with its fields,
// survives kill -9 of the server and a restart, and a waiting card rings the view's bell.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"tickmux/host/journal"
)

// logEntries runs tickmux log --json and parses its lines.
func (r *tmuxRig) logEntries(args ...string) []journal.Entry {
	r.t.Helper()
	out := r.run(append([]string{"log", "--json"}, args...)...)
	var es []journal.Entry
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var e journal.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			r.t.Fatalf("tickmux log --json printed a line that is not an entry: %q: %v", line, err)
		}
		es = append(es, e)
	}
	return es
}

// waitLog waits until tickmux log --json holds an entry that ok accepts.
func (r *tmuxRig) waitLog(what string, ok func(journal.Entry) bool) journal.Entry {
	r.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		for _, e := range r.logEntries() {
			if ok(e) {
				return e
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the journal has no entry for %s:\n%s\nlog:\n%s", what, r.run("log", "--json"), r.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bellFlag reads tmux's bell flag of session's window: tmux sets it when the program in the
// window rings the bell (a detached session's window keeps it).
func (r *tmuxRig) bellFlag(session string) string {
	return strings.TrimSpace(r.tmux("display-message", "-p", "-t", session, "#{window_bell_flag}"))
}

// examplePID is the pid of the demo's example Tick name.
func (r *tmuxRig) examplePID(t *testing.T, name string) int {
	t.Helper()
	for _, pid := range r.launched() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.HasSuffix(cmdline, []byte("example\x00"+name+"\x00")) {
			return pid
		}
	}
	t.Fatalf("no %s Tick among the rig's processes", name)
	return 0
}

func hasArgs(e journal.Entry, args string) bool {
	return strings.ReplaceAll(string(e.Args), " ", "") == args
}

// The test: an approved, a denied, a granted, a withdrawn and a voided card each appear in
// tickmux log --json with their fields; the approved call's change is exact; a card rings the
// bell once; the journal survives kill -9 of the server, and the next server adds to it.
// README "The approval journal".
// spec: H-E1 (each outcome's effect)
func TestEndToEndJournal(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("demo")
	r.waitFor("hosted:5 Jobs · ready")
	if f := r.bellFlag("e2e"); f != "0" {
		t.Fatalf("the bell flag is %q before any card", f)
	}

	// Approved once, by the view's y.
	call := r.startCall("--json", "hosted:1", "increment", `{"amount":5}`)
	r.waitFor("wants to call increment on hosted:1")
	// The card rang the bell of the view's terminal (tmux's window bell flag).
	for deadline := time.Now().Add(20 * time.Second); r.bellFlag("e2e") != "1"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a waiting card did not ring the view's bell\n%s", r.screen())
		}
	}
	waiting := r.waitLog("the waiting card", func(e journal.Entry) bool { return e.Decision == journal.Waiting })
	r.answerCardIn("e2e", "APPROVE", "y")
	call.returned(t)
	r.waitGone("e2e", "wants to call")
	once := r.waitLog("the approved call", func(e journal.Entry) bool { return e.Decision == journal.Once })

	// Denied with n.
	call = r.startCall("--json", "hosted:1", "increment", `{"amount":2}`)
	r.waitFor("wants to call increment on hosted:1")
	r.answerCardIn("e2e", "APPROVE", "n")
	call.done <- <-call.done // it fails: denied
	r.waitGone("e2e", "wants to call")
	denied := r.waitLog("the denied call", func(e journal.Entry) bool { return e.Decision == journal.Denied })

	// Allowed for the revision with r, then a call that runs under the grant.
	call = r.startCall("--json", "hosted:1", "increment", `{"amount":1}`)
	r.waitFor("wants to call increment on hosted:1")
	r.answerCardIn("e2e", "APPROVE", "r")
	call.returned(t)
	r.waitGone("e2e", "wants to call")
	rev := r.waitLog("the revision answer", func(e journal.Entry) bool { return e.Decision == journal.Revision })
	call = r.startCall("--json", "hosted:1", "increment", `{"amount":3}`)
	call.returned(t)
	granted := r.waitLog("the granted call", func(e journal.Entry) bool { return e.Decision == journal.Granted })

	// Withdrawn: the agent gives up while its card waits.
	call = r.startCall("--json", "hosted:2", "add_note", `{"text":"x"}`)
	r.waitFor("wants to call add_note on hosted:2")
	call.cmd.Process.Kill()
	withdrawn := r.waitLog("the withdrawn card", func(e journal.Entry) bool { return e.Decision == journal.Withdrawn })
	r.waitGone("e2e", "wants to call")

	// Voided: the Tick ends while its card waits.
	call = r.startCall("--json", "hosted:5", "stop", `{"id":1}`)
	r.waitFor("wants to call stop on hosted:5")
	syscall.Kill(r.examplePID(t, "jobs"), syscall.SIGKILL)
	voided := r.waitLog("the voided card", func(e journal.Entry) bool { return e.Decision == journal.Voided })
	r.waitGone("e2e", "wants to call")

	t.Logf("tickmux log:\n%s", r.run("log"))
	for name, e := range map[string]journal.Entry{"once": once, "denied": denied, "revision": rev, "granted": granted, "withdrawn": withdrawn, "voided": voided} {
		if e.Kind != "call" || e.Instance == "" || e.Tool == "" || len(e.Args) == 0 || e.Revision == "" || e.Outcome == nil ||
			e.Client.Name == "" || e.Client.PID == 0 || e.Client.UID == nil || e.Tick == nil || e.Tick.Kind == "" || e.Time.IsZero() || e.Run == "" {
			t.Errorf("%s: an entry lacks fields: %+v", name, e)
		}
		if name == "granted" {
			if e.Card != nil || e.GrantedBy == nil || rev.Card == nil || *e.GrantedBy != *rev.Card || e.View != nil {
				t.Errorf("granted: card %v, granted_by %v, view %v; want no card, granted by card %v, no view", e.Card, e.GrantedBy, e.View, rev.Card)
			}
			continue
		}
		if e.Card == nil {
			t.Errorf("%s: no card number", name)
		}
		answered := name == "once" || name == "denied" || name == "revision"
		if answered != (e.View != nil && strings.HasPrefix(*e.View, "view 1 /dev/")) {
			t.Errorf("%s: view %v", name, e.View)
		}
	}
	if *waiting.Card != *once.Card || waiting.Outcome != nil || !hasArgs(once, `{"amount":5}`) {
		t.Errorf("the waiting line (card %d) and the outcome line (card %d, args %s) do not match", *waiting.Card, *once.Card, once.Args)
	}
	if once.Outcome.Status != "ok" || denied.Outcome.Status != "error" || denied.Outcome.Effect != "none" ||
		withdrawn.Outcome.Effect != "none" || voided.Outcome.Effect != "none" {
		t.Errorf("outcomes: once %+v, denied %+v, withdrawn %+v, voided %+v", once.Outcome, denied.Outcome, withdrawn.Outcome, voided.Outcome)
	}
	// The approved call's change, exactly: the counter went from 0 to 5 and recorded it.
	change, _ := json.Marshal(once.Change)
	if once.SeqBefore == nil || once.SeqAfter == nil || *once.SeqAfter <= *once.SeqBefore || once.Merged != 0 ||
		!strings.Contains(string(change), `{"op":"replace","path":"/value","value":5,"old":0}`) {
		t.Errorf("the approved call's change: seq %v -> %v, merged %d, %s", once.SeqBefore, once.SeqAfter, once.Merged, change)
	}
	if human := r.run("log", "hosted:1"); !strings.Contains(human, "/value: 0 → 5") || !strings.Contains(human, "allowed once (view 1 /dev/") {
		t.Errorf("tickmux log hosted:1 does not show the change:\n%s", human)
	}

	// kill -9 of the server while a card waits: its waiting line is there, and so is all the rest.
	call = r.startCall("--json", "hosted:2", "add_note", `{"text":"y"}`)
	r.waitFor("wants to call add_note on hosted:2")
	last := r.waitLog("the last waiting card", func(e journal.Entry) bool {
		return e.Decision == journal.Waiting && e.Instance == "hosted:2"
	})
	syscall.Kill(r.serverPID(t), syscall.SIGKILL)
	call.done <- <-call.done
	exec.Command("tmux", "-S", r.tmuxSoc, "kill-session", "-t", "e2e").Run() // gone with its view, or going
	r.waitAllEnded(10*time.Second, "the killed server")
	after := r.logEntries()
	if len(after) != 7 || after[6].Decision != journal.Waiting || after[6].Run != last.Run {
		t.Fatalf("after kill -9 the journal holds %d entries, want 6 outcomes and the waiting card:\n%s", len(after), r.run("log"))
	}
	// The next server appends to the same journal: first the outcome of the card the killed
	// server left waiting (issue 39), and it offers the killed server's session, which n declines.
	r.startIn("next", "demo")
	r.waitIn("next", "restore the session of ")
	r.keysTo("next", "n")
	r.waitIn("next", "not restored")
	r.waitIn("next", "hosted:5 Jobs · ready")
	voidedNow := r.waitLog("the outcome of the card left waiting", func(e journal.Entry) bool {
		return e.Run == last.Run && e.Decision == journal.Voided && e.Card != nil && *e.Card == *last.Card
	})
	if voidedNow.Outcome == nil || voidedNow.Outcome.Message != "the server ended" {
		t.Errorf("the card left waiting got %+v", voidedNow.Outcome)
	}
	call = r.startCall("--json", "hosted:1", "increment", `{"amount":4}`)
	r.waitIn("next", "wants to call increment on hosted:1")
	r.answerCardIn("next", "APPROVE", "y")
	call.returned(t)
	next := r.waitLog("the next server's call", func(e journal.Entry) bool { return e.Run != last.Run && e.Decision == journal.Once })
	// Six outcomes, the left card's (its waiting line now collapsed into it) and the next call.
	if next.Card == nil || *next.Card != 1 || len(r.logEntries()) != 8 {
		t.Fatalf("the next server's entry %+v; the journal holds %d entries, want 8", next, len(r.logEntries()))
	}
}

// An agent that runs in a tickmux pane is named by that pane in the journal; an open is journaled
// with the instance it started.
func TestEndToEndJournalNamesThePane(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	r.waitFor("$ ")
	r.keys("tickmux open -- tickmux example counter", "Enter")
	r.waitFor("wants to open")
	r.answerCardIn("e2e", "APPROVE", "y")
	e := r.waitLog("the open", func(e journal.Entry) bool { return e.Kind == "open" && e.Decision == journal.Once })
	if e.Client.Pane != "shell:1" || e.Instance != "hosted:1" || e.Outcome == nil || e.Outcome.Status != "ok" ||
		len(e.Argv) != 3 || e.Argv[1] != "example" {
		t.Fatalf("the open's entry: %+v", e)
	}
}
