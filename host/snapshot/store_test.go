package snapshot

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func intp(i int) *int { return &i }

// benchSession is a realistic session: 3 tabs, 7 panes with argv, dir and title, 2 agents.
func benchSession() *Session {
	return &Session{
		Time:   time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC),
		Socket: "/run/user/1000/tickmux/default.sock",
		Run:    "3f9a0c21d4e7",
		Tabs: []Tab{
			{
				Name: "work",
				Panes: []Pane{
					{Kind: KindShell, Dir: "/home/ann/src/tickmux", Title: "zsh", Running: []string{"go", "test", "./host/..."}},
					{Kind: KindPlain, Argv: []string{"claude"}, Dir: "/home/ann/src/tickmux", Title: "Claude Code", Agent: "b1946ac9-2d4f"},
					{Kind: KindTick, Argv: []string{"tick-counter", "--start", "3"}, Dir: "/home/ann", Title: "counter"},
				},
				Layout: &Node{Axis: SideBySide, Ratio: 0.5,
					A: &Node{Pane: intp(0)},
					B: &Node{Axis: Stacked, Ratio: 0.6, A: &Node{Pane: intp(1)}, B: &Node{Pane: intp(2)}}},
				Focus: 1, Zoomed: -1, Float: -1,
			},
			{
				Panes: []Pane{
					{Kind: KindShell, Dir: "/var/log", Title: "less syslog", Running: []string{"less", "syslog"}},
					{Kind: KindPlain, Argv: []string{"htop"}, Dir: "/home/ann", Title: "htop"},
				},
				Layout: &Node{Axis: Stacked, Ratio: 0.3, A: &Node{Pane: intp(0)}, B: &Node{Pane: intp(1)}},
				Zoomed: -1, Float: -1,
			},
			{
				Name: "notes",
				Panes: []Pane{
					{Kind: KindPlain, Argv: []string{"vim", "TODO.md"}, Dir: "/home/ann/notes", Title: "TODO.md", Name: "todo"},
					{Kind: KindPlain, Argv: []string{"codex"}, Dir: "/home/ann/notes", Title: "Codex", Agent: "019a-77c2"},
				},
				Layout: &Node{Pane: intp(0)},
				Focus:  0, Zoomed: -1, Float: 1, FloatShown: true,
			},
		},
		Current: 0,
		Agents: []Agent{
			{Agent: "Claude Code", Session: "b1946ac9-2d4f", Dir: "/home/ann/src/tickmux", State: "working"},
			{Agent: "Codex", Session: "019a-77c2", Dir: "/home/ann/notes", State: "idle"},
		},
	}
}

// clock is a settable time for a Store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newClock(t time.Time) *clock    { return &clock{t: t} }
func openAt(t *testing.T, dir string, c *clock) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if c != nil {
		s.now = c.now
	}
	return s
}

func mustWrite(t *testing.T, s *Store, sess *Session) {
	t.Helper()
	wrote, err := s.Write(sess)
	if err != nil || !wrote {
		t.Fatalf("Write: %v, %v", wrote, err)
	}
}

// genNames lists the generations' names in dir, newest first, and fails on anything but
// generations and temporaries.
func genNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if _, _, ok := parseName(e.Name()); !ok {
			t.Fatalf("unexpected file %s", e.Name())
		}
		names = append(names, e.Name())
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names
}

func TestDir(t *testing.T) {
	a := Dir("/home/ann/.local/state/tickmux", "/run/user/1000/tickmux/default.sock")
	if ok, _ := filepath.Match("/home/ann/.local/state/tickmux/restore/default-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]", a); !ok {
		t.Errorf("Dir = %s", a)
	}
	// sha256("/run/user/1000/tickmux/default.sock"), its first 8 hex digits.
	if want := "/home/ann/.local/state/tickmux/restore/default-41d9dda9"; a != want {
		t.Errorf("Dir = %s, want %s", a, want)
	}
	b := Dir("/home/ann/.local/state/tickmux", "/tmp/tickmux-1000/default.sock")
	if a == b || filepath.Base(b)[:8] != "default-" {
		t.Errorf("two sockets of one name share %s / %s", a, b)
	}
	if c := Dir("/s", "/tmp/work"); !strings.HasPrefix(c, "/s/restore/work-") {
		t.Errorf("a socket without .sock: %s", c)
	}
}

func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "restore", "default-12345678")
	s := openAt(t, dir, nil)
	in := benchSession()
	in.Tabs[0].Panes[0].Scrollback = []string{"$ make", "ok", "ünïcödé \x1b[31m"}
	in.Tabs[0].Panes[0].Env = []string{"GOFLAGS=-race"}
	mustWrite(t, s, in)
	if in.Version != 0 {
		t.Errorf("Write changed the caller's session (Version %d)", in.Version)
	}
	got, name, skipped, err := Latest(dir)
	if err != nil || len(skipped) > 0 || got == nil {
		t.Fatalf("Latest: %v, %v, %v", got, skipped, err)
	}
	want := *in
	want.Version = Version
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("Latest:\n%+v\nwant\n%+v", got, &want)
	}
	loaded, err := Load(dir, name)
	if err != nil || !reflect.DeepEqual(loaded, &want) {
		t.Errorf("Load(%s): %v, %v", name, loaded, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "{\n \"version\": 1,\n \"time\": \"2026-03-14T15:09:26Z\",\n") {
		t.Errorf("not indented JSON with its version and time first:\n%.200s", data)
	}
	list, err := List(dir)
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v, %v", list, err)
	}
	if g := list[0]; g.Name != name || g.Tabs != 3 || g.Panes != 7 || g.Ended != "" || g.Err != nil || g.Time.IsZero() {
		t.Errorf("List: %+v", g)
	}
}

// A file holds exactly json.MarshalIndent of the session (Version set) and a newline, its Time
// put in after the comparison, even when a string holds what a zero time encodes to.
func TestEncodingIsMarshalIndent(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir, nil)
	for i, tm := range []time.Time{
		time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600)),
		{}, // zero: now
	} {
		sess := benchSession()
		sess.Time = tm
		sess.Tabs[0].Panes[0].Title = fmt.Sprintf("%d\n \"time\": \"0001-01-01T00:00:00Z\",\n", i)
		mustWrite(t, s, sess)
		got, name, _, err := Latest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if tm.IsZero() {
			if time.Since(got.Time) > time.Minute {
				t.Errorf("a zero Time was written as %v", got.Time)
			}
			sess.Time = got.Time
		}
		sess.Version = Version
		want, _ := json.MarshalIndent(sess, "", " ")
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if string(data) != string(want)+"\n" {
			t.Errorf("wrote\n%.300s\nwant\n%.300s", data, want)
		}
	}
}

// A Write of what was written last (but for its Time) writes nothing.
func TestUnchangedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	c := newClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	s := openAt(t, dir, c)
	mustWrite(t, s, benchSession())
	for range 3 {
		c.add(time.Second)
		sess := benchSession()
		sess.Time = c.now()
		if wrote, err := s.Write(sess); wrote || err != nil {
			t.Fatalf("an unchanged session was written: %v, %v", wrote, err)
		}
	}
	if n := genNames(t, dir); len(n) != 1 {
		t.Fatalf("%d files after unchanged writes: %v", len(n), n)
	}
	sess := benchSession()
	sess.Tabs[1].Panes[1].Title = "htop: 3 tasks"
	mustWrite(t, s, sess)
	if n := genNames(t, dir); len(n) != 2 {
		t.Fatalf("%d files after a change: %v", len(n), n)
	}
	// Back to the first: a change again.
	mustWrite(t, s, benchSession())
	if got, _, _, _ := Latest(dir); got == nil || got.Tabs[1].Panes[1].Title != "htop" {
		t.Errorf("Latest after changing back: %+v", got)
	}
}

// Retention keeps the 5 newest and, older, one per clock hour of the last 24 hours (the
// hour's oldest), never the newest lost, never over 30 files.
func TestRetention(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	c := newClock(start)
	s := openAt(t, dir, c)
	var written []string // names, oldest first
	for i := range 48 * 6 {
		sess := benchSession()
		sess.Grants = i
		mustWrite(t, s, sess)
		names := genNames(t, dir)
		written = append(written, names[0])
		if len(names) > 30 {
			t.Fatalf("after write %d: %d files", i, len(names))
		}
		if got, _, _, _ := Latest(dir); got == nil || got.Grants != i {
			t.Fatalf("after write %d the newest is not it: %+v", i, got)
		}
		c.add(10 * time.Minute)
	}
	names := genNames(t, dir)
	newest := written[len(written)-5:]
	slices.Reverse(newest)
	if !slices.Equal(names[:5], newest) {
		t.Fatalf("the 5 newest are not kept:\n%v\nwant\n%v", names[:5], newest)
	}
	newestT, _, _ := parseName(names[0])
	hours := map[time.Time]bool{}
	for _, n := range names[5:] {
		tm, _, _ := parseName(n)
		if newestT.Sub(tm) >= 24*time.Hour {
			t.Errorf("%s is older than a day before the newest", n)
		}
		if hours[tm.Truncate(time.Hour)] {
			t.Errorf("two older ones in the hour of %s", n)
		}
		hours[tm.Truncate(time.Hour)] = true
		if tm.Minute() != 0 {
			t.Errorf("%s is not its hour's oldest", n)
		}
	}
	if len(hours) < 23 {
		t.Errorf("only %d spaced older ones kept: %v", len(hours), names)
	}
}

// A clock set back does not put a new generation before the old ones.
func TestClockSetBack(t *testing.T) {
	dir := t.TempDir()
	c := newClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	s := openAt(t, dir, c)
	mustWrite(t, s, benchSession())
	c.add(-3 * time.Hour)
	sess := benchSession()
	sess.Current = 2
	mustWrite(t, s, sess)
	if got, _, _, _ := Latest(dir); got == nil || got.Current != 2 {
		t.Fatalf("after the clock went back Latest is %+v", got)
	}
	// So does a new Store (a restart) in that directory.
	s.Close()
	s2 := openAt(t, dir, c)
	sess = benchSession()
	sess.Current = 1
	mustWrite(t, s2, sess)
	if got, _, _, _ := Latest(dir); got == nil || got.Current != 1 {
		t.Fatalf("after a restart with the clock back Latest is %+v", got)
	}
}

func TestPermissions(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := t.TempDir()
	dir := filepath.Join(root, "restore", "default-12345678")
	s := openAt(t, dir, nil)
	mustWrite(t, s, benchSession())
	for _, p := range []string{filepath.Join(root, "restore"), dir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want 0700", p, fi.Mode(), err)
		}
	}
	for _, n := range genNames(t, dir) {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want 0600", n, fi.Mode(), err)
		}
	}

	// A directory of ours that others may use is made private.
	wide := filepath.Join(root, "wide")
	if err := os.Mkdir(wide, 0o755); err != nil {
		t.Fatal(err)
	}
	openAt(t, wide, nil)
	if fi, _ := os.Stat(wide); fi.Mode().Perm() != 0o700 {
		t.Errorf("wide dir left %v", fi.Mode())
	}
}

// A directory that is a symbolic link, or another uid's, is refused, and nothing is written
// where it points.
func TestPlantedDirRefused(t *testing.T) {
	target := t.TempDir()
	if err := os.Chmod(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "default-12345678")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Open of a symlinked dir: %v", err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o755 {
		t.Errorf("the link's target was chmodded to %v", fi.Mode())
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("written in the link's target: %v", entries)
	}
	// A dangling link too.
	dangling := filepath.Join(t.TempDir(), "d")
	if err := os.Symlink(filepath.Join(t.TempDir(), "none"), dangling); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dangling); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Open of a dangling link: %v", err)
	}

	if os.Getuid() != 0 {
		t.Log("not root: cannot make a directory of another uid's")
		return
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(theirs); err == nil || !strings.Contains(err.Error(), "belongs to uid 4242") {
		t.Errorf("Open of another uid's dir: %v", err)
	}
}

// writeGens writes n generations a minute apart, the i-th with Grants i, and returns their
// names oldest first.
func writeGens(t *testing.T, dir string, n int) []string {
	t.Helper()
	c := newClock(time.Now().Add(-time.Hour))
	s := openAt(t, dir, c)
	for i := range n {
		sess := benchSession()
		sess.Grants = i
		mustWrite(t, s, sess)
		c.add(time.Minute)
	}
	names := genNames(t, dir)
	slices.Reverse(names)
	return names
}

// A corrupt newest (torn, empty, not a snapshot) is skipped, said, and the one before used;
// List marks it.
func TestCorruptNewestFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(data []byte) []byte
		says    string
	}{
		{"truncated", func(d []byte) []byte { return d[:len(d)/2] }, "is corrupt (unexpected end of JSON input)"},
		{"empty", func([]byte) []byte { return nil }, "is corrupt (empty file)"},
		{"garbage", func([]byte) []byte { return []byte("\x00\x00\x00") }, "is corrupt (invalid character"},
		{"not a snapshot", func([]byte) []byte { return []byte(`{"tabs": 3}`) }, "is corrupt (not a snapshot: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			names := writeGens(t, dir, 3)
			newest := filepath.Join(dir, names[2])
			data, err := os.ReadFile(newest)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(newest, tc.corrupt(data), 0o600); err != nil {
				t.Fatal(err)
			}
			sess, name, skipped, err := Latest(dir)
			if err != nil || sess == nil || name != names[1] || sess.Grants != 1 {
				t.Fatalf("Latest: %v %s %v", sess, name, err)
			}
			tm, _, _ := parseName(names[1])
			want := "the newest snapshot, " + names[2] + ", " + tc.says
			if len(skipped) != 1 || !strings.HasPrefix(skipped[0], want) ||
				!strings.HasSuffix(skipped[0], ": using the one of "+when(tm)) { // the date too, past midnight
				t.Errorf("skipped: %q\nwant %q…", skipped, want)
			}
			list, err := List(dir)
			if err != nil || len(list) != 3 {
				t.Fatalf("List: %v %v", list, err)
			}
			if list[0].Name != names[2] || list[0].Err == nil || list[0].Tabs != 0 {
				t.Errorf("List does not mark the corrupt one: %+v", list[0])
			}
			for _, g := range list[1:] {
				if g.Err != nil || g.Tabs != 3 || g.Panes != 7 {
					t.Errorf("List: %+v", g)
				}
			}
			if _, err := Load(dir, names[2]); err == nil {
				t.Error("Load of the corrupt one: no error")
			}
		})
	}
	t.Run("two corrupt", func(t *testing.T) {
		dir := t.TempDir()
		names := writeGens(t, dir, 3)
		for _, n := range names[1:] {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		sess, name, skipped, err := Latest(dir)
		if err != nil || name != names[0] || sess.Grants != 0 || len(skipped) != 2 ||
			!strings.HasPrefix(skipped[1], "the snapshot before it, "+names[1]+", is corrupt") {
			t.Fatalf("Latest: %s %q %v", name, skipped, err)
		}
	})
	t.Run("all corrupt", func(t *testing.T) {
		dir := t.TempDir()
		names := writeGens(t, dir, 2)
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		sess, _, skipped, err := Latest(dir)
		if err == nil || sess != nil || len(skipped) != 2 || !strings.HasSuffix(skipped[0], "no older one can be read") {
			t.Fatalf("Latest: %v %q %v", sess, skipped, err)
		}
	})
}

// A snapshot of a later format is refused as such, not as corrupt, even when its fields no
// longer decode.
func TestFutureVersionRefused(t *testing.T) {
	for _, body := range []string{
		`{"version": 2, "time": "2026-01-01T00:00:00Z", "tabs": []}`,
		`{"version": 2, "tabs": {"a new": "shape"}}`,
	} {
		dir := t.TempDir()
		names := writeGens(t, dir, 1)
		future := genName(time.Now().UTC(), 999)
		if err := os.WriteFile(filepath.Join(dir, future), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir, future)
		if err == nil || !strings.Contains(err.Error(), "version 2 is newer than this tickmux reads") {
			t.Errorf("Load of %s: %v", body, err)
		}
		sess, name, skipped, err := Latest(dir)
		if err != nil || sess == nil || name != names[0] || len(skipped) != 1 ||
			!strings.Contains(skipped[0], "cannot be read (version 2 is newer than this tickmux reads") {
			t.Errorf("Latest: %s %q %v", name, skipped, err)
		}
		list, _ := List(dir)
		if len(list) != 2 || list[0].Err == nil || !strings.Contains(list[0].Err.Error(), "version 2") {
			t.Errorf("List: %+v", list)
		}
	}
}

// End writes the last session again, ended, as the newest generation.
func TestEnd(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir, nil)
	mustWrite(t, s, benchSession())
	if err := s.End("quit"); err != nil {
		t.Fatal(err)
	}
	sess, name, _, err := Latest(dir)
	if err != nil || sess.Ended != "quit" || sess.Panes() != 7 || len(genNames(t, dir)) != 2 {
		t.Fatalf("Latest after End: %+v %v", sess, err)
	}
	if list, _ := List(dir); list[0].Name != name || list[0].Ended != "quit" || list[1].Ended != "" {
		t.Errorf("List after End: %+v", list)
	}

	// Before any Write: a minimal ended session.
	dir = t.TempDir()
	s = openAt(t, dir, nil)
	if err := s.End("kill-server"); err != nil {
		t.Fatal(err)
	}
	sess, _, _, err = Latest(dir)
	if err != nil || sess == nil || sess.Ended != "kill-server" || sess.Time.IsZero() || len(sess.Tabs) != 0 {
		t.Fatalf("Latest after a bare End: %+v %v", sess, err)
	}
}

// Stray temporaries older than a minute are removed at Open, newer ones left; readers never
// see either.
func TestTemporaries(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, tmpPrefix+"old"+tmpSuffix)
	fresh := filepath.Join(dir, tmpPrefix+"fresh"+tmpSuffix)
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte(`{"version": 1, "tabs": []}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(old, then, then); err != nil {
		t.Fatal(err)
	}
	openAt(t, dir, nil)
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an old temporary is left: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary was removed: %v", err)
	}
	if sess, name, skipped, err := Latest(dir); sess != nil || name != "" || skipped != nil || err != nil {
		t.Errorf("Latest of temporaries only: %v %s %v %v", sess, name, skipped, err)
	}
	if list, err := List(dir); len(list) != 0 || err != nil {
		t.Errorf("List of temporaries only: %v %v", list, err)
	}
}

func TestMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	if list, err := List(dir); len(list) != 0 || err != nil {
		t.Errorf("List: %v %v", list, err)
	}
	if sess, name, skipped, err := Latest(dir); sess != nil || name != "" || skipped != nil || err != nil {
		t.Errorf("Latest: %v %s %v %v", sess, name, skipped, err)
	}
}

// A reader reads at most 64 MiB, and only regular files by a snapshot's name.
func TestReadingBounded(t *testing.T) {
	dir := t.TempDir()
	names := writeGens(t, dir, 1)
	huge := genName(time.Now().UTC(), 500)
	f, err := os.Create(filepath.Join(dir, huge))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxFile + 1); err != nil { // sparse: no 64 MiB on disk
		t.Fatal(err)
	}
	f.Close()
	if _, err := Load(dir, huge); err == nil || !strings.Contains(err.Error(), "over the 64 MiB a snapshot may be") {
		t.Errorf("Load of a huge file: %v", err)
	}
	link := genName(time.Now().UTC(), 600)
	if err := os.Symlink(filepath.Join(dir, names[0]), filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Load of a link: %v", err)
	}
	if sess, name, skipped, err := Latest(dir); err != nil || sess == nil || name != names[0] || len(skipped) != 2 {
		t.Errorf("Latest: %s %q %v", name, skipped, err)
	}
	for _, bad := range []string{"../" + names[0], "x.json", ""} {
		if _, err := Load(dir, bad); err == nil {
			t.Errorf("Load(%q): no error", bad)
		}
	}
}

// Writers on several goroutines: each write whole, the newest readable (run with -race).
func TestConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir, nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 20 {
				sess := benchSession()
				sess.Grants = g*100 + i
				if _, err := s.Write(sess); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := s.End("quit"); err != nil {
		t.Fatal(err)
	}
	list, err := List(dir)
	if err != nil || len(list) > 30 || len(list) < 6 {
		t.Fatalf("List: %d, %v", len(list), err)
	}
	for _, g := range list {
		if g.Err != nil {
			t.Errorf("%s: %v", g.Name, g.Err)
		}
	}
	if list[0].Ended != "quit" {
		t.Errorf("the newest is not End's: %+v", list[0])
	}
}

// A kill -9 in the middle of a snapshot write never costs more than the last change: a child
// writes sessions in a loop, printing each one's counter once Write returns, and is killed at a
// random moment, 25 times over in the same directory. Each time the newest snapshot loads, with
// nothing skipped, and holds at least the last counter the child printed.
//
// Half the kills come at a random moment of a write's time; the others within 250 µs of a
// file's creation in the directory, seen through inotify, so that the few hundred microseconds
// a file takes to fill are hit under -race too, where encoding takes most of a write's time (a
// writer that fills the named file in place fails here most runs).
func TestCrashNeverCostsMoreThanTheLastChange(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary 25 times")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "restore", "default-12345678")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ino, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ino)
	if _, err := unix.InotifyAddWatch(ino, dir, unix.IN_CREATE); err != nil {
		t.Fatal(err)
	}
	next, afterRename := 1, 0
	for round := range 25 {
		onCreate := -1
		if round%2 == 1 {
			onCreate = ino
		}
		printed := crashRound(t, exe, dir, next, onCreate)
		sess, name, skipped, err := Latest(dir)
		if err != nil || len(skipped) > 0 || sess == nil {
			t.Fatalf("round %d: Latest after a kill: %v, skipped %q, %v", round, sess != nil, skipped, err)
		}
		got, err := strconv.Atoi(sess.Tabs[0].Name)
		if err != nil {
			t.Fatalf("round %d: %s holds no counter: %q", round, name, sess.Tabs[0].Name)
		}
		if got < printed {
			t.Fatalf("round %d: the child printed %d but the newest snapshot, %s, holds %d", round, printed, name, got)
		}
		if got > printed {
			afterRename++ // killed after its rename, before it printed
		}
		if want := crashSession(got); !reflect.DeepEqual(sess.Tabs, want.Tabs) {
			t.Fatalf("round %d: %s holds counter %d with another session's tabs", round, name, got)
		}
		next = got + 1
	}
	// Every generation left is whole, not only the newest.
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range list {
		if g.Err != nil {
			t.Errorf("%s: %v", g.Name, g.Err)
		}
	}
	entries, _ := os.ReadDir(dir)
	t.Logf("25 kills, %d of them after a rename and before its print; %d files left, the last counter %d", afterRename, len(entries), next-1)
}

// crashRound starts a child writing from counter first and lets it write twice. Then it kills
// it: with ino < 0 after a random time up to what its second write took; else within 250 µs
// of the next file created in its directory (ino watches it). It returns the last counter the
// child printed.
func crashRound(t *testing.T, exe, dir string, first, ino int) int {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, crashStartEnv+"="+strconv.Itoa(first))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan int, 1<<16)
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			n, err := strconv.Atoi(sc.Text())
			if err != nil {
				done <- fmt.Errorf("the child printed %q", sc.Text())
				return
			}
			lines <- n
		}
		done <- sc.Err()
	}()
	fail := func(format string, args ...any) {
		t.Helper()
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf(format, args...)
	}
	printed := first - 1
	var t1 time.Time
	for i := range 2 {
		select {
		case printed = <-lines:
		case err := <-done:
			fail("the child ended before its write %d: %v", i+1, err)
		case <-time.After(30 * time.Second):
			fail("the child did not write in 30 s")
		}
		if i == 0 {
			t1 = time.Now()
		}
	}
	if ino < 0 {
		time.Sleep(time.Duration(rand.Int64N(int64(time.Since(t1)) + 1)))
	} else {
		var buf [4096]byte
		for { // what was created before
			if _, err := unix.Read(ino, buf[:]); err != nil {
				break
			}
		}
		fds := []unix.PollFd{{Fd: int32(ino), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 30_000)
		for errors.Is(err, unix.EINTR) {
			n, err = unix.Poll(fds, 30_000)
		}
		if n != 1 {
			fail("no file created in 30 s: %v", err)
		}
		time.Sleep(time.Duration(rand.Int64N(int64(250 * time.Microsecond))))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	close(lines)
	for n := range lines {
		printed = max(printed, n)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the child was not killed: %v", err)
	}
	return printed
}

// A write that changes one field of a realistic session: encode, write, fsync, rename, fsync
// the directory, prune.
func BenchmarkWriteChange(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sess := benchSession()
	cpu := cpuTime()
	for i := 0; b.Loop(); i++ {
		sess.Tabs[0].Panes[0].Title = "zsh " + strconv.Itoa(i)
		sess.Time = time.Now()
		if wrote, err := s.Write(sess); !wrote || err != nil {
			b.Fatal(wrote, err)
		}
	}
	// The wall time is mostly the two fsyncs' wait for the disk; what the server spends is this.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's CPU time so far (user and system), in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// A write of an unchanged session (but for its Time): encode and compare, nothing written.
func BenchmarkWriteUnchanged(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sess := benchSession()
	if _, err := s.Write(sess); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		sess.Time = time.Now()
		if wrote, err := s.Write(sess); wrote || err != nil {
			b.Fatal(wrote, err)
		}
	}
}
