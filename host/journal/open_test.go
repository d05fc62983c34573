package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spec: issue 38 item 6. A symbolic link planted at the journal's path (to a file the person
// owns elsewhere) is refused with an error that says so, and its target is neither written nor
// chmodded; a planted link for the directory likewise.
func TestJournalRefusesPlantedLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, Name)); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir, 0)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Open over a planted link: %v", err)
	}
	card := uint64(1)
	if err := j.Append(Entry{Time: time.Now(), Card: &card, Kind: "call", Decision: Denied}); err == nil {
		t.Fatal("an entry was written through the planted link")
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("the link's target was chmodded to %04o", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Fatalf("the link's target was written: %q", b)
	}

	elsewhere := t.TempDir()
	if err := os.Chmod(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(t.TempDir(), "tickmux")
	if err := os.Symlink(elsewhere, linked); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(linked, 0); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Open in a planted directory link: %v", err)
	}
	if fi, _ := os.Stat(elsewhere); fi.Mode().Perm() != 0o755 {
		t.Fatalf("the directory link's target was chmodded to %04o", fi.Mode().Perm())
	}
}

// A journal and its directory of our own made wider by hand are made private again.
func TestJournalOwnMadePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tickmux")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Name), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, Name): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
}

// spec: issue 38 item 6. A hook card's line names the agent's tool and what it runs or writes,
// escaped on one line and cut; --json keeps the whole input.
func TestSummaryOfAgentCards(t *testing.T) {
	card := uint64(5)
	long := strings.Repeat("x", 300)
	for _, c := range []struct{ tool, args, want string }{
		{"Bash", `{"command":"rm -rf build &&\n echo done\u200b","description":"d"}`, ` agent %3 Bash "rm -rf build &&\n echo done\u200b"  denied`},
		{"Bash", `{"command":["bash","-lc","echo 'a b'"]}`, ` agent %3 Bash "bash -lc \"echo 'a b'\""  denied`},
		{"Edit", `{"file_path":"/etc/passwd","old_string":"a","new_string":"b"}`, ` agent %3 Edit "/etc/passwd"  denied`},
		{"mcp__s__t", `{"q": 1}`, ` agent %3 mcp__s__t {"q":1}  denied`},
		{"Bash", `{"command":"` + long + `"}`, ` agent %3 Bash "` + strings.Repeat("x", maxArgs-2) + `…  denied`},
	} {
		e := Entry{Time: time.Now(), Card: &card, Kind: "agent", Instance: "%3", Tool: c.tool, Args: []byte(c.args), Decision: Denied}
		got := Summary(e)
		if !strings.Contains(got, "card 5 "+c.want) {
			t.Errorf("%s %s:\n got %q\nwant …%q…", c.tool, c.args, got, c.want)
		}
		if strings.ContainsAny(got, "\n\u200b") {
			t.Errorf("not one escaped line: %q", got)
		}
	}
}
