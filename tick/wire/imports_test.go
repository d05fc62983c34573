package wire_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The host side draws nothing: the host, check, the agent side and this package must never pull
// in a terminal UI library, directly or through another package (issue 15: host/ imports no UI),
// nor the view client and its server (package server; the socket's path is internal/sockpath).
func TestNoUIInTheHostSide(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "tickmux/tick/wire", "tickmux/host", "tickmux/host/trim", "tickmux/check", "tickmux/agent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, ui := range []string{"github.com/gdamore/tcell", "github.com/rivo/tview", "golang.org/x/term", "tickmux/views", "tickmux/tick", "tickmux/server"} {
			if dep == ui || strings.HasPrefix(dep, ui+"/") && !strings.HasPrefix(dep, "tickmux/tick/wire") {
				t.Errorf("the host side depends on %s", dep)
			}
		}
	}
}
