package vt

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The host's reaper (used by the tests that run real programs) lives as long as the process.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("tickmux/host.reapLoop"), goleak.IgnoreTopFunction("tickmux/host.exitLoop"))
}
