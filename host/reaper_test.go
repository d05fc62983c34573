package host

import (
	"strconv"
	"testing"
)

// The reaper's set of ended instances is bounded: a tickmux that runs many Ticks over days keeps
// the newest maxEnded ids (whose strays are killed on sight) and forgets the oldest first.
func TestEndedSetBounded(t *testing.T) {
	t.Parallel()
	var s endedSet
	for i := range 3 * maxEnded {
		s.add("t" + strconv.Itoa(i))
		s.add("t" + strconv.Itoa(i)) // twice: no duplicate entry
	}
	if len(s.has) != maxEnded || len(s.order) != maxEnded {
		t.Fatalf("the set holds %d ids (%d in order), want %d", len(s.has), len(s.order), maxEnded)
	}
	newest, oldestKept, forgotten := "t"+strconv.Itoa(3*maxEnded-1), "t"+strconv.Itoa(2*maxEnded), "t"+strconv.Itoa(2*maxEnded-1)
	if !s.has[newest] || !s.has[oldestKept] || s.has[forgotten] {
		t.Errorf("has %s=%v %s=%v %s=%v, want true true false",
			newest, s.has[newest], oldestKept, s.has[oldestKept], forgotten, s.has[forgotten])
	}
}
