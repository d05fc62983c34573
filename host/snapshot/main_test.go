package snapshot

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// crashChildEnv names the directory a re-executed test binary writes snapshots in, in a loop,
// until TestCrashNeverCostsMoreThanTheLastChange kills it; crashStartEnv its first counter.
const (
	crashChildEnv = "TICKMUX_SNAPSHOT_CRASH_DIR"
	crashStartEnv = "TICKMUX_SNAPSHOT_CRASH_START"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(crashChild(dir))
	}
	os.Exit(m.Run())
}

// crashChild writes crashSession(n) for n from $TICKMUX_SNAPSHOT_CRASH_START on, printing n on a
// line of its own once its Write has returned. It stops by itself after a minute, should the
// parent never kill it.
func crashChild(dir string) int {
	start, err := strconv.Atoi(os.Getenv(crashStartEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad start:", err)
		return 2
	}
	s, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	deadline := time.Now().Add(time.Minute)
	for n := start; time.Now().Before(deadline); n++ {
		if _, err := s.Write(crashSession(n)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if _, err := fmt.Fprintln(os.Stdout, n); err != nil {
			return 2
		}
	}
	return 0
}

// crashSession is the n-th session the crash child writes: its counter in the first tab's
// name, and every pane's scrollback full (a large file, long to write: a writer that is not
// atomic is caught in the middle), the first's of a length that varies with n, every line
// starting with n.
func crashSession(n int) *Session {
	sess := benchSession()
	sess.Tabs[0].Name = strconv.Itoa(n)
	prefix := fmt.Sprintf("%06d ", n)
	for ti := range sess.Tabs {
		for pi := range sess.Tabs[ti].Panes {
			lines := make([]string, MaxScrollback/4+n%97*3)
			for i := range lines {
				lines[i] = prefix + crashLine
			}
			sess.Tabs[ti].Panes[pi].Scrollback = lines
		}
	}
	return sess
}

const crashLine = "a line of the pane's scrollback, about as long as a line of output is"
