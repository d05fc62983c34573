package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/remote"
)

// Issue 40: the w tree groups the tabs by host: this host's first, then each other host's tabs
// under a heading with its name and state (up, unreachable since HH:MM, connecting), in the
// config's order; a tab that holds a pane of this host is this host's; a host with no tab shown
// here has its heading alone. Enter on a heading goes to the host's first tab.
func TestTreeGroupsTabsByHost(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	down := time.Date(2026, 3, 4, 23, 5, 0, 0, time.Local)
	rq := &fakeRemote{states: []remote.HostState{
		{Name: "lab", State: remote.Unreachable, Since: down.Add(time.Minute), Down: down, Reason: "Connection refused"},
		{Name: "box", State: remote.Up, Since: down},
		{Name: "old", State: remote.Connecting, Since: down},
	}}
	hs := newRemoteHarness(t, rq)
	a := hs.app
	remotePane := func(id string) {
		t.Helper()
		if _, err := a.Open(host.OpenSpec{Remote: nopRemoteIO{}, ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	newTab := func(name string) {
		a.tabs = append(a.tabs, &tab{name: name})
		a.showTab(a.tabs[len(a.tabs)-1])
	}
	// Tab 0: this host's shell. Tab 1: box's two panes. Tab 2: lab's. Tab 3: a shell here and a
	// pane of box beside it (this host's tab).
	local, err := a.Open(host.OpenSpec{Shell: true})
	if err != nil {
		t.Fatal(err)
	}
	a.tabs[0].name = "work"
	newTab("box:main")
	remotePane("box:shell:1")
	remotePane("box:hosted:2")
	newTab("lab:sh")
	remotePane("lab:shell:3")
	newTab("mixed")
	if _, err := a.Open(host.OpenSpec{Shell: true}); err != nil {
		t.Fatal(err)
	}
	remotePane("box:shell:5")
	a.switchTab(1)
	a.setFocus("box:hosted:2")

	var got []string
	for _, r := range a.tree.rows() {
		var b strings.Builder
		for _, s := range a.tree.rowLine(r, a.theme.Prompt) {
			b.WriteString(s.text)
		}
		got = append(got, strings.TrimRight(b.String(), " "))
	}
	// Panes' rows: their ids (the titles are what their programs run now).
	want := []string{
		"(0) 0:work",
		"      " + local.ID() + " ",
		"(3) 3:mixed",
		"      " + a.tabs[3].layout.IDs()[0] + " ",
		"      box:shell:5 ",
		"host lab: unreachable since 23:05",
		"  (2) 2:lab:sh",
		"        lab:shell:3 ",
		"host box: up",
		"  (1) 1:box:main*",
		"        box:shell:1 ",
		"        box:hosted:2 ",
		"host old: connecting (no panes shown here)",
	}
	ok := len(got) == len(want) && strings.HasSuffix(got[11], " (focused)")
	for i := 0; ok && i < len(want); i++ {
		if strings.HasSuffix(want[i], " ") {
			ok = strings.HasPrefix(got[i]+" ", want[i])
		} else {
			ok = got[i] == want[i]
		}
	}
	if !ok {
		t.Errorf("the tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Shown: the cursor on the focused pane; Enter on lab's heading goes to lab's tab.
	a.tree.show()
	if r := a.tree.rows()[a.tree.cursor]; r.id != "box:hosted:2" {
		t.Errorf("the cursor is on %+v, want the focused pane", r)
	}
	hs.start()
	hs.prefix()
	hs.typeText("w")
	hs.waitFor("host lab: unreachable since 23:05")
	for range 6 { // from box:hosted:2 (row 11) up to lab's heading (row 5)
		hs.typeText("k")
	}
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	if i := hs.curTab(); i != 2 {
		t.Errorf("Enter on lab's heading shows tab %d, want 2 (lab's)", i)
	}
}
