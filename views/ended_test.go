package views

import (
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
