package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// catchPaste types, into the shell pane of the e2e session, a command that takes n bytes of its
// terminal raw into a file (asking for bracketed paste first when bracketed, turning it off
// otherwise), waits until it runs, and returns the file and the word it prints once done.
func (r *tmuxRig) catchPaste(name string, n int, bracketed bool) (file, done string) {
	r.t.Helper()
	file = filepath.Join(r.dir, name)
	mode := `printf '\033[?2004l'`
	if bracketed {
		mode = `printf '\033[?2004h'`
	}
	ready, done := "ready-"+name, "caught-"+name
	r.keys(fmt.Sprintf("stty raw -echo; %s; echo %s-$((1+1)); head -c %d > %s; stty sane; echo %s-$((2+2))", mode, ready, n, file, done), "Enter")
	r.waitFor(ready + "-2")
	return file, done + "-4"
}

// pasteBuffer pastes text into the e2e session as a terminal pastes: bracketed (tickmux's view
// asked for it), line feeds kept as they are (-r: as WezTerm and others send them).
func (r *tmuxRig) pasteBuffer(text string) {
	r.t.Helper()
	buf := filepath.Join(r.dir, "paste-buffer")
	if err := os.WriteFile(buf, []byte(text), 0o600); err != nil {
		r.t.Fatal(err)
	}
	r.tmux("load-buffer", "-b", "p", buf)
	r.tmux("paste-buffer", "-p", "-r", "-b", "p", "-t", "e2e")
}

func (r *tmuxRig) caught(file, done string, want []byte) {
	r.t.Helper()
	r.waitFor(done)
	got, err := os.ReadFile(file)
	if err != nil {
		r.t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		r.t.Fatalf("the program read %d bytes, want %d; first difference at %d: got %q, want %q", len(got), len(want), i,
			got[i:min(len(got), i+60)], want[i:min(len(want), i+60)])
	}
}

// A paste reaches the program in a pane as xterm would send it, through the real key path (a
// terminal's bracketed paste into the view, tmux here): line breaks as carriage returns, tabs
// kept, bracketed when the program asked and bare when it did not; several MiB arrive whole and
// in order, once.
// Issue 26 item 1, issue 24 item 6. docs/reference.md "Terminal panes and `tickmux snap`": pastes.
func TestEndToEndPasteAsSent(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("sh · ready")
	r.typeLine("echo up-$((1+1))", "up-2")

	text := "echo hello\necho world\n\tindented; x"
	want := "\x1b[200~echo hello\recho world\r\tindented; x\x1b[201~"
	file, done := r.catchPaste("bracketed", len(want), true)
	r.pasteBuffer(text)
	r.caught(file, done, []byte(want))

	want = "echo hello\recho world\r\tindented; x"
	file, done = r.catchPaste("bare", len(want), false)
	r.pasteBuffer(text)
	r.caught(file, done, []byte(want))

	var big strings.Builder
	for i := 0; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "echo line %d\tof a paste of 3 MiB\n", i)
	}
	wantBig := "\x1b[200~" + strings.ReplaceAll(big.String(), "\n", "\r") + "\x1b[201~"
	file, done = r.catchPaste("big", len(wantBig), true)
	r.pasteBuffer(big.String())
	r.caught(file, done, []byte(wantBig))

	// The shell still runs what is typed, once the paste is in.
	r.typeLine("echo after-$((3+3))", "after-6")
}

// A paste never answers a card: in card mode a pasted y (or a paste holding the prefix and a y)
// is dropped, and the call waits for a key.
// Issue 24 item 6.
func TestEndToEndPasteNeverAnswersACard(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start("demo")
	r.waitFor("hosted:5 Jobs · ready")
	call := r.startCall("--json", "hosted:1", "increment", `{"amount":5}`)
	r.waitFor("wants to call increment on hosted:1")
	r.keys("C-b", "a")
	r.waitFor("APPROVE")
	r.pasteBuffer("y")
	r.pasteBuffer("\x02ay\ny")
	// The sentinel: Escape, typed after the pastes, leaves card mode; the card still waits.
	r.keys("Escape")
	if s := r.waitGone("e2e", "APPROVE"); !strings.Contains(s, "wants to call increment on hosted:1") {
		t.Fatalf("a paste answered the card:\n%s", s)
	}
	call.stillWaiting(t)
	r.keys("C-b", "a")
	r.waitFor("APPROVE")
	r.keys("y")
	if out := call.returned(t); !strings.Contains(strings.ReplaceAll(out, " ", ""), `"value":5`) {
		t.Fatalf("call result %s does not carry the new value 5", out)
	}
}

// waitUntilOr polls session's screen for up to d and reports whether ok held.
func (r *tmuxRig) waitUntilOr(session string, d time.Duration, ok func(string) bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if ok(r.screenOf(session)) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
