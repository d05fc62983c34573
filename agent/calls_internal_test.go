package agent

import (
	"strings"
	"testing"
)

// The book of ticketed calls is bounded: a full book drops its oldest uncollected outcome, and
// refuses a new call when every entry still runs (their cards are live and cannot be dropped).
func TestCallBookBounded(t *testing.T) {
	t.Parallel()
	var b callBook
	logs := 0
	logf := func(string, ...any) { logs++ }
	var all []*ticket
	for range maxTickets {
		tk := &ticket{done: make(chan struct{})}
		if err := b.add(tk, "call:", logf); err != nil {
			t.Fatal(err)
		}
		all = append(all, tk)
	}
	err := b.add(&ticket{done: make(chan struct{})}, "call:", logf)
	if e, ok := err.(*Error); !ok || e.Reason != ReasonTooMany {
		t.Fatalf("a call past the bound with every entry running: %v", err)
	}

	b.finish(all[3], CallResult{}, nil)
	b.finish(all[7], CallResult{}, nil)
	extra := &ticket{done: make(chan struct{})}
	if err := b.add(extra, "call:", logf); err != nil {
		t.Fatalf("a call past the bound with finished entries: %v", err)
	}
	if b.get(all[3].name) != nil || b.get(all[7].name) == nil || b.get(extra.name) == nil || logs != 1 {
		t.Errorf("want the oldest finished entry dropped (and logged): %s %v, %s %v, logs %d",
			all[3].name, b.get(all[3].name) != nil, all[7].name, b.get(all[7].name) != nil, logs)
	}
	if got := b.collect([]string{all[3].name, all[7].name, all[8].name}); len(got) != 2 ||
		got[0].Status != StatusUnknown || got[1].Call != all[7].name || got[1].Status != StatusOK {
		t.Errorf("collect: %+v", got)
	}
}

// The server's kept book is bounded per client (maxTickets), then in all (maxKept): once every
// client's share is running, a new client is refused with the limit of all clients, not its own.
// The clients here have a uid each, so the per-uid bound (below) is not what stops them.
func TestKeptBookBoundedPerClientAndInAll(t *testing.T) {
	t.Parallel()
	var b callBook
	logf := func(string, ...any) {}
	for pid := 1; pid <= maxKept/maxTickets; pid++ {
		for range maxTickets {
			if err := b.add(&ticket{done: make(chan struct{}), client: peer{"c", pid, pid}}, keptPrefix, logf); err != nil {
				t.Fatalf("client %d: %v", pid, err)
			}
		}
		err := b.add(&ticket{done: make(chan struct{}), client: peer{"c", pid, pid}}, keptPrefix, logf)
		if e, ok := err.(*Error); !ok || e.Reason != ReasonTooMany || !strings.Contains(e.Message, "of this client (c, pid ") {
			t.Fatalf("client %d past its share: %v", pid, err)
		}
	}
	err := b.add(&ticket{done: make(chan struct{}), client: peer{"late", 9999, 9999}}, keptPrefix, logf)
	if e, ok := err.(*Error); !ok || e.Reason != ReasonTooMany || !strings.Contains(e.Message, "1024 kept calls (call --no-wait), of all clients together") {
		t.Fatalf("a new client with the book full: %v", err)
	}
}

// Issue 38: a shell loop of `tickmux call --no-wait` is a new process each time, so the bound per
// process never met it and it filled the whole book. The kept calls of one uid are bounded
// together, well under maxKept: the next process of that uid is refused (naming the uid's
// bound), another uid still gets its calls kept, and a finished call of the uid makes room
// again (its oldest uncollected outcome is dropped).
func TestKeptBookBoundedPerUID(t *testing.T) {
	t.Parallel()
	if maxKeptPerUID >= maxKept/2 {
		t.Fatalf("the per-uid bound (%d) should be well under the total (%d)", maxKeptPerUID, maxKept)
	}
	var b callBook
	logf := func(string, ...any) {}
	var first *ticket
	for pid := 1; pid <= maxKeptPerUID; pid++ { // one call per process, as the loop made them
		tk := &ticket{done: make(chan struct{}), client: peer{"tickmux-cli", 1000, pid}}
		if err := b.add(tk, keptPrefix, logf); err != nil {
			t.Fatalf("call %d: %v", pid, err)
		}
		if first == nil {
			first = tk
		}
	}
	err := b.add(&ticket{done: make(chan struct{}), client: peer{"tickmux-cli", 1000, 100000}}, keptPrefix, logf)
	if e, ok := err.(*Error); !ok || e.Reason != ReasonTooMany ||
		!strings.Contains(e.Message, "256 kept calls (call --no-wait) of uid 1000, all its processes together,") {
		t.Fatalf("a new process of the uid past its bound: %v", err)
	}
	if err := b.add(&ticket{done: make(chan struct{}), client: peer{"other", 1001, 7}}, keptPrefix, logf); err != nil {
		t.Fatalf("another uid: %v", err)
	}
	b.finish(first, CallResult{}, nil)
	again := &ticket{done: make(chan struct{}), client: peer{"tickmux-cli", 1000, 100001}}
	if err := b.add(again, keptPrefix, logf); err != nil {
		t.Fatalf("after one of its calls ended: %v", err)
	}
	if b.get(first.name) != nil || b.get(again.name) == nil {
		t.Errorf("want the finished call's outcome dropped for the new one")
	}
}
