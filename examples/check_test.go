package examples

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"tickmux/check"
)

// mustPass runs `tickmux check` on argv and fails on any finding, warnings included: examples
// are meant to be copied.
func mustPass(t *testing.T, argv []string, env []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard
	defer cancel()
	r, err := check.Run(ctx, check.Options{Argv: argv, Env: env, Watch: time.Second})
	if err != nil {
		t.Fatalf("check could not start %v: %v", argv, err)
	}
	for _, f := range r.Findings {
		if f.Rule == "C-R2" && f.Severity == check.SevWarning {
			// A measured latency: on a loaded machine under -race it says more about the
			// machine than about the Tick, and tests keep no timing thresholds.
			t.Logf("%s %s: %s", f.Severity, f.Rule, f.Message)
			continue
		}
		t.Errorf("%s %s: %s", f.Severity, f.Rule, f.Message)
	}
	for _, s := range r.Steps {
		if !s.OK {
			t.Errorf("step %q: %s", s.Name, s.Detail)
		}
	}
	if !r.OK {
		t.Fatalf("check failed %v", argv)
	}
}

// TestExamplesPassCheck: every built-in example passes `tickmux check`.
func TestExamplesPassCheck(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range All() {
		t.Run(ex.Name, func(t *testing.T) {
			mustPass(t, []string{exe}, childEnv(ex.Name))
		})
	}
}

// TestMinimalGoTickPassesCheck builds the Go example of docs/ticks.md as it is and checks it.
func TestMinimalGoTickPassesCheck(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "minimal")
	build := exec.Command("go", "build", "-o", bin, "./minimal")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/minimal: %v\n%s", err, out)
	}
	mustPass(t, []string{bin}, nil)
}

// TestPythonTickPassesCheck checks the Python example of docs/ticks.md (python3 comes with
// scripts/install-test-deps).
func TestPythonTickPassesCheck(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is not installed; run scripts/install-test-deps")
	}
	script, err := filepath.Abs(filepath.Join("python", "note.py"))
	if err != nil {
		t.Fatal(err)
	}
	mustPass(t, []string{python, script}, nil)
}
