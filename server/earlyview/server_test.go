package earlyview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// envExitAtOnce makes this test binary, started as the server, exit at once.
const envExitAtOnce = "EARLYVIEW_TEST_EXIT_AT_ONCE"

func TestMain(m *testing.M) {
	if os.Getenv(envExitAtOnce) == "1" {
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// A server that exits before it listens: the start says so, and the server is reaped (no zombie
// child is left).
func TestStartServerExitsAtOnce(t *testing.T) {
	t.Setenv(envExitAtOnce, "1")
	s, err := StartServer(ServerArgs(filepath.Join(t.TempDir(), "s.sock"), "", "", 80, 24, false, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err == nil || !strings.Contains(err.Error(), "exited at once") {
		t.Fatalf("Wait = %v, want the server's early exit", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		kids, _ := filepath.Glob("/proc/self/task/*/children")
		left := ""
		for _, k := range kids {
			b, _ := os.ReadFile(k)
			left += strings.TrimSpace(string(b))
		}
		if left == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's process %s was not reaped", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
