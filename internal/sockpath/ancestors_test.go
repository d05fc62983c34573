package sockpath

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The test binary, run with TEST_SOCKPATH_ANCESTORS=1 and a pruned environment, prints what
// FromAncestors finds: the path, and "found" or "none".
func TestMain(m *testing.M) {
	if os.Getenv("TEST_SOCKPATH_ANCESTORS") == "1" {
		path, _, ok := FromAncestors()
		word := "none"
		if ok {
			word = "found"
		}
		os.Stdout.WriteString(path + " " + word + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Issue 44 item 7: a client that starts `tickmux mcp` with a pruned environment (Codex, the MCP
// Inspector) drops TICKMUX_SOCKET; the socket is still named in the environment of the agent that
// runs in the pane, an ancestor, and the nearest one that names it wins.
func TestFromAncestors(t *testing.T) {
	// this test → sh (named "outer", TICKMUX_SOCKET=/run/a.sock) → sh (named "agent",
	// TICKMUX_SOCKET=/run/b.sock) → the test binary with only PATH: it must find /run/b.sock.
	inner := `exec -a agent sh -c 'env -i PATH="$PATH" TEST_SOCKPATH_ANCESTORS=1 "$0"; :' "$0"`
	cmd := exec.Command("/bin/bash", "-c", `TICKMUX_SOCKET=/run/b.sock bash -c "$1" "$0"; :`, os.Args[0], inner)
	cmd.Env = append(os.Environ(), "TICKMUX_SOCKET=/run/a.sock")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.Fields(string(out)); len(got) != 2 || got[0] != "/run/b.sock" || got[1] != "found" {
		t.Fatalf("FromAncestors gave %q, want /run/b.sock from the nearest ancestor", out)
	}
	// No ancestor names one: nothing found.
	cmd = exec.Command("/bin/sh", "-c", `"$0"; :`, os.Args[0])
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TEST_SOCKPATH_ANCESTORS=1"}
	if os.Getenv(EnvSocket) != "" {
		t.Skip("this test's own ancestors name a socket")
	}
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "none") {
		t.Fatalf("with no ancestor naming a socket: %q %v", out, err)
	}
}
