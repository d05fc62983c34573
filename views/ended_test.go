package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// The panel says an exit status once: after a reason that does not say it, not after one that
// does ("(exit status 3) (exit status 3)" before).
func TestExitNoteSaysTheStatusOnce(t *testing.T) {
	for _, c := range []struct{ reason, status, want string }{
		{"the Tick exited (exit status 3)", "exit status 3", ""},
		{"initialization failed: the Tick exited (exit status 3)", "exit status 3", ""},
		{"initialization failed at tick/describe: the Tick closed its stdout", "exit status 3", " (exit status 3)"},
		{"closed by the person", "", ""},
	} {
		if got := exitNote(&host.EndInfo{Reason: c.reason, ExitStatus: c.status}); got != c.want {
			t.Errorf("exitNote(%q, %q) = %q, want %q", c.reason, c.status, got, c.want)
		}
	}
}

func TestShellJoin(t *testing.T) {
	if got := shellJoin([]string{"sh", "-c", "echo it's $HOME", "a=b"}); got != `sh -c 'echo it'\''s $HOME' a=b` {
		t.Fatalf("shellJoin: %s", got)
	}
}

// Closing what would leave no pane ends a server's tickmux, and the question says so (issue 42
// item 13): prefix & on the only tab, prefix x on the last pane (ended or not: an ended pane
// elsewhere closes without a question). n keeps everything.
func TestClosingTheLastPaneSaysItEndsTickmux(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.app.endWhenEmpty = true
	in := hs.openTick("plain")
	hs.start()
	hs.waitFor(in.ID() + " View Tick · ready")

	hs.prefix()
	hs.typeText("&")
	hs.waitFor("kill the last tab (View Tick) and end tickmux? (y/n)")
	hs.typeText("n")
	hs.waitGone("end tickmux?")

	hs.prefix()
	hs.typeText("x")
	hs.waitFor("close the last pane (" + in.ID() + ") and end tickmux? (y/n)")
	hs.typeText("n")
	hs.waitGone("end tickmux?")

	// Ended, the last pane still asks.
	_ = in.Process().Signal(9)
	hs.waitFor("ended: the Tick exited (signal: killed)")
	hs.prefix()
	hs.typeText("x")
	hs.waitFor("close the last pane (" + in.ID() + ") and end tickmux? (y/n)")
	hs.typeText("n")
	hs.waitGone("end tickmux?")

	// With a second pane, neither question says tickmux ends.
	other := hs.openTick("plain")
	hs.waitFor(other.ID() + " View Tick · ready")
	hs.onUI(func() { hs.app.setFocus(other.ID()) })
	hs.prefix()
	hs.typeText("x")
	s := hs.waitFor("close " + other.ID() + " (View Tick) and end its program? (y/n)")
	if strings.Contains(s, "end tickmux") {
		t.Fatalf("closing one of two panes says tickmux ends:\n%s", s)
	}
	hs.typeText("n")
	hs.prefix()
	hs.typeText("&")
	hs.waitFor("kill the last tab (View Tick) and end tickmux? (y/n)")
	hs.typeText("n")
	hs.waitGone("end tickmux?")
}

// A program opened as a Tick that is none (it writes what is not the protocol to its stdout)
// ends; its pane says so and Enter runs it again as a plain program in the same place, once, and
// only on the key (issue 42 item 16). Enter on another ended pane does nothing.
func TestEnterRunsAFailedTickAsAPlainProgram(t *testing.T) {
	hs := newHarness(t, 160, 50)
	runs := filepath.Join(t.TempDir(), "runs")
	cmd := "echo run >> " + runs + "; echo not-json-$((6*7)); sleep 100"
	hs.start()
	var in *host.Instance
	var err error
	hs.onUI(func() { in, err = hs.app.Open(host.OpenSpec{Argv: []string{"sh", "-c", cmd}}) })
	if err != nil {
		t.Fatal(err)
	}
	hs.waitFor("not a Tick? Enter runs it again as a plain program: sh -c 'echo run >> ")
	if b, _ := os.ReadFile(runs); string(b) != "run\n" {
		t.Fatalf("ran %q before the key", b)
	}
	before := onUIValue(hs, func() Rect { return hs.app.paneRects()[in.ID()] })
	hs.key(tcell.KeyEnter, '\r', tcell.ModNone)
	s := hs.waitFor("not-json-42")
	id := onUIValue(hs, func() string { return hs.app.tab.focus })
	shown := onUIValue(hs, func() bool { _, ok := hs.app.panes[in.ID()]; return ok })
	if !strings.HasPrefix(id, host.PrefixShell) || shown {
		t.Fatalf("Enter did not replace %s with a plain program (focus %s):\n%s", in.ID(), id, s)
	}
	if r := onUIValue(hs, func() Rect { return hs.app.paneRects()[id] }); r != before {
		t.Fatalf("the plain program runs at %v, the Tick was at %v", r, before)
	}
	if b, _ := os.ReadFile(runs); string(b) != "run\nrun\n" {
		t.Fatalf("runs: %q", b)
	}

	// Enter on a plain program's ended pane types nothing and starts nothing.
	_ = hs.h.Get(id).Process().Signal(9)
	hs.waitFor("ended: the program exited (signal: killed)")
	hs.key(tcell.KeyEnter, '\r', tcell.ModNone)
	hs.sync()
	if got := onUIValue(hs, func() string { return hs.app.tab.focus }); got != id {
		t.Fatalf("Enter on an ended plain program's pane started %s", got)
	}
	if b, _ := os.ReadFile(runs); string(b) != "run\nrun\n" {
		t.Fatalf("runs: %q", b)
	}
}
