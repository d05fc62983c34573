package views

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/internal/screentest"
)

// framesScreen is a view's terminal that keeps the text of every frame shown on it.
type framesScreen = screentest.Frames

func newFramesScreen(t *testing.T, w, h int) *framesScreen { return screentest.NewFrames(t, w, h) }

// The App draws an announced view's first frame at once, not after the burst that gathers a
// program's output: the attach waits for that frame. A view that attached, or left, waits as
// any output does.
func TestAnnouncedViewDrawnWithoutPause(t *testing.T) {
	a := &App{}
	if w := a.pause(time.Now().Add(-time.Millisecond)); w <= burst || w > frame-time.Millisecond {
		t.Fatalf("a draw 1 ms after the last waits %v, want the rest of a frame", w)
	}
	a.viewsChanged("", true) // Mirror.Expect
	if w := a.pause(time.Time{}); w != 0 {
		t.Fatalf("the announced view's frame waits %v", w)
	}
	if w := a.pause(time.Time{}); w != burst {
		t.Fatalf("the draw after it waits %v, want the burst", w)
	}
	a.viewsChanged("view-1", true)
	if w := a.pause(time.Time{}); w != burst {
		t.Fatalf("a draw for an attached view waits %v, want the burst", w)
	}
}

// A view that attaches after a spell with no view sees every pane as it is now in its first
// frame, the pane without the focus too (it is not put off as a busy neighbour's frames are),
// though the App draws for it only what changed meanwhile and the chrome, not every cell; and
// the attach asks for no second frame after that one.
func TestAttachDrawsWhatChangedWhileNoViewWas(t *testing.T) {
	vh := newViewsHarness(t)
	left, err := vh.app.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"cat"}}, "", SideBySide)
	if err != nil {
		t.Fatal(err)
	}
	right, err := vh.app.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"cat"}}, left.ID(), SideBySide)
	if err != nil {
		t.Fatal(err)
	}
	vh.app.Focus(left.ID())
	redraws := make(chan bool, 16)
	vh.mirror.OnViews(func(id string, attached bool) {
		redraws <- attached
		vh.app.viewsChanged(id, attached)
	})
	vh.start()
	typeIn := func(in *host.Instance, text string) {
		if err := in.Process().Input([]byte(text + "\r")); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(in.Terminal().Text(), text) < 2 { // the echo and cat's copy
			if time.Now().After(deadline) {
				t.Fatalf("%s never showed in its pane:\n%s", text, in.Terminal().Text())
			}
			time.Sleep(time.Millisecond)
		}
	}
	a := vh.attachAnnounced("a")
	typeIn(left, "LEFT-ONE")
	typeIn(right, "RIGHT-ONE")
	for f := a.WaitFrame(t); !strings.Contains(f, "LEFT-ONE") || !strings.Contains(f, "RIGHT-ONE"); f = a.WaitFrame(t) {
	}
	vh.detachLast("a")
	// The right pane was drawn just now: as the busy pane without the focus, its next frame
	// would wait.
	typeIn(left, "LEFT-TWO")
	typeIn(right, "RIGHT-TWO")
	for len(redraws) > 0 {
		<-redraws
	}
	var drawn int
	vh.onUI(func() { drawn = vh.mirror.puts })
	b := vh.attachAnnounced("b")
	first := b.WaitFrame(t)
	if !strings.Contains(first, "LEFT-TWO") || !strings.Contains(first, "RIGHT-TWO") {
		t.Fatalf("the first frame misses what the panes drew while no view was attached:\n%s", first)
	}
	var after int
	vh.onUI(func() { after = vh.mirror.puts })
	if cells := 160 * 50; after-drawn >= cells {
		t.Fatalf("the attach drew %d cells, a whole screen is %d: it drew what had not changed", after-drawn, cells)
	}
	// The detach's own notice (false) may come after the drain above: only attaches count.
	n := 0
	for len(redraws) > 0 {
		if <-redraws {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the attach asked the App for %d draws, want 1 (Expect's)", n)
	}
}

// The last view leaves scrolled back in a pane: its scroll goes with it, and the next view's
// first frame shows the pane as it is, though that attach draws only what changed.
func TestAttachAfterAViewLeftScrolledShowsThePaneLive(t *testing.T) {
	vh := newViewsHarness(t)
	in, err := vh.app.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"sh", "-c", "seq 1 300; echo LIVE\"\"-END; exec cat"}}, "", SideBySide)
	if err != nil {
		t.Fatal(err)
	}
	vh.start()
	vh.attach("a", 160, 50)
	vh.waitView("a", "LIVE-END", true)
	vh.keysIn("a", prefixKey, runeKey('['), tcell.NewEventKey(tcell.KeyPgUp, 0, tcell.ModNone))
	scrolled := vh.waitView("a", "LIVE-END", false)
	if !strings.Contains(scrolled, "/"+strconv.Itoa(in.Terminal().ScrollbackLen())+"]") {
		t.Fatalf("view a is not scrolled back:\n%s", scrolled)
	}
	vh.detachLast("a")
	b := vh.attachAnnounced("b")
	if first := b.WaitFrame(t); !strings.Contains(first, "LIVE-END") {
		t.Fatalf("the first frame shows the pane scrolled back, as the view that left had it:\n%s", first)
	}
}

// attachAnnounced attaches a view of 160x50 as the server does: announced (Expect) while its
// terminal is set up, so that the App draws its first frame meanwhile.
func (vh *viewsHarness) attachAnnounced(id string) *framesScreen {
	vh.t.Helper()
	done := vh.mirror.Expect()
	defer done()
	// The server's attach gives the App the time the terminal takes to arrive to draw for the
	// announced view; wait for that draw, as a loaded machine may not have made it yet.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if vh.mirror.shownSinceExpect() {
			break
		}
		if time.Now().After(deadline) {
			vh.t.Fatal("the App never drew for the announced view")
		}
	}
	sc := newFramesScreen(vh.t, 160, 50)
	if err := vh.mirror.Attach(id, sc, nil); err != nil {
		vh.t.Fatal(err)
	}
	return sc
}

// detachLast detaches view id, the last one, and waits for the frame drawn after it left, with
// no view: the draw loop gets to it a frame's pace after the last, and an attach before that
// draws everything itself.
func (vh *viewsHarness) detachLast(id string) {
	vh.t.Helper()
	vh.mirror.Detach(id, "detached")
	for deadline := time.Now().Add(10 * time.Second); vh.app.redrawAll.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			vh.t.Fatal("the frame after the view left was never drawn")
		}
	}
	vh.onUI(func() {}) // after that frame
}
