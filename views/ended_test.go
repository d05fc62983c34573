package views

import (
	"strings"
	"testing"

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
