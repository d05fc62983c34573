package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// deadcodeVersion is the golang.org/x/tools release whose cmd/deadcode scripts/install-test-deps
// installs; change both together.
const deadcodeVersion = "v0.52.0"

// publicDead are functions deadcode reports that stay on purpose, with the reason.
var publicDead = map[string]string{
	"tick/server.go: Server.Revision": "Go SDK API for Ticks written outside this module",
}

// No function is unreachable from every main and test (deadcode -test ./...): code nobody calls
// is removed, not left to rot. Skipped when deadcode is not installed, except in CI (CI=true),
// where scripts/install-test-deps has installed it.
func TestNoDeadCode(t *testing.T) {
	exe := findDeadcode()
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("deadcode is not installed: run scripts/install-test-deps (go install golang.org/x/tools/cmd/deadcode@%s)", deadcodeVersion)
		}
		t.Skipf("deadcode is not installed (go install golang.org/x/tools/cmd/deadcode@%s)", deadcodeVersion)
	}
	out, err := exec.Command(exe, "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("%s -test ./...: %v\n%s", exe, err, out)
	}
	// A line reads "tick/server.go:143:18: unreachable func: Server.Revision".
	line := regexp.MustCompile(`^([^:]+):\d+:\d+: unreachable func: (\S+)$`)
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m != nil && publicDead[m[1]+": "+m[2]] != "" {
			continue
		}
		t.Errorf("deadcode: %s (remove it, or list it in publicDead with the reason)", l)
	}
}

// The pinned version is written once for the script and once for this test; they must agree.
func TestDeadcodeVersionMatchesInstallScript(t *testing.T) {
	script, err := os.ReadFile("scripts/install-test-deps")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "\ndeadcode_version="+deadcodeVersion+"\n") {
		t.Errorf("scripts/install-test-deps does not pin deadcode_version=%s", deadcodeVersion)
	}
}

// findDeadcode looks where go install puts deadcode (as scripts/install-test-deps does), then on
// PATH.
func findDeadcode() string {
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	if err == nil {
		env := strings.Split(string(out), "\n")
		bin := env[0]
		if bin == "" && len(env) > 1 {
			bin = filepath.Join(env[1], "bin")
		}
		if exe := filepath.Join(bin, "deadcode"); bin != "" {
			if _, err := os.Stat(exe); err == nil {
				return exe
			}
		}
	}
	exe, _ := exec.LookPath("deadcode")
	return exe
}
