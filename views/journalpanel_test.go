package views

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/host/journal"
)

// newJournalHarness is newHarness with the approval journal in dir.
func newJournalHarness(t *testing.T, dir string) *harness {
	t.Helper()
	j, _ := journal.Open(dir, 0)    // a journal that cannot be opened retries, and warns, at each entry
	t.Cleanup(func() { j.Close() }) // after the harness's own cleanup, which stops the App
	sc := tcell.NewSimulationScreen("UTF-8")
	hs := newHarnessWith(t, sc, j) // New initializes sc
	sc.SetSize(160, 50)
	hs.screen = sc
	return hs
}

// allowOnceByKeys answers the call's card with prefix a, then y, and returns the call's result.
func (hs *harness) allowOnceByKeys(done chan error) error {
	hs.t.Helper()
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")
	hs.typeText("y")
	return answered(hs.t, done)
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
	hs.waitFor("wants to call increment")
	time.Sleep(1100 * time.Millisecond) // the call is asked for in one second and changes in a later one
	if err := hs.allowOnceByKeys(done); err != nil {
		t.Fatal(err)
	}
	hs.waitFor("/value: 0 → 5")
	var first host.CallRecord
	for _, c := range in.Calls() {
		if c.Tool == "increment" {
			first = c
		}
	}

	done = callAsync(in, `{"amount":2}`)
	hs.prefix()
	hs.typeText("a")
	scr := hs.waitFor("it changed:")
	if card := cardText(scr); !strings.Contains(card, "/value: 0 → 5") {
		t.Errorf("the card does not show the tool's last change:\n%s", scr)
	}
	// When the change happened: the call's end, not when it was asked for (issue 44 item 8).
	if want := "last time (" + first.Finished.Format("15:04:05") + ")"; !strings.Contains(scr, want) {
		t.Errorf("the card does not say %q (asked at %s):\n%s", want, first.Started.Format("15:04:05"), scr)
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
	if err := hs.allowOnceByKeys(done); err != nil {
		t.Fatalf("the call failed with an unwritable journal: %v", err)
	}
	hs.waitFor("JOURNAL NOT WRITTEN")
}
