package agent

import (
	"fmt"
	"testing"

	"tickmux/host"
)

// A connection's wait cursors stay bounded: a client that is given the state of many instances
// that are then removed keeps only a sweep's worth of cursors, not one per instance ever seen.
func TestCursorsBounded(t *testing.T) {
	t.Parallel()
	c := &conn{s: &Server{h: host.New(host.Config{})}, cursors: map[string]uint64{}}
	for i := range 10 * minCursorSweep {
		c.gave(fmt.Sprintf("t%d", i), 1)
		if n := len(c.cursors); n >= 2*minCursorSweep {
			t.Fatalf("after %d instances the connection holds %d cursors, want under %d", i+1, n, 2*minCursorSweep)
		}
	}
}

// The sweep drops the cursors of instances that are gone and keeps the others, so a wait on a
// live instance still sees only news.
func TestDropCursorsKeepsLive(t *testing.T) {
	t.Parallel()
	cursors := map[string]uint64{"t1": 3, "t2": 5, "s1": 7}
	dropCursors(cursors, func(id string) bool { return id != "t2" })
	if len(cursors) != 2 || cursors["t1"] != 3 || cursors["s1"] != 7 {
		t.Errorf("after the sweep: %v, want t1=3 s1=7", cursors)
	}
}
