package examples

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick/wire"
)

// TestCounterTools: increment changes the value and sends the new state before its result;
// history recovers what updates may have merged; a refused call changes nothing.
func TestCounterTools(t *testing.T) {
	c := startExample(t, "", "counter")
	var st counterState
	c.state(&st)
	if st.Value != 0 || st.Changes != 0 || len(st.Recent) != 0 {
		t.Fatalf("initial state %+v", st)
	}
	var res struct{ Value, N int64 }
	c.mustCall("increment", map[string]int{"amount": 5}, &res)
	if res.Value != 5 || res.N != 1 {
		t.Fatalf("increment 5: %+v", res)
	}
	c.waitUpdate("value 5", &st, func() bool { return st.Value == 5 })
	if len(st.Recent) != 1 || st.Recent[0] != (counterChange{N: 1, Delta: 5, Value: 5, By: "tool", At: st.Recent[0].At}) {
		t.Fatalf("recent after one change: %+v", st.Recent)
	}
	c.mustCall("increment", map[string]int{"amount": -2}, &res)
	if res.Value != 3 {
		t.Fatalf("increment -2: %+v", res)
	}
	var h counterHistory
	c.mustCall("history", map[string]int{"since": 1}, &h)
	if len(h.Changes) != 1 || h.Changes[0].N != 2 || h.Value != 3 || !h.Complete {
		t.Fatalf("history since 1: %+v", h)
	}
	updates := len(c.updates)
	if f := c.call("increment", map[string]int{"amount": 2000000}); f.Error == nil || f.Error.Code != wire.CodeInvalidParams {
		t.Fatalf("increment beyond the schema's maximum: %s", f)
	}
	c.state(&st)
	if st.Value != 3 || len(c.updates) != updates {
		t.Fatalf("a refused call changed the state: %+v", st)
	}
}

// TestCounterHistoryForgets: only the newest changes are kept, and history says so.
func TestCounterHistoryForgets(t *testing.T) {
	t.Parallel()
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	for range counterKept + 10 {
		c.change(1, "key")
	}
	h := c.history(0)
	if len(h.Changes) != counterKept || h.Complete || h.Changes[0].N != 11 {
		t.Fatalf("history(0) after %d changes: %d changes from n=%d, complete %v", counterKept+10, len(h.Changes), h.Changes[0].N, h.Complete)
	}
	if h := c.history(20); !h.Complete || h.Changes[0].N != 21 {
		t.Fatalf("history(20): from n=%d, complete %v", h.Changes[0].N, h.Complete)
	}
}

func TestCounterScreen(t *testing.T) {
	t.Parallel()
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	c.key(key('+'))
	c.key(key('+'))
	c.change(40, "tool")
	c.key(special(tcell.KeyDown))
	want := picture(`
 Counter                    example.counter

                  █ █  ██
                  █ █   █
                  ███   █
                    █   █
                    █   █

  recent changes
  #4    -1 → 41  by key
  #3    +40 → 42  by an agent
  #2    +1 → 2  by key
  #1    +1 → 1  by key
 +/↑ add one   -/↓ subtract one   0 reset
`)
	if got := render(t, 44, 14, c.draw); got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
	c.key(key('0'))
	if h := c.history(0); h.Value != 0 || h.Changes[len(h.Changes)-1].Delta != -41 {
		t.Fatalf("0 did not reset: %+v", h)
	}
}
