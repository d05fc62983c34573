package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func entry(card uint64, decision string) Entry {
	c := card
	return Entry{Time: time.Now(), Card: &c, Kind: "call", Tool: "increment", Args: json.RawMessage(`{"amount":1}`),
		Decision: decision, Outcome: &Outcome{Status: StatusOK}}
}

func TestModesAndReadBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "tickmux")
	// A directory and a file left readable by others are the person's alone once opened.
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, Name), nil, 0o644)
	j, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	w := entry(1, Waiting)
	w.Outcome = nil
	for _, e := range []Entry{w, entry(1, Once), entry(2, Denied)} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, Name): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	es, skipped, err := Read(dir)
	if err != nil || skipped != 0 || len(es) != 3 {
		t.Fatalf("read %d entries, %d skipped, %v", len(es), skipped, err)
	}
	if es[0].Run != j.Run() || string(es[1].Args) != `{"amount":1}` {
		t.Fatalf("entry not kept as written: %+v", es[1])
	}
	if c := Collapse(es); len(c) != 2 || c[0].Decision != Once {
		t.Fatalf("Collapse kept %+v, want the two outcome lines", c)
	}
}

// A server killed in the middle of a write leaves a torn last line: readers skip it, and the
// next server's first line starts on a line of its own.
func TestTornLine(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(entry(1, Once)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	f, err := os.OpenFile(filepath.Join(dir, Name), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","card":2,"kind":"ca`)
	f.Close()
	es, skipped, _ := Read(dir)
	if len(es) != 1 || skipped != 1 {
		t.Fatalf("after a torn write: %d entries, %d skipped; want 1 and 1", len(es), skipped)
	}
	j2, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := j2.Append(entry(3, Denied)); err != nil {
		t.Fatal(err)
	}
	j2.Close()
	es, skipped, _ = Read(dir)
	if len(es) != 2 || skipped != 1 || es[1].Decision != Denied {
		t.Fatalf("after the restart: %d entries (%+v), %d skipped; want 2 and 1", len(es), es, skipped)
	}
}

// The files together stay under the bound, the newest entries survive, and many writers at
// once leave only whole lines.
func TestRotationUnderConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	const total = 64 << 10
	j, err := Open(dir, total)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				e := entry(uint64(w*1000+i), Once)
				e.Text = strings.Repeat("x", 100)
				if err := j.Append(e); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var size int64
	for i := range Files + 2 {
		fi, err := os.Stat(path(dir, i))
		if i >= Files {
			if err == nil {
				t.Errorf("%s exists: only %d files are kept", fi.Name(), Files)
			}
			continue
		}
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		size += fi.Size()
	}
	if size > total {
		t.Fatalf("the journal holds %d bytes, more than the bound %d", size, total)
	}
	es, skipped, err := Read(dir)
	if err != nil || skipped != 0 || len(es) == 0 {
		t.Fatalf("%d entries, %d skipped, %v", len(es), skipped, err)
	}
	last := map[uint64]bool{}
	for _, e := range es[len(es)-4:] {
		last[*e.Card%1000] = true
	}
	if !last[499] {
		t.Fatalf("the newest entries were not kept: %v", last)
	}
}

// An entry too large for one line keeps who asked and what was decided, not the change.
func TestHugeChangeOmitted(t *testing.T) {
	e := entry(1, Once)
	e.Change = Patch{{Op: "replace", Path: "/x", Value: json.RawMessage(`"` + strings.Repeat("y", MaxLine) + `"`)}}
	line, err := encode(e)
	if err != nil || len(line) > MaxLine {
		t.Fatalf("line of %d bytes (%v), want at most %d", len(line), err, MaxLine)
	}
	es, _ := Parse(line)
	if len(es) != 1 || es[0].ChangeOmitted == 0 || es[0].Change != nil {
		t.Fatalf("got %+v", es)
	}
}

func TestChangeLines(t *testing.T) {
	t.Parallel()
	p, _ := Diff(json.RawMessage(`{"value":0,"recent":[],"note":"a"}`), json.RawMessage(`{"value":5,"recent":[{"v":5},{"v":6}]}`))
	got := strings.Join(ChangeLines(Entry{Change: p, Merged: 1}, 0), "\n")
	want := "/note: removed (was \"a\")\n/recent: +2 items\n/value: 0 → 5\n(merged: 1 other update arrived while the call ran; the change includes them)"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// Two journals on one directory (two servers, which should not happen) keep whole lines, and one
// follows the other's rotation instead of writing on in a rotated file.
func TestTwoWritersFollowRotation(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, 4*4096)
	b, _ := Open(dir, 4*4096)
	defer a.Close()
	defer b.Close()
	for i := range 200 {
		e := entry(uint64(i), Once)
		e.Text = strings.Repeat("z", 200)
		w := a
		if i%2 == 1 {
			w = b
		}
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	es, skipped, err := Read(dir)
	if err != nil || skipped != 0 {
		t.Fatalf("%d skipped, %v", skipped, err)
	}
	if last := es[len(es)-1]; *last.Card != 199 {
		t.Fatalf("the newest entry is card %d, want 199: a writer kept a rotated file", *last.Card)
	}
	if *es[len(es)-2].Card != 198 {
		t.Fatalf("the entry before the newest is card %d, want 198", *es[len(es)-2].Card)
	}
}

// Issue 44 item 5: an agent's card answered with r allowed its input for the agent session (it
// has no revision), the calls that grant lets through name its card, and an agent outside any
// pane of this tickmux is said to be outside it (its instance is empty).
func TestSummaryOfAgentGrants(t *testing.T) {
	t.Parallel()
	card, by := uint64(6), uint64(5)
	e := Entry{Time: time.Now(), Card: &card, Kind: "agent", Client: Client{Name: "Claude Code", PID: 42}, Tool: "Bash",
		Args: json.RawMessage(`{"command":"touch /tmp/x"}`), Decision: Revision, WaitedMS: 1200, Outcome: &Outcome{Status: StatusOK}}
	got := Summary(e)
	for _, w := range []string{`card 6  agent outside tickmux Bash "touch /tmp/x"  allowed this input for the session (1.2s)  ok  by Claude Code pid 42`} {
		if !strings.Contains(got, w) {
			t.Errorf("Summary = %q, want %q in it", got, w)
		}
	}
	e.Card, e.GrantedBy, e.Decision, e.Instance = nil, &by, Granted, "shell:2"
	if got := Summary(e); !strings.Contains(got, `no card  agent shell:2 Bash "touch /tmp/x"  granted by card 5  ok`) {
		t.Errorf("Summary of the granted call = %q", got)
	}
}
