package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// Key table (README "Using tickmux"): the layout keys: split, focus, resize, zoom, close, swap.
func TestLayoutKeys(t *testing.T) {
	hs := newHarness(t, 160, 40)
	a := hs.openTick("plain")
	hs.start()
	hs.waitFor("VIEWTICK value=0")
	hs.waitFor(a.ID() + " View Tick · ready")

	// prefix % splits side by side with a shell; prefix " splits below.
	hs.prefix()
	hs.typeText("%")
	hs.waitFor("shell:1")
	hs.prefix()
	hs.typeText("\"")
	hs.waitFor("shell:2")
	ids := onUIValue(hs, func() []string { return hs.app.tab.layout.IDs() })
	if strings.Join(ids, " ") != a.ID()+" shell:1 shell:2" {
		t.Fatalf("layout %v", ids)
	}
	rects := onUIValue(hs, func() map[string]Rect { return hs.app.paneRects() })
	if !(rects["shell:1"].X > rects[a.ID()].X && rects["shell:2"].Y > rects["shell:1"].Y && rects["shell:2"].X == rects["shell:1"].X) {
		t.Fatalf("rects %v", rects)
	}

	// Focus moves with prefix + h/l/arrows; zoom shows one pane.
	hs.prefix()
	hs.typeText("h")
	if f := onUIValue(hs, func() string { return hs.app.tab.focus }); f != a.ID() {
		t.Fatalf("focus %s after prefix h", f)
	}
	hs.prefix()
	hs.typeText("z")
	scr := hs.waitGone("━ shell:2")
	scr = hs.waitGone("─ shell:2")
	if !strings.Contains(scr, a.ID()+" View Tick") {
		t.Fatalf("zoomed screen:\n%s", scr)
	}
	hs.prefix()
	hs.typeText("z")
	hs.waitFor("─ shell:2")

	// Close asks first, then ends the program and removes the pane.
	hs.prefix()
	hs.typeText("l")
	hs.prefix()
	hs.typeText("x")
	hs.waitFor("close shell:")
	hs.typeText("y")
	deadline := time.Now().Add(20 * time.Second)
	for len(onUIValue(hs, func() []string { return hs.app.tab.layout.IDs() })) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the pane was not closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Key table (README "Using tickmux"): prefix `t`: the side panel, which shows the focused Tick.
func TestSidePanelShowsTheFocusedTick(t *testing.T) {
	hs := newHarness(t, 160, 50)
	in := hs.openTick("plain")
	hs.start()
	scr := hs.waitFor("STATE  seq")
	for _, want := range []string{
		in.ID() + "  View Tick  ready",
		"test.view · revision",
		"A Tick for view tests.",
		`"value": 0`,
		"UPDATES  received",
		"TOOLS (3)",
		"MUTATES  increment",
		"query  peek",
		"Add amount to the value.",
		"RECENT CALLS (0)",
	} {
		if !strings.Contains(scr, want) {
			t.Errorf("panel lacks %q:\n%s", want, scr)
		}
	}
	// A call shows up in recent calls, the state changes, the counters move.
	if _, err := in.Call(context.Background(), host.CallRequest{Client: "tester", Tool: "peek"}); err != nil {
		t.Fatal(err)
	}
	hs.waitFor("tester → peek")
	hs.waitFor("ok {}")
}

// A Tick that changes a tool under the same revision (spec 5.5) loses the person's "allow for this
// revision": the panel's grant is gone, its warning says the grant was dropped, and the next call
// to the tool puts up a card.
// spec: H-K2
func TestPanelSaysGrantsDroppedOnSpec55Violation(t *testing.T) {
	hs := newHarness(t, 160, 50)
	in := hs.openTick("break55")
	hs.start()
	call := func() chan error {
		done := make(chan error, 1)
		go func() {
			_, err := in.Call(context.Background(), host.CallRequest{Client: "claude-code", Tool: "increment", Args: json.RawMessage(`{"amount":1}`)})
			done <- err
		}()
		return done
	}
	done := call()
	var card host.Card
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if p := hs.queue.Pending(); len(p) > 0 {
			card = p[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no card for increment")
		}
	}
	if err := hs.queue.Answer(card.ID, host.AllowRevision); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	hs.waitFor("ALLOWED WITHOUT A CARD (1)")
	if _, err := in.Call(context.Background(), host.CallRequest{Client: "claude-code", Tool: "bump"}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Describe(context.Background()); err != nil {
		t.Fatal(err)
	}
	scr := hs.waitGone("ALLOWED WITHOUT A CARD")
	flat := strings.Join(strings.Fields(scr), " ")
	for _, want := range []string{"⚠ 1× the tools changed under the same revision", "grant (allow for this", "was dropped"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the panel lacks %q:\n%s", want, scr)
		}
	}
	done = call()
	for deadline := time.Now().Add(20 * time.Second); len(hs.queue.Pending()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call after the violation went out without a card")
		}
	}
	hs.queue.Answer(hs.queue.Pending()[0].ID, host.Deny)
	if err := <-done; !errors.Is(err, host.ErrDenied) {
		t.Fatalf("the call after the violation: %v", err)
	}
}

// approve starts a mutating call in the background, as an agent would.
// callCardOnPlain runs the plain Tick on a 160×50 screen and waits for the card of a claude-code
// call of increment by amount; done carries the call's end.
func callCardOnPlain(t *testing.T, amount int) (hs *harness, in *host.Instance, done chan error) {
	t.Helper()
	hs = newHarness(t, 160, 50)
	in = hs.openTick("plain")
	hs.start()
	done = approve(in, amount)
	hs.waitFor("claude-code wants to call increment")
	return hs, in, done
}

func approve(in *host.Instance, amount int) chan error {
	done := make(chan error, 1)
	go func() {
		args, _ := json.Marshal(map[string]int{"amount": amount})
		_, err := in.Call(context.Background(), host.CallRequest{Client: "claude-code", Tool: "increment", Args: args})
		done <- err
	}()
	return done
}

// spec: H-K2
// spec: H-SEC1
func TestApprovalByKeypress(t *testing.T) {
	hs := newHarness(t, 160, 50)
	in := hs.openTick("plain")
	hs.start()
	hs.waitFor("VIEWTICK value=0")

	done := approve(in, 5)
	scr := hs.waitFor("claude-code wants to call increment on " + in.ID())
	for _, want := range []string{"APPROVALS (1)", "Add amount to the value.", `"amount": 5`, "revision", "⚑ 1 pending", "⚑ approval"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	// Typing y, n or r into the pane answers nothing: those keys go to the Tick.
	hs.typeText("yrn")
	hs.prefix()
	hs.typeText("y")
	oneCardStillPending(t, hs, done, "answered without focusing the card")

	// prefix a focuses the card; Esc leaves it pending.
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")
	hs.key(tcell.KeyEscape, 0, tcell.ModNone)
	hs.waitGone("allow once")
	if len(hs.queue.Pending()) != 1 {
		t.Fatal("Esc answered the card")
	}

	// prefix a, then y allows once: the call goes out with the approved revision.
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")
	hs.typeText("y")
	if err := answered(t, done); err != nil {
		t.Fatalf("approved call: %v", err)
	}
	hs.waitFor("VIEWTICK value=5")
	hs.waitFor("claude-code → increment")
	hs.waitFor(`ok (approved) {"amount":5}`)

	// n denies.
	done = approve(in, 1)
	hs.waitFor("claude-code wants to call increment")
	hs.prefix()
	hs.typeText("a")
	hs.waitFor("allow once")
	hs.typeText("n")
	if err := <-done; !errors.Is(err, host.ErrDenied) || host.EffectOf(err) != "none" {
		t.Fatalf("denied call: %v", err)
	}

	// r allows the tool for this revision: the next call needs no card.
	done = approve(in, 2)
	hs.waitFor("claude-code wants to call increment")
	hs.allowForRevision(done)
	if err := <-approve(in, 3); err != nil {
		t.Fatalf("a call covered by the grant: %v", err)
	}
	hs.waitFor("VIEWTICK value=10")
}

// spec: H-K3
func TestCardVoidedWhenTheCatalogChanges(t *testing.T) {
	hs, in, done := callCardOnPlain(t, 1)
	if err := changeCatalog(in); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if !errors.Is(err, host.ErrVoided) {
		t.Fatalf("pending call after the catalog changed: %v", err)
	}
	hs.waitGone("claude-code wants to call increment")
	hs.waitFor(`voided, effect none {"amount":1}`)
	hs.waitFor("A new tool.")
}

// spec: H-SEC2
func TestUntrustedTextIsEscaped(t *testing.T) {
	hs := newHarness(t, 180, 50)
	in := hs.openTick("evil")
	hs.start()
	hs.waitFor(`"note":`)
	scr := hs.waitFor(`\x1b`)
	cells := onUIValue(hs, func() []tcell.SimCell { c, _, _ := hs.screen.GetContents(); return append([]tcell.SimCell(nil), c...) })
	for _, c := range cells {
		for _, r := range c.Runes {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) || r == 0x202e {
				t.Fatalf("a control character %U reached the screen:\n%s", r, scr)
			}
		}
	}
	for _, want := range []string{`Evil\x1b[31m Tick`, `\u001b[2J`, `\u202e`} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks the escaped %q:\n%s", want, scr)
		}
	}
	_ = in
}

// spec: H-X2
func TestEndedPaneSaysWhyAndOthersGoOn(t *testing.T) {
	hs := newHarness(t, 160, 50)
	good := hs.openTick("plain")
	bad := hs.openTick("plain")
	hs.start()
	hs.waitFor(bad.ID() + " View Tick · ready")
	// The Tick's process dies under it.
	_ = bad.Process().Signal(9)
	scr := hs.waitFor("ended: the Tick exited (signal: killed)")
	if !strings.Contains(scr, good.ID()+" View Tick · ready") {
		t.Fatalf("the other pane is affected:\n%s", scr)
	}
	if _, err := good.Call(context.Background(), host.CallRequest{Tool: "peek"}); err != nil {
		t.Fatal(err)
	}
	// The ended pane stays until closed; closing it needs no confirmation.
	hs.onUI(func() { hs.app.setFocus(bad.ID()) })
	hs.prefix()
	hs.typeText("x")
	hs.waitGone(bad.ID() + " View Tick")
}

// Key table (README "Using tickmux"): prefix `?` lists every key, searchable.
func TestHelpOverlayIsSearchable(t *testing.T) {
	hs := newHarness(t, 140, 50)
	hs.openTick("plain")
	hs.start()
	hs.prefix()
	hs.typeText("?")
	scr := hs.waitFor("tickmux keys")
	for _, want := range []string{"After the prefix", "C-b %", "split-right"} {
		if !strings.Contains(scr, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	hs.typeText("allow")
	scr = hs.waitFor("On an approval card")
	if !strings.Contains(scr, "allow-once") || !strings.Contains(scr, "allow-revision") {
		t.Fatalf("searching for allow:\n%s", scr)
	}
	for i := 0; i < 5; i++ {
		hs.key(tcell.KeyBackspace2, 0, tcell.ModNone)
	}
	hs.typeText("zoom")
	scr = hs.waitFor("search: zoom")
	if strings.Contains(scr, "split-right") || !strings.Contains(scr, "zoom the pane") {
		t.Fatalf("the search did not filter:\n%s", scr)
	}
	hs.key(tcell.KeyEscape, 0, tcell.ModNone)
	hs.waitGone("tickmux keys")
}

// Key table (README "Using tickmux"): prefix `:` opens a Tick from a command line.
func TestPromptOpensATick(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.openTick("plain")
	hs.start()
	hs.waitFor("VIEWTICK value=0")
	hs.prefix()
	hs.typeText(":")
	hs.waitFor("command:")
	hs.typeText("!echo prompt-made-this; sleep 30")
	hs.key(tcell.KeyEnter, 0, tcell.ModNone)
	hs.waitFor("prompt-made-this")
	hs.waitFor("shell:1")
}

// Key table (README "Using tickmux"): prefix `g`, then `C-g`: locked mode.
func TestLockedModePassesThePrefix(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.openTick("plain")
	hs.start()
	hs.prefix()
	hs.typeText("g")
	hs.waitFor("LOCKED")
	hs.prefix()
	hs.typeText("%") // typeText returns once the UI has handled the keys (a sentinel key)
	if n := len(onUIValue(hs, func() []string { return hs.app.tab.layout.IDs() })); n != 1 {
		t.Fatalf("the prefix worked in locked mode: %d panes", n)
	}
	hs.key(tcell.KeyCtrlG, 'g', tcell.ModCtrl)
	hs.waitGone("LOCKED")
}

// A key typed into a pane has its echo drawn by a frame of its own, ahead of the frame pacing
// that output without a key waits for (keys first); output nobody typed for is paced.
func TestTypedKeyEchoIsDrawnAtOnce(t *testing.T) {
	hs := newHarness(t, 120, 30)
	a := hs.openTick("plain")
	hs.start()
	hs.waitFor(a.ID() + " View Tick · ready")
	hs.prefix()
	hs.typeText("%")
	hs.waitFor("shell:1")
	hs.sync()
	before := hs.app.echoes.Load()
	hs.typeText("echo zq9")
	hs.waitFor("echo zq9")
	if hs.app.echoes.Load() == before {
		t.Fatalf("the typed keys' echo was drawn by paced frames only")
	}
	// A Tick's output with no key typed into it is never drawn as an echo.
	p := onUIValue(hs, func() *Pane { return hs.app.panes[a.ID()] })
	if n := p.typed.Load(); n != 0 {
		t.Fatalf("the Tick's pane counts %d typed keys without a key", n)
	}
}

// At 80x24 the help overlay takes the whole screen above the status bar (no pane text shows at
// its edges) and wraps a long description instead of cutting it.
func TestHelpOverlayAt80x24(t *testing.T) {
	hs := newHarness(t, 80, 24)
	hs.openTick("plain")
	hs.start()
	hs.waitFor("VIEWTICK")
	hs.prefix()
	hs.typeText("?")
	hs.waitFor("tickmux keys")
	hs.typeText("kill-server")
	scr := hs.waitFor("search: kill-server")
	if !strings.Contains(scr, "prompt too") {
		t.Errorf("the description of quit is cut:\n%s", scr)
	}
	if strings.Contains(scr, "VIEWTICK") || strings.Contains(scr, "│V") {
		t.Errorf("pane text shows around the help overlay:\n%s", scr)
	}
	rows := strings.Split(scr, "\n")
	for _, row := range rows[:min(len(rows), 23)] {
		if strings.ContainsAny(row, "│┃") {
			t.Errorf("a pane border shows beside the help overlay: %q", row)
		}
	}
}

// Key table: prefix M-5 tiles every pane (tmux's select-layout tiled): six panes split one from
// the other, the last ones squeezed, come out in a grid of equal cells (scripts/bench-scale uses it).
func TestTileKey(t *testing.T) {
	hs := newHarness(t, 160, 40)
	a := hs.openTick("plain")
	hs.start()
	hs.waitFor(a.ID() + " View Tick · ready")
	for i := 1; i <= 5; i++ {
		hs.prefix()
		hs.typeText("%")
		hs.waitFor(fmt.Sprintf("shell:%d", i))
	}
	hs.prefix()
	hs.key(tcell.KeyRune, '5', tcell.ModAlt)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rects := hs.rects()
		ws := map[int]bool{}
		for _, r := range rects {
			ws[r.W] = true
		}
		// 3 rows x 2 columns: two widths at most (an odd cell of the split goes to one side).
		if len(rects) == 6 && len(ws) <= 2 && rects["shell:5"].Y > rects[a.ID()].Y {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not tiled: %v", rects)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A key's echo frame draws the pane's frame with the title it had (reading it is an ioctl and a
// read of /proc on the echo's path) and reads it again once the frame is out: a program whose
// name changes on a key with no Enter after it (an editor's command, less's q) has its new name
// on its pane's border. The screen is read here without drawing (a harness draw would read the
// title itself).
func TestEchoFrameReadsTheTitleAfter(t *testing.T) {
	hs := newHarness(t, 120, 30)
	self, _ := os.Executable()
	var in *host.Instance
	var err error
	hs.onUI(func() {
		in, err = hs.app.Open(host.OpenSpec{Argv: []string{self}, Env: []string{envTick + "=renames"}, Shell: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	hs.start()
	hs.waitFor("press a key")
	p := onUIValue(hs, func() *Pane { return hs.app.panes[in.ID()] })
	if title := onUIValue(hs, func() string { return p.title }); title == "renamed" || title == "" {
		t.Fatalf("the title before the key: %q", title)
	}
	echoes := hs.app.echoes.Load()
	hs.typeText("x")
	deadline := time.Now().Add(20 * time.Second) // a hang guard
	for {
		// The frame for the key's echo, and the title read after it, are one task of the UI
		// goroutine: once the frame is counted, the title is read.
		type seen struct {
			echoes int64
			title  string
		}
		s := onUIValue(hs, func() seen { return seen{hs.app.echoes.Load(), p.title} })
		if s.echoes > echoes {
			if s.title != "renamed" {
				t.Fatalf("the echo's frame is out and the title is still %q", s.title)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no frame was drawn for the key's echo")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for !strings.Contains(onUIValue(hs, hs.rawText), in.ID()+" renamed") {
		if time.Now().After(deadline) {
			t.Fatalf("the pane's border never showed the new title:\n%s", onUIValue(hs, hs.rawText))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
