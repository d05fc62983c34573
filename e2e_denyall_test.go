package main

import (
	"strings"
	"testing"
	"time"
)

// Issue 38: N on a card asks, then denies every waiting card of that card's Tick or pane, typed
// through a real terminal: three sends to shell:1 from its own shell, all denied by prefix a, N, y.
// Key table (README "Using tickmux"): prefix `a` then `N`.
func TestEndToEndDenyAllOfOnePane(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	r.keys("clear; for i in 1 2 3; do tickmux send shell:1 never-typed-$i & done; wait; echo sends-ended-$((6*7))", "Enter")
	r.waitFor("3 pending")
	time.Sleep(time.Second) // the cards' settle time (0.8 s) after the last one came up
	r.prefix("a", "allow once")
	r.keys("N")
	r.waitFor("deny all 3 waiting cards of shell:1? (y/n)")
	r.keys("y")
	s := r.waitFor("sends-ended-42")
	if strings.Contains(s, "never-typed-1\n") || strings.Count(s, "denied") < 3 || strings.Contains(s, "pending") {
		t.Fatalf("after N y:\n%s", s)
	}
}
