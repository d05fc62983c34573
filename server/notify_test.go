package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tickmux/host"
)

// With no view attached, notify_command runs once per new card with the card's summary as JSON
// on stdin; within notifyEvery of a run it runs not again (the log says so); with a view attached
// it does not run (the views rang); a failing command is logged and nothing else.
func TestNotifyCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	var mu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	views := 0
	n := newNotifyCommand("cat >> "+out+"; echo >> "+out, logf, func() int { return views })
	card := func(id uint64) host.Card {
		return host.Card{ID: id, Created: time.Now(), Req: host.ApprovalRequest{Action: host.ActionCall, Client: "agent\x1b", Instance: "hosted:1",
			Title: "Counter", Tool: "increment", Args: json.RawMessage(`{"amount":5}`), Revision: "r1"}}
	}
	n.changed([]host.Card{card(1)})
	n.changed([]host.Card{card(1)})          // the same card: not again
	n.changed([]host.Card{card(1), card(2)}) // within notifyEvery: skipped, logged
	views = 1
	n.lastRun = time.Time{}
	n.changed([]host.Card{card(3)}) // a view is attached
	n.close()

	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 {
		t.Fatalf("notify_command ran %d times, want once:\n%s", len(lines), b)
	}
	var s cardSummary
	if err := json.Unmarshal([]byte(lines[0]), &s); err != nil || s.Card != 1 || s.Tool != "increment" || s.Client != "agent\x1b" || string(s.Args) != `{"amount":5}` {
		t.Fatalf("stdin %q (%v); log %q", b, err, logged)
	}
	mu.Lock()
	if len(logged) != 1 || !strings.Contains(logged[0], "not run for card 2") {
		t.Errorf("log: %q", logged)
	}
	mu.Unlock()

	views = 0
	logged = nil
	f := newNotifyCommand("echo nope >&2; exit 3", logf, func() int { return 0 })
	f.changed([]host.Card{card(1)})
	f.close()
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "failed: exit status 3") || !strings.Contains(logged[0], "nope") {
		t.Errorf("a failing notify_command: log %q", logged)
	}
}
