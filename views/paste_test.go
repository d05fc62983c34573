package views

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// pieceEvent is a piece of a paste's text, as viewterm.EventPasteText carries it (the Mirror
// reads any event with PastedBytes).
type pieceEvent struct{ b []byte }

func (e *pieceEvent) When() time.Time     { return time.Time{} }
func (e *pieceEvent) PastedBytes() []byte { return e.b }

// pasteIn sends text as a bracketed paste from view id's terminal, in pieces of 4 KiB (a read's).
func (vh *viewsHarness) pasteIn(id string, text []byte) {
	sc := vh.views[id]
	sc.PostEventWait(tcell.NewEventPaste(true))
	for len(text) > 0 {
		n := min(len(text), 4096)
		sc.PostEventWait(&pieceEvent{b: text[:n]})
		text = text[n:]
	}
	sc.PostEventWait(tcell.NewEventPaste(false))
}

// catchPaste opens a shell pane whose program takes n bytes of its terminal raw into a file,
// asking for bracketed paste first when bracketed; it returns the file.
func catchPaste(t *testing.T, vh *viewsHarness, n int, bracketed bool) (string, *host.Instance) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pasted")
	mode := ""
	if bracketed {
		mode = `printf '\033[?2004h';`
	}
	script := fmt.Sprintf(`stty raw -echo; %s echo READY-TO-CATCH; head -c %d > %s; echo; echo CAUGHT-ALL; sleep 100`, mode, n, out)
	var in *host.Instance
	var err error
	vh.onUI(func() {
		in, err = vh.app.Open(host.OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", script}})
	})
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, in, "READY-TO-CATCH")
	return out, in
}

func waitText(t *testing.T, in *host.Instance, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(in.Terminal().Text(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pane never showed %q:\n%s", want, in.Terminal().Text())
		}
	}
}

// A paste of several MiB streams into the pane's program in order, once, bracketed as it asked,
// encoded as xterm encodes a paste: line feeds as carriage returns, tabs kept, ESC (so any end
// marker inside the text, even one that a single removal would leave behind) and the terminal's
// special characters as spaces. Keys typed meanwhile in another view go in after it, never inside.
// Issue 24 item 6, issue 26 item 1.
func TestPasteStreamsWholeAndInOrder(t *testing.T) {
	var text bytes.Buffer
	for i := 0; text.Len() < 3<<20; i++ {
		fmt.Fprintf(&text, "echo line %d\tof the paste\n", i)
		if i == 1000 {
			text.WriteString("x\x1b[201~rm -rf ~\n\x1b[20\x1b[201~1~ y\x03\x1a\x00\r\n")
		}
	}
	var want []byte
	want = append(want, "\x1b[200~"...)
	want = appendPasted(want, text.Bytes())
	want = append(want, "\x1b[201~"...)
	if bytes.Count(want, []byte("\x1b")) != 2 || bytes.Contains(want, []byte("\n")) {
		t.Fatal("appendPasted left an ESC or a line feed")
	}

	vh := newViewsHarness(t)
	vh.start()
	vh.attach("a", 120, 40)
	vh.attach("b", 120, 40)
	out, in := catchPaste(t, vh, len(want), true)
	done := make(chan struct{})
	go func() { // owner: the test; ends once the paste is sent
		defer close(done)
		vh.pasteIn("a", text.Bytes())
	}()
	// Keys typed in view b while the paste streams: after it, not inside it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if fi, err := os.Stat(out); err == nil && fi.Size() > 64<<10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the paste never reached the program")
		}
	}
	vh.keysIn("b", runeKey('Q'), runeKey('Q'))
	<-done
	waitText(t, in, "CAUGHT-ALL")
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the program read %d bytes, want %d; first difference at %d: got %q, want %q", len(got), len(want), i,
			got[i:min(len(got), i+40)], want[i:min(len(want), i+40)])
	}
}

// A pane that did not ask for bracketed paste gets the text alone, line feeds as carriage
// returns (what WezTerm sends for `echo hello⏎echo world` reaches it as xterm would send it).
// Issue 26 item 1.
func TestPasteUnbracketedKeepsLineBreaks(t *testing.T) {
	text := "echo hello\necho world\n\tindented"
	want := "echo hello\recho world\r\tindented"
	vh := newViewsHarness(t)
	vh.start()
	vh.attach("a", 120, 40)
	out, in := catchPaste(t, vh, len(want), false)
	vh.pasteIn("a", []byte(text))
	waitText(t, in, "CAUGHT-ALL")
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Fatalf("the program read %q, want %q", got, want)
	}
}

// A paste never answers a card: in card mode, a pasted y (or anything) is dropped; the card
// waits for a key.
// spec: H-K2
// Issue 24 item 6.
func TestPasteNeverAnswersACard(t *testing.T) {
	vh, in := twoViewsOnPlain(t)
	done := approve(in, 4)
	vh.waitView("a", "claude-code wants to call increment", true)
	vh.keysIn("a", prefixKey, runeKey('a'))
	vh.waitView("a", "allow once", true)
	vh.pasteIn("a", []byte("y"))
	vh.pasteIn("a", []byte("yyyy\ny\r"))
	vh.pasteIn("b", []byte("y")) // b is in root mode: its paste goes to the Tick's terminal
	vh.keysSeen(vh.views["a"])   // the App has handled both views' pastes: a sentinel behind each
	vh.keysSeen(vh.views["b"])
	oneCardStillPending(t, vh.harness, done, "a paste answered the card")
	vh.keysIn("a", runeKey('y'))
	if err := answered(t, done); err != nil {
		t.Fatalf("approved call: %v", err)
	}
}

// A paste into the `:` prompt lands on its line, line breaks as spaces.
func TestPasteIntoThePrompt(t *testing.T) {
	vh := newViewsHarness(t)
	vh.openTick("plain")
	vh.start()
	vh.attach("a", 160, 50)
	vh.waitView("a", "VIEWTICK value=0", true)
	vh.keysIn("a", prefixKey, runeKey(':'))
	vh.pasteIn("a", []byte("first\nsecond\x1b[201~"))
	vh.waitView("a", "first second [201~", true)
}

// A paste into a program that reads none of it is given up (after host's 5 s), said on the
// status bar and in the log, and the view that pasted goes on taking keys.
// Issue 24 item 6.
func TestPasteIntoAStoppedProgramIsGivenUp(t *testing.T) {
	vh := newViewsHarness(t)
	vh.start()
	vh.attach("a", 160, 40)
	var in *host.Instance
	var err error
	vh.onUI(func() {
		in, err = vh.app.Open(host.OpenSpec{Shell: true, Argv: []string{"/bin/sh", "-c", "stty raw -echo; echo STOPPING-NOW; kill -STOP $$; exec cat"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, in, "STOPPING-NOW")
	defer syscall.Kill(in.Process().Pid(), syscall.SIGCONT)
	vh.pasteIn("a", bytes.Repeat([]byte("x"), 2<<20))
	vh.waitView("a", "the rest of the paste was dropped", true)
	syscall.Kill(in.Process().Pid(), syscall.SIGCONT)
	vh.keysIn("a", runeKey('A'), runeKey('F'), runeKey('T'), runeKey('E'), runeKey('R'))
	waitText(t, in, "AFTER")
}
