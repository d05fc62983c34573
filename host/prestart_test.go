package host

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prestartMain plays a tickmux server that starts the guardian ahead of any pane: it exits 0 once
// a child of its own runs as the guardian, 1 if none does within hangGuard.
func prestartMain() int {
	PrestartGuardian()
	for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		kids, _ := filepath.Glob("/proc/self/task/*/children")
		for _, k := range kids {
			b, _ := os.ReadFile(k)
			for _, pid := range strings.Fields(string(b)) {
				env, _ := os.ReadFile("/proc/" + pid + "/environ")
				if bytes.Contains(env, []byte("\x00"+EnvGuardian+"=1\x00")) || bytes.HasPrefix(env, []byte(EnvGuardian+"=1\x00")) {
					return 0
				}
			}
		}
	}
	return 1
}

// PrestartGuardian starts the guardian before any program is launched.
func TestPrestartGuardian(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testExecutable(t))
	cmd.Env = append(os.Environ(), envFakeMode+"=prestart")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("no guardian ran before the first Launch: %v\n%s", err, out)
	}
}
