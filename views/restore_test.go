package views

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
	"tickmux/host"
	"tickmux/host/snapshot"
)

// snapshotUntil takes snapshots on the UI goroutine until ok accepts one (programs take a moment
// to cd or start: a hang guard, not a timing assertion).
func snapshotUntil(t *testing.T, hs *harness, o SnapshotOptions, ok func(*snapshot.Session) bool) *snapshot.Session {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, _ := hs.app.TakeSnapshot(o)
		if s != nil && ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot as expected; the last: %+v", s)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// Issue 39: a session written down and built again: tabs and their names, the split tree, zoom,
// each shell's directory (the one it cd'd into), the command a shell ran, the agent session in a
// pane; and, restored, a program of restore_programs runs again, another is offered, the agent's
// resume is offered.
func TestSnapshotThenRestore(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	root := t.TempDir()
	dirA, dirB, dirC := filepath.Join(root, "a"), filepath.Join(root, "b b"), filepath.Join(root, "c")
	for _, d := range []string{dirA, dirB, dirC} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	hs := newHarness(t, 140, 40)
	var first, second, third *host.Instance
	hs.onUI(func() {
		var err error
		if first, err = hs.app.Open(host.OpenSpec{Shell: true, Dir: dirA}); err != nil {
			t.Fatal(err)
		}
		if second, err = hs.app.OpenBeside(host.OpenSpec{Shell: true, Dir: dirA}, first.ID(), Stacked); err != nil {
			t.Fatal(err)
		}
		hs.app.tab.name = "work"
		hs.app.NamePane(second.ID(), "logs")
	})
	hs.start()
	hs.onUI(func() {
		hs.app.newTab()
		third = hs.app.panes[hs.app.tab.focus].inst
	})
	tick := hs.openTick("plain")
	hs.onUI(func() { hs.app.setFocus(third.ID()); hs.app.tab.layout.Zoom(third.ID()) })
	// first cds into dirB, second runs tail (restore_programs), third a sleep (not in it).
	_ = first.Process().Input([]byte("cd '" + dirB + "'\r"))
	_ = second.Process().Input([]byte("cd " + dirC + " && tail -f /dev/null\r"))
	_ = third.Process().Input([]byte("sleep 1000\r"))
	hs.h.Agents().Set(host.AgentSession{Agent: "Claude Code", Session: "0b6c-session_1", Pane: first.ID(), Cwd: dirB}, host.AgentWorking, time.Now())

	s := snapshotUntil(t, hs, SnapshotOptions{}, func(s *snapshot.Session) bool {
		if len(s.Tabs) != 2 || len(s.Tabs[0].Panes) != 2 || len(s.Tabs[1].Panes) != 2 {
			return false
		}
		p := s.Tabs[0].Panes
		return p[0].Dir == dirB && p[1].Dir == dirC && len(p[1].Running) > 0 && len(s.Tabs[1].Panes[0].Running) > 0
	})
	t0 := s.Tabs[0]
	if t0.Name != "work" || t0.Layout == nil || t0.Layout.Axis != snapshot.Stacked || t0.Panes[1].Name != "logs" || t0.Zoomed != -1 {
		t.Errorf("tab 0 = %+v", t0)
	}
	if t0.Panes[0].Kind != snapshot.KindShell || t0.Panes[0].Agent != "0b6c-session_1" {
		t.Errorf("the agent's pane = %+v", t0.Panes[0])
	}
	if !slices.Equal(t0.Panes[1].Running, []string{"tail", "-f", "/dev/null"}) {
		t.Errorf("running = %q, want tail -f /dev/null", t0.Panes[1].Running)
	}
	t1 := s.Tabs[1]
	if t1.Zoomed != 0 || s.Current != 1 || t1.Panes[1].Kind != snapshot.KindTick || !slices.Equal(t1.Panes[1].Argv, tick.Argv()) {
		t.Errorf("tab 1 = %+v (current %d)", t1, s.Current)
	}
	if len(s.Agents) != 1 || s.Agents[0].Agent != "Claude Code" {
		t.Errorf("agents = %+v", s.Agents)
	}
	// The Tick needs its mode back: restore_env keeps it, as the config would name it.
	s.Tabs[1].Panes[1].Env = []string{envTick + "=plain"}

	// A second App, as after a reboot.
	hs2 := newHarness(t, 140, 40)
	var failed int
	hs2.onUI(func() {
		failed = hs2.app.Restore(s, RestoreOptions{Programs: config.DefaultRestorePrograms})
	})
	if failed != 0 {
		t.Fatalf("%d panes failed to start", failed)
	}
	hs2.start()
	got := snapshotUntil(t, hs2, SnapshotOptions{}, func(g *snapshot.Session) bool {
		return len(g.Tabs) == 2 && len(g.Tabs[0].Panes) == 2 && len(g.Tabs[0].Panes[1].Running) > 0
	})
	if got.Tabs[0].Name != "work" || got.Tabs[0].Panes[1].Name != "logs" || got.Current != 1 || got.Tabs[1].Zoomed != 0 {
		t.Errorf("restored: %+v", got)
	}
	if got.Tabs[0].Panes[0].Dir != dirB || got.Tabs[0].Panes[1].Dir != dirC {
		t.Errorf("restored directories: %q %q, want %q %q", got.Tabs[0].Panes[0].Dir, got.Tabs[0].Panes[1].Dir, dirB, dirC)
	}
	if !slices.Equal(got.Tabs[0].Panes[1].Running, []string{"tail", "-f", "/dev/null"}) {
		t.Errorf("tail is not running again: %q", got.Tabs[0].Panes[1].Running)
	}
	if got.Tabs[1].Panes[1].Kind != snapshot.KindTick {
		t.Errorf("the Tick did not come back: %+v", got.Tabs[1].Panes[1])
	}
	// The sleep is offered, not run; Enter runs it.
	hs2.waitFor("was running: sleep 1000 · Enter runs it")
	if r := snapshotUntil(t, hs2, SnapshotOptions{}, func(*snapshot.Session) bool { return true }); len(r.Tabs[1].Panes[0].Running) != 0 {
		t.Errorf("sleep runs before Enter: %q", r.Tabs[1].Panes[0].Running)
	}
	hs2.key(tcell.KeyEnter, 0, tcell.ModNone)
	snapshotUntil(t, hs2, SnapshotOptions{}, func(g *snapshot.Session) bool {
		return slices.Equal(g.Tabs[1].Panes[0].Running, []string{"sleep", "1000"})
	})
	hs2.waitGone("was running: sleep")
	// The agent's pane offers its resume.
	hs2.onUI(func() { hs2.app.switchTab(0) })
	hs2.onUI(func() { hs2.app.setFocus(hs2.app.tab.layout.IDs()[0]) })
	hs2.waitFor("Claude Code session 0b6c-ses… · Enter resumes it: claude --resume 0b6c-session_1")
}

// A key other than Enter drops the offer and goes to the program as typed.
func TestRestoreOfferOtherKey(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 100, 30)
	s := &snapshot.Session{Version: snapshot.Version, Time: time.Now(), Tabs: []snapshot.Tab{{
		Panes: []snapshot.Pane{{Kind: snapshot.KindShell, Argv: []string{"/bin/sh"}, Dir: t.TempDir(), Running: []string{"python3", "-m", "http.server"}}},
		Focus: 0, Zoomed: -1, Float: -1, Layout: &snapshot.Node{Pane: new(int)},
	}}}
	hs.onUI(func() { hs.app.Restore(s, RestoreOptions{Programs: config.DefaultRestorePrograms}) })
	hs.start()
	hs.waitFor("was running: python3 -m http.server · Enter runs it again")
	hs.typeText("echo hi-$((40+2))")
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	hs.waitFor("hi-42")
	hs.waitGone("was running")
}

// A snapshot is the person's file, but what it holds came from programs: a name or a scrollback
// line with escape sequences or control characters draws as text, never as a sequence.
func TestRestoreHostileSnapshot(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 100, 30)
	evil := "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1bP+q\u009b31m"
	s := &snapshot.Session{Version: snapshot.Version, Time: time.Now(), Tabs: []snapshot.Tab{{
		Name:  "t" + evil,
		Panes: []snapshot.Pane{{Kind: snapshot.KindShell, Argv: []string{"/bin/sh"}, Dir: t.TempDir(), Name: "p" + evil, Scrollback: []string{"old line one", "x" + evil + "y"}}},
		Focus: 0, Zoomed: -1, Float: -1, Layout: &snapshot.Node{Pane: new(int)},
	}}, Agents: []snapshot.Agent{{Agent: "Claude Code", Session: "x; rm -rf ~"}}}
	s.Tabs[0].Panes[0].Agent = "x; rm -rf ~"
	hs.onUI(func() { hs.app.Restore(s, RestoreOptions{}) })
	hs.start()
	txt := hs.waitFor("── restored from ")
	if !strings.Contains(txt, "old line one") || !strings.Contains(txt, "x]52;c;ZXZpbA==[2JP+q31my") {
		t.Errorf("the scrollback is not there as text:\n%s", txt)
	}
	if strings.Contains(txt, "resumes it") {
		t.Errorf("an agent session id that is not plain was offered to run:\n%s", txt)
	}
	var name, tab string
	hs.onUI(func() { name, tab = hs.app.panes[hs.app.tab.focus].name, hs.app.tab.name })
	if strings.ContainsAny(name+tab, "\x1b\x07\u009b") {
		t.Errorf("control characters kept: %q %q", name, tab)
	}
}

// The restore's question takes y or n in any view; nothing else answers it.
func TestRestoreQuestion(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 100, 30)
	dir := t.TempDir()
	s := &snapshot.Session{Version: snapshot.Version, Time: time.Date(2026, 12, 7, 18, 3, 0, 0, time.Local), Tabs: []snapshot.Tab{
		{Panes: []snapshot.Pane{{Kind: snapshot.KindShell, Argv: []string{"/bin/sh"}, Dir: dir}}, Zoomed: -1, Float: -1, Layout: &snapshot.Node{Pane: new(int)}},
		{Name: "second", Panes: []snapshot.Pane{{Kind: snapshot.KindShell, Argv: []string{"/bin/sh"}, Dir: dir}}, Zoomed: -1, Float: -1, Layout: &snapshot.Node{Pane: new(int)}},
	}, Grants: 2}
	answers := make(chan bool, 1)
	hs.onUI(func() {
		if _, err := hs.app.Open(host.OpenSpec{Shell: true}); err != nil {
			t.Fatal(err)
		}
		hs.app.RestoreQuestion(s, RestoreOptions{}, func(yes bool) { answers <- yes })
	})
	hs.start()
	hs.waitFor("restore the session of 18:03: 2 tabs, 2 panes? (y/n)")
	hs.typeText("x")
	hs.waitFor("restore the session of 18:03")
	hs.typeText("y")
	if !<-answers {
		t.Fatal("y did not restore")
	}
	txt := hs.waitFor("2 grants (r) were not: each call asks again")
	if !strings.Contains(txt, "1:second") {
		t.Errorf("the restored tabs are not listed:\n%s", txt)
	}
	var panes, tabs int
	hs.onUI(func() { panes, tabs = len(hs.app.panes), len(hs.app.tabs) })
	if panes != 2 || tabs != 2 {
		t.Errorf("%d panes in %d tabs: the untouched first shell should have made way", panes, tabs)
	}
}

// The App's side of a snapshot (what the server's snapshotter asks for at most every 2 s while
// the screen changes): seven shell panes in three tabs, their foreground's directory and command
// read from /proc. host/snapshot's BenchmarkWriteChange is the store's side.
func BenchmarkSnapshotSession(b *testing.B) {
	b.Setenv("SHELL", "/bin/sh")
	h := host.New(host.Config{})
	defer h.Close()
	sc := tcell.NewSimulationScreen("UTF-8")
	a := New(Options{Host: h, Config: config.Default(), Screen: sc})
	sc.SetSize(140, 40)
	for i := range 7 {
		if i == 3 || i == 5 {
			a.newTab() // with a shell of its own
			continue
		}
		if _, err := a.Open(host.OpenSpec{Shell: true, Dir: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() { // before Run: this goroutine is the App's
		if s := a.snapshot(SnapshotOptions{}); len(s.Tabs) != 3 || s.Panes() != 7 {
			b.Fatalf("%d tabs, %d panes", len(s.Tabs), s.Panes())
		}
	}
}

type nopRemoteIO struct{}

func (nopRemoteIO) Input([]byte)    {}
func (nopRemoteIO) Resize(int, int) {}

// A pane of another host is not in this host's snapshot: its own server keeps it, and the link
// shows it again; a restore must never run its placeholder here.
func TestSnapshotLeavesOtherHostsPanes(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	hs := newHarness(t, 120, 40)
	hs.onUI(func() {
		if _, err := hs.app.Open(host.OpenSpec{Shell: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := hs.app.Open(host.OpenSpec{Remote: nopRemoteIO{}, ID: "box:shell:1"}); err != nil {
			t.Fatal(err)
		}
	})
	s := hs.app.snapshot(SnapshotOptions{})
	if len(s.Tabs) != 1 || len(s.Tabs[0].Panes) != 1 || s.Tabs[0].Panes[0].Kind != snapshot.KindShell || len(s.Tabs[0].Panes[0].Argv) != 1 {
		t.Fatalf("snapshot: %+v", s.Tabs)
	}
}

// A Tick the dead server ran from its own private copy of tickmux (a go run build's, swept when
// that server died) comes back run by this tickmux.
func TestRestoreRunsTicksOfAGoneTickmuxWithThisOne(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, 120, 40)
	s := &snapshot.Session{Version: snapshot.Version, Time: time.Now(), Tabs: []snapshot.Tab{{
		Panes:  []snapshot.Pane{{Kind: snapshot.KindTick, Argv: []string{"/nonexistent/tickmux-bin-1-2/tickmux"}, Dir: t.TempDir(), Env: []string{envTick + "=plain"}}},
		Zoomed: -1, Float: -1, Layout: &snapshot.Node{Pane: new(int)},
	}}}
	var failed int
	hs.onUI(func() { failed = hs.app.Restore(s, RestoreOptions{Self: self}) })
	if failed != 0 {
		t.Fatalf("%d panes failed to start", failed)
	}
	hs.start()
	hs.waitFor("View Tick · ready")
}
