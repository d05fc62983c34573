package server

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain lets the test binary play a hung server (kill_test.go) or a starting one (client_test.go), and fails the package when a
// test leaves a goroutine behind (goleak).
func TestMain(m *testing.M) {
	if path := os.Getenv(envHung); path != "" {
		playHungServer(path)
		return
	}
	if how := os.Getenv(envStartingServer); how != "" {
		os.Exit(playStartingServer(how))
	}
	goleak.VerifyTestMain(m)
}
