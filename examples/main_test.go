package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// The test binary plays the example Ticks (os/exec's pattern): envChild names the example and
// envChildArgs holds its arguments as a JSON array.
const (
	envChild     = "TICKMUX_EXAMPLE_CHILD"
	envChildArgs = "TICKMUX_EXAMPLE_ARGS"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(envChild); name != "" {
		os.Exit(runChild(name))
	}
	// The host's reaper (started by check) serves the whole process by design.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("tickmux/host.reapLoop"), goleak.IgnoreTopFunction("tickmux/host.exitLoop"))
}

func runChild(name string) int {
	ex, ok := Lookup(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "no example %q\n", name)
		return 2
	}
	var args []string
	if raw := os.Getenv(envChildArgs); raw != "" {
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	if err := ex.Run(context.Background(), args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// childEnv is the environment that makes the test binary play an example.
func childEnv(name string, args ...string) []string {
	a, _ := json.Marshal(args)
	// atexit_sleep_ms: a -race binary otherwise sleeps a second on exit.
	return []string{envChild + "=" + name, envChildArgs + "=" + string(a), "GORACE=atexit_sleep_ms=0"}
}
