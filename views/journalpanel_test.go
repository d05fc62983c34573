package views

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
	"tickmux/host"
	"tickmux/host/journal"
)

// newJournalHarness is newHarness with the approval journal in dir.
func newJournalHarness(t *testing.T, dir string) *harness {
	t.Helper()
	t.Setenv("NO_COLOR", "")
	j, _ := journal.Open(dir, 0) // a journal that cannot be opened retries, and warns, at each entry
	hs := &harness{t: t, done: make(chan error, 1)}
	var app *App
	var mu sync.Mutex
	hs.queue = host.NewApprovalQueue(func() {
		mu.Lock()
		a := app
		mu.Unlock()
		if a != nil {
			a.ApprovalsChanged()
		}
	})
	hs.h = host.New(host.Config{Approver: hs.queue, Journal: j, Logf: func(f string, args ...any) { t.Logf("host: "+f, args...) }})
	sc := tcell.NewSimulationScreen("UTF-8")
	a := New(Options{Host: hs.h, Approvals: hs.queue, Config: config.Default(), Screen: sc})
	sc.SetSize(160, 50)
	hs.screen = sc
	mu.Lock()
	app = a
	mu.Unlock()
	hs.app = a
	t.Cleanup(hs.close)
	t.Cleanup(func() { j.Close() })
	return hs
}

func callAsync(in *host.Instance, args string) chan error {
	done := make(chan error, 1)
	go func() { // owner: the test; ends when the call is answered
		_, err := in.Call(context.Background(), host.CallRequest{Client: "agent", Tool: "increment", Args: json.RawMessage(args)})
		done <- err
	}()
	return done
}

// The side panel's recent calls show the change each call made, as tickmux log does, and the
// next card for the same tool shows the last change it made.
func TestPanelShowsJournalChanges(t *testing.T) {
	hs := newJournalHarness(t, filepath.Join(t.TempDir(), "state"))
	in := hs.openTick("plain")
	hs.start()
	done := callAsync(in, `{"amount":5}`)
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")
	hs.typeText("y")
	if err := answered(t, done); err != nil {
		t.Fatal(err)
	}
	hs.waitFor("/value: 0 → 5")

	done = callAsync(in, `{"amount":2}`)
	hs.prefix()
	hs.typeText("a")
	scr := hs.waitFor("it changed:")
	if card := cardText(scr); !strings.Contains(card, "/value: 0 → 5") {
		t.Errorf("the card does not show the tool's last change:\n%s", scr)
	}
	hs.typeText("n")
	answered(t, done)
}

// A journal that cannot be written is said on the panel; the call goes on.
func TestPanelWarnsWhenTheJournalCannotBeWritten(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	hs := newJournalHarness(t, filepath.Join(file, "state"))
	in := hs.openTick("plain")
	hs.start()
	done := callAsync(in, `{"amount":5}`)
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")
	hs.typeText("y")
	if err := answered(t, done); err != nil {
		t.Fatalf("the call failed with an unwritable journal: %v", err)
	}
	hs.waitFor("JOURNAL NOT WRITTEN")
}
