package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// statusLine is the screen's last row, read once the UI has drawn what the keys so far did.
func (hs *harness) statusLine() string {
	hs.sync()
	s := strings.TrimRight(hs.text(), "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

// prefix g then C-g at once: the status bar stops saying LOCKED with the key that unlocked, not
// at the next tick 10 s later (issue 42 item 8).
func TestUnlockClearsLockedAtOnce(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.openTick("plain")
	hs.start()
	hs.prefix()
	hs.typeText("g")
	hs.waitFor(" LOCKED ")
	hs.key(tcell.KeyCtrlG, 'g', tcell.ModCtrl)
	if l := hs.statusLine(); strings.Contains(l, "LOCKED") || strings.Contains(l, "locked") {
		t.Fatalf("the status bar still says LOCKED after C-g:\n%s", l)
	}
}

// A message's expiry is worked out at every tick: a tick asked for in between (a key's, for the
// titles) no longer takes the place of the message's, which left "layout: tiled" on the bar
// until the next minute (issue 42 item 8). And a wake asked for while another waits is kept: the
// earlier of the two.
func TestMessageExpiryIsNeverLost(t *testing.T) {
	hs := newHarness(t, 120, 30) // not started: no tick loop drains the requests
	a := hs.app
	a.show("layout: tiled")
	<-a.tickReq // the message's own wake, taken as the tick loop takes it
	a.titlesUntil = a.now().Add(-time.Second)
	before := time.Now()
	next := a.onTick()
	if next.Before(before.Add(messageLife-time.Second)) || next.After(time.Now().Add(messageLife)) {
		t.Fatalf("after a tick, the next one is at %v (in %v), not when the message expires", next, next.Sub(before))
	}
	a.titlesUntil = a.now().Add(3 * time.Second) // a key typed: titles may change each second
	if next := a.onTick(); next.After(time.Now().Add(time.Second)) {
		t.Fatalf("the titles' tick is at %v", next)
	}
	a.messageAt = a.now().Add(-messageLife)
	a.titlesUntil = time.Time{}
	if next := a.onTick(); !next.IsZero() {
		t.Fatalf("an expired message asks for a tick at %v", next)
	}

	soon, later := time.Now().Add(time.Second), time.Now().Add(time.Minute)
	a.wakeTick(later)
	a.wakeTick(soon)
	a.wakeTick(later)
	if got := <-a.tickReq; !got.Equal(soon) {
		t.Fatalf("the wake waiting is %v, want the earliest, %v", got, soon)
	}
}

// The status bar lists the shown tab's panes only (tmux's lists the windows; the tabs have their
// own list), and takes a title a pane's frame read anew (the border said vim, the bar bash).
func TestStatusBarShowsTheShownTabsPanesAndTheirTitles(t *testing.T) {
	hs := newHarness(t, 160, 40)
	tick := hs.openTick("plain")
	hs.start()
	// The title changes on a key that is not Enter (Enter asks for the titles' ticks).
	sh := hs.openShell("stty raw -echo; echo waiting-$((6*7)); dd bs=1 count=1 2>/dev/null; printf '\\033]2;later-%s\\007' title; exec cat", "waiting-42")
	hs.onUI(func() { hs.app.setFocus(sh.ID()) })
	hs.prefix()
	hs.typeText("!") // the shell to a tab of its own
	hs.waitFor("1:")
	l := hs.statusLine()
	if !strings.Contains(l, sh.ID()) || strings.Contains(l, tick.ID()) {
		t.Fatalf("the status bar of tab 1 (%s alone):\n%s", sh.ID(), l)
	}
	hs.typeText("x")
	s := hs.waitFor(sh.ID() + " later-title ") // the border; the same frame draws the bar
	if l := s[strings.LastIndex(strings.TrimRight(s, "\n"), "\n")+1:]; !strings.Contains(l, sh.ID()+" later-title") {
		t.Fatalf("the border has the new title, the status bar not:\n%s", s)
	}
}

// The help says what the status bar's ·N counts (issue 42 item 8: explained nowhere).
func TestHelpExplainsTheStatusBarCounters(t *testing.T) {
	hs := newHarness(t, 140, 50)
	hs.openTick("plain")
	hs.start()
	hs.waitFor("View Tick ·")
	hs.prefix()
	hs.typeText("?")
	hs.typeText("status")
	hs.waitFor("On the status bar, after a pane's id and title")
	hs.waitFor("·N            a Tick's state updates received since it started")
}
