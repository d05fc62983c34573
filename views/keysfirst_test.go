package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/themes"
)

// Keys first: keys that pile up while the UI goroutine is busy are all taken before anything is
// drawn again. Each key's draw, and the draws of updates that come meanwhile (the panel's
// rebuild, a paced frame), are left to the draw after the last key, which shows all of it: K
// waiting keys cost one frame, not K frames plus one per update.
func TestKeysWaitingAreTakenBeforeAnyDraw(t *testing.T) {
	vh := newViewsHarness(t)
	vh.openTick("plain")
	vh.start()
	vh.attach("a", 160, 50)
	vh.waitView("a", "VIEWTICK value=0", true)

	// Hold the UI goroutine, as a long frame under a flood would.
	held, release := make(chan struct{}), make(chan struct{})
	var before keysFirst
	var shownBefore int
	go vh.app.app.QueueUpdate(func() {
		before, shownBefore = vh.app.kf, vh.mirror.ShownWhileKeysWaited()
		close(held)
		<-release
	})
	<-held
	// Keys typed meanwhile: prefix, ':' (the command prompt), then a word into the prompt.
	keys := []*tcell.EventKey{prefixKey, runeKey(':')}
	for _, r := range "keysfirst" {
		keys = append(keys, runeKey(r))
	}
	for _, k := range keys {
		vh.views["a"].InjectKey(k.Key(), k.Rune(), k.Modifiers())
	}
	for deadline := time.Now().Add(20 * time.Second); vh.views["a"].keysPosted.Load() < int64(len(keys)); {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d keys reached the queue", vh.views["a"].keysPosted.Load(), len(keys))
		}
		time.Sleep(5 * time.Millisecond)
	}
	// And updates behind them: the approval queue changed (the event loop rebuilds the panel),
	// and a pane asks for a frame (the draw loop).
	vh.app.ApprovalsChanged()
	vh.app.requestDraw()
	close(release)

	vh.waitView("a", "keysfirst", true)
	var after keysFirst
	var shown int
	vh.app.app.QueueUpdate(func() { after, shown = vh.app.kf, vh.mirror.ShownWhileKeysWaited() })
	taken, behind, deferred := after.taken-before.taken, after.behind-before.behind, after.deferred-before.deferred
	t.Logf("keys taken %d, with keys behind them %d; draws left to the last key's %d, updates applied meanwhile %d",
		taken, behind, deferred, after.updates-before.updates)
	if taken != len(keys) {
		t.Fatalf("the App took %d keys, want %d", taken, len(keys))
	}
	if behind != len(keys)-1 {
		t.Errorf("%d keys were taken with keys waiting behind them, want %d: the keys did not wait together", behind, len(keys)-1)
	}
	if deferred < len(keys)-1 {
		t.Errorf("only %d draws were left to the draw after the last key, want at least %d (one per key but the last)", deferred, len(keys)-1)
	}
	if shown != shownBefore {
		t.Errorf("%d frames reached the views while keys waited", shown-shownBefore)
	}
}

// A panel rebuilt at every key keeps the cards it built while what they show stays the same,
// and builds a card again when its age, its focus or the panel's width moves it.
func TestPanelCardsBuiltAgainOnlyWhenTheyChange(t *testing.T) {
	p := NewSidePanel(themes.Dark(), keymap.Default())
	t0 := time.Now()
	cards := []host.Card{
		{ID: 1, Created: t0, Req: host.ApprovalRequest{Client: "agent-one", Action: host.ActionOpen, Argv: []string{"first"}}},
		{ID: 2, Created: t0, Req: host.ApprovalRequest{Client: "agent-two", Action: host.ActionOpen, Argv: []string{"second"}}},
	}
	head := func(focus int, width int, now time.Time) string {
		p.Rebuild(panelInput{cards: cards, cardFocus: focus, width: width, now: now})
		var b strings.Builder
		for _, l := range p.head {
			for _, s := range l {
				b.WriteString(s.text)
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	first := head(-1, 40, t0)
	built := p.cards[1].view.lines
	if again := head(-1, 40, t0.Add(300*time.Millisecond)); again != first || &p.cards[1].view.lines[0] != &built[0] {
		t.Fatalf("a card that shows the same was built again:\n%s\n%s", first, again)
	}
	if s := head(-1, 40, t0.Add(2*time.Second)); !strings.Contains(s, "waiting 2s") || strings.Contains(s, "waiting 0s") {
		t.Fatalf("the cards' age did not move:\n%s", s)
	}
	if s := head(1, 40, t0.Add(2*time.Second)); !strings.Contains(s, "┏") || !strings.Contains(s, "allow once") {
		t.Fatalf("the focused card is not drawn as focused:\n%s", s)
	}
	if s := head(-1, 60, t0.Add(2*time.Second)); !strings.Contains(s, "┌"+strings.Repeat("─", 58)+"┐") {
		t.Fatalf("the cards were not built again at the new width:\n%s", s)
	}
	cards = cards[1:]
	head(-1, 60, t0.Add(2*time.Second))
	if _, kept := p.cards[1]; kept {
		t.Fatal("a card no longer pending is still kept")
	}
}

// countingScreen counts the cells drawn on it.
type countingScreen struct {
	tcell.Screen
	cells int
}

func (s *countingScreen) SetContent(x, y int, r rune, c []rune, st tcell.Style) {
	s.cells++
	s.Screen.SetContent(x, y, r, c, st)
}

// A pane's frame is drawn again only when what it shows changed or something drew over it: an
// echo redraws the rows that changed, not every row the border crosses.
func TestPaneFrameDrawnOnlyWhenItChanges(t *testing.T) {
	hs := newHarness(t, 120, 40)
	in := hs.openTick("plain")
	hs.start()
	hs.waitFor("VIEWTICK value=0")
	var drawn []int
	hs.app.app.QueueUpdate(func() {
		p := hs.app.panes[in.ID()]
		sc := &countingScreen{Screen: hs.screen}
		for _, change := range []func(){
			p.invalidate,                      // something drew over it
			func() {},                         // nothing changed
			func() {},                         // again
			p.invalidate,                      // drawn over again
			func() {},                         // nothing changed
			func() { p.focused = !p.focused }, // the border's style changes
			func() { p.name = "renamed" },     // the title changes
			func() {},
		} {
			change()
			sc.cells = 0
			p.drawFrame(sc)
			drawn = append(drawn, sc.cells)
		}
	})
	t.Logf("cells drawn: %v", drawn)
	for i, want := range []bool{true, false, false, true, false, true, true, false} {
		if (drawn[i] > 0) != want {
			t.Fatalf("draw %d drew %d cells, want a draw: %v (all: %v)", i, drawn[i], want, drawn)
		}
	}
}

// Keys read together from a view's terminal reach the pane's program together: while keys wait
// behind the one typed into the pane, the program is corked, and the last of them sends all in
// one write (as tmux writes one read's keys), not one write (one wake-up of the program, maybe
// an echo and a frame of its own) per key.
func TestKeysTypedTogetherReachTheProgramInOneWrite(t *testing.T) {
	vh := newViewsHarness(t)
	in := vh.openShell("printf 'cat-ready\\n'; exec cat", "")
	vh.start()
	vh.attach("a", 160, 50)
	vh.waitView("a", "cat-ready", true)

	held, release := make(chan struct{}), make(chan struct{})
	go vh.app.app.QueueUpdate(func() { // the UI goroutine busy while the keys come
		close(held)
		<-release
	})
	<-held
	before := in.Process().InputWrites()
	const word = "together"
	for _, r := range word {
		vh.views["a"].InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	for deadline := time.Now().Add(20 * time.Second); vh.views["a"].keysPosted.Load() < int64(len(word)); {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d keys reached the queue", vh.views["a"].keysPosted.Load(), len(word))
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	vh.waitView("a", word, true) // the terminal's echo
	if n := in.Process().InputWrites() - before; n != 1 {
		t.Fatalf("%d keys typed together went to the program in %d writes, want 1", len(word), n)
	}
}
