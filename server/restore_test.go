package server

import (
	"os"
	"strings"
	"testing"
	"time"

	"tickmux/config"
	"tickmux/host/journal"
	"tickmux/host/snapshot"
)

func card(n uint64) *uint64 { return &n }

// Issue 39: the cards a dead server left waiting get their outcome line at the next start, once;
// the other runs' (another server's, on another socket) are left alone; what ended by itself is
// not offered again.
func TestPlanRestoreVoidsTheDeadServersCards(t *testing.T) {
	state := t.TempDir()
	jr, err := journal.Open(state, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer jr.Close()
	old := time.Now().Add(-time.Minute)
	for _, e := range []journal.Entry{
		{Time: old, Run: "dead", Card: card(1), Kind: "call", Tool: "increment", Decision: journal.Waiting},
		{Time: old, Run: "dead", Card: card(2), Kind: "open", Decision: journal.Waiting},
		{Time: old, Run: "dead", Card: card(2), Kind: "open", Decision: journal.Once, Outcome: &journal.Outcome{Status: journal.StatusOK}},
		{Time: old, Run: "alive", Card: card(1), Kind: "call", Decision: journal.Waiting},
	} {
		if err := jr.AppendOfRun(e); err != nil {
			t.Fatal(err)
		}
	}
	dir := snapshot.Dir(state, "/run/x.sock")
	store, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sess := &snapshot.Session{Time: time.Now(), Run: "dead", Tabs: []snapshot.Tab{{Panes: []snapshot.Pane{{Kind: snapshot.KindShell}}, Zoomed: -1, Float: -1}}}
	if _, err := store.Write(sess); err != nil {
		t.Fatal(err)
	}
	logf := func(f string, a ...any) { t.Logf(f, a...) }
	plan, notes := planRestore(dir, "", config.RestoreAsk, jr, logf)
	if plan.sess == nil || plan.mode != config.RestoreAsk || len(notes) != 0 {
		t.Fatalf("plan = %+v, notes %q", plan, notes)
	}
	entries, _ := jr.Entries()
	var voided []journal.Entry
	for _, e := range entries {
		if e.Decision == journal.Voided {
			voided = append(voided, e)
		}
	}
	if len(voided) != 1 || voided[0].Run != "dead" || *voided[0].Card != 1 || voided[0].Tool != "increment" {
		t.Fatalf("voided = %+v, want card 1 of the dead run only", voided)
	}
	if got := journal.DecisionText(voided[0]); !strings.HasPrefix(got, "voided: the server ended") {
		t.Errorf("the journal's line says %q", got)
	}
	// A second start finds nothing more to void.
	planRestore(dir, "", config.RestoreAsk, jr, logf)
	if entries2, _ := jr.Entries(); len(entries2) != len(entries) {
		t.Errorf("a second start wrote %d more lines", len(entries2)-len(entries))
	}
	// restore = "off": nothing offered; a snapshot marked as ended (quit, kill-server): nothing.
	if plan, _ := planRestore(dir, "", config.RestoreOff, jr, logf); plan.sess != nil {
		t.Error("restore = off offered the session")
	}
	if err := store.End("kill-server"); err != nil {
		t.Fatal(err)
	}
	if plan, _ := planRestore(dir, "", config.RestoreAsk, jr, logf); plan.sess != nil {
		t.Error("a session that ended by kill-server was offered")
	}
	// tickmux restore N names a generation: restored even so.
	gens, _ := snapshot.List(dir)
	if plan, _ := planRestore(dir, gens[len(gens)-1].Name, config.RestoreOff, jr, logf); plan.sess == nil || plan.mode != config.RestoreAuto {
		t.Errorf("restore N: %+v", plan)
	}
	store.Close()
}

// A corrupt newest snapshot falls back to the one before, and says so.
func TestPlanRestoreSaysACorruptSnapshot(t *testing.T) {
	state := t.TempDir()
	dir := snapshot.Dir(state, "/run/y.sock")
	store, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, name := range []string{"one", "two"} {
		if _, err := store.Write(&snapshot.Session{Time: time.Now(), Tabs: []snapshot.Tab{{Name: name, Panes: []snapshot.Pane{{Kind: snapshot.KindShell}}, Zoomed: -1, Float: -1}}}); err != nil {
			t.Fatal(err)
		}
	}
	gens, _ := snapshot.List(dir)
	if err := truncate(dir + "/" + gens[0].Name); err != nil {
		t.Fatal(err)
	}
	plan, notes := planRestore(dir, "", config.RestoreAsk, nil, func(string, ...any) {})
	if plan.sess == nil || plan.sess.Tabs[0].Name != "one" {
		t.Fatalf("plan = %+v", plan)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "is corrupt") {
		t.Errorf("notes = %q", notes)
	}
}

func truncate(path string) error { return os.Truncate(path, 10) }
