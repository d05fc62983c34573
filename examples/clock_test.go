package examples

import (
	"testing"
	"time"

	"tickmux/tick/wire"
)

// TestClock: a steady stream of updates with growing ticks and samples in time order; pausing
// stops the clock; time_in answers for a zone and refuses an unknown one.
func TestClock(t *testing.T) {
	c := startExample(t, "", "clock", "--every", "20ms")
	var st clockState
	c.waitUpdate("three ticks", &st, func() bool { return st.Ticks >= 3 })
	if st.EveryMS != 20 || len(st.Samples) < 3 {
		t.Fatalf("state after three ticks: %+v", st)
	}
	var last time.Time
	for _, s := range st.Samples {
		at, err := time.Parse(time.RFC3339Nano, s.At)
		if err != nil || !at.After(last) {
			t.Fatalf("samples out of time order: %+v", st.Samples)
		}
		last = at
	}
	c.mustCall("set_paused", map[string]bool{"paused": true}, nil)
	c.state(&st)
	ticks := st.Ticks
	if !st.Paused {
		t.Fatal("not paused")
	}
	var in struct{ Zone, Time string }
	c.mustCall("time_in", map[string]string{"zone": "Asia/Tokyo"}, &in)
	if _, err := time.Parse(time.RFC3339, in.Time); err != nil || in.Zone != "Asia/Tokyo" || in.Time[len(in.Time)-6:] != "+09:00" {
		t.Fatalf("time_in Asia/Tokyo: %+v", in)
	}
	if f := c.call("time_in", map[string]string{"zone": "Mars/Olympus"}); f.Error == nil || f.Error.Code != wire.CodeInvalidParams {
		t.Fatalf("unknown zone: %s", f)
	}
	c.state(&st)
	if st.Ticks != ticks {
		t.Fatalf("the paused clock ticked: %d, then %d", ticks, st.Ticks)
	}
	c.mustCall("set_paused", map[string]bool{"paused": false}, nil)
	c.waitUpdate("a tick after resuming", &st, func() bool { return st.Ticks > ticks })
}
