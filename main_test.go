package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// envAsMain makes the test binary be tickmux itself: the end-to-end tests run it in tmux, and the
// demo it starts runs the example Ticks through the same binary.
const envAsMain = "TICKMUX_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if which := os.Getenv(envHugeTick); which != "" {
		os.Exit(hugeTick(which))
	}
	if path := os.Getenv(envForeignListener); path != "" {
		os.Exit(foreignListener(path))
	}
	if os.Getenv(envAsMain) == "1" {
		main()
		return
	}
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("tickmux/host.reapLoop"),
		goleak.IgnoreTopFunction("tickmux/host.exitLoop"),
		goleak.IgnoreTopFunction("os/signal.signal_recv"),
	)
}
