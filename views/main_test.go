package views

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"go.uber.org/goleak"
	"golang.org/x/term"

	"tickmux/config"
	"tickmux/host"
	"tickmux/tick"
	"tickmux/tick/wire"
)

// The test binary plays the Ticks shown here: VIEWTEST_TICK selects the mode.
const envTick = "VIEWTEST_TICK"

func TestMain(m *testing.M) {
	if mode := os.Getenv(envTick); mode == "renames" {
		os.Exit(renamesOnAKey())
	} else if mode != "" {
		os.Exit(fakeTick(mode))
	}
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("tickmux/host.reapLoop"),
		goleak.IgnoreTopFunction("tickmux/host.exitLoop"),
		goleak.IgnoreTopFunction("os/signal.signal_recv"),
	)
}

// renamesOnAKey is a plain program that, on the first key typed into it (its terminal raw, no
// Enter), renames itself ("renamed": its pane's title) and then prints a line, and waits.
func renamesOnAKey() int {
	if _, err := term.MakeRaw(0); err != nil {
		return 1
	}
	fmt.Print("press a key")
	var b [1]byte
	if _, err := os.Stdin.Read(b[:]); err != nil {
		return 1
	}
	if err := os.WriteFile("/proc/self/comm", []byte("renamed"), 0); err != nil {
		return 1
	}
	fmt.Print("\r\nrenamed-now")
	time.Sleep(time.Hour)
	return 0
}

// fakeTick is a small Tick written with the SDK: a value, a mutating increment, a query, and a
// bump that changes the catalog. Mode "evil" puts control characters in its state and title.
func fakeTick(mode string) int {
	if mode == "break55" {
		return break55Tick()
	}
	var srv *tick.Server
	var mu sync.Mutex
	value := 0
	evil := mode == "evil"
	state := func() any {
		mu.Lock()
		defer mu.Unlock()
		if evil {
			return map[string]any{"value": value, "note": "\x1b[2J\x1b]0;pwned\x07 \u009b31m bidi\u202eevil"}
		}
		if mode == "bigstate" { // taller than any panel
			rows := make([]int, 300)
			return map[string]any{"value": value, "recent": []int{value}, "rows": rows}
		}
		return map[string]any{"value": value, "recent": []int{value}}
	}
	schema := json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}},"required":["amount"],"additionalProperties":false}`)
	empty := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	if mode == "longschema" { // a schema line wider than any panel
		schema = json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","description":"` +
			strings.Repeat("how much to add to the value ", 6) + `END-OF-SCHEMA-LINE"}},"required":["amount"]}`)
	}
	tools := func(extra bool) []tick.ToolSpec {
		t := []tick.ToolSpec{
			{Name: "increment", Description: "Add amount to the value.", InputSchema: schema, Mutates: true,
				Handler: tick.HandlerOf(func(ctx context.Context, a struct{ Amount int }) (any, error) {
					mu.Lock()
					value += a.Amount
					v := value
					mu.Unlock()
					srv.Redraw()
					return map[string]int{"value": v}, srv.Update(state())
				})},
			{Name: "peek", Description: "Read the value.", InputSchema: empty,
				Handler: func(context.Context, json.RawMessage) (any, error) { return state(), nil }},
		}
		if extra {
			t = append(t, tick.ToolSpec{Name: "extra", Description: "A new tool.", InputSchema: empty,
				Handler: func(context.Context, json.RawMessage) (any, error) { return nil, nil }})
		}
		return t
	}
	bump := tick.ToolSpec{Name: "bump", Description: "Change the catalog.", InputSchema: empty,
		Handler: func(context.Context, json.RawMessage) (any, error) { return nil, srv.SetTools(tools(true)...) }}
	title, description := "View Tick", "A Tick for view tests."
	switch mode {
	case "evil":
		title = "Evil\x1b[31m Tick"
	case "hugedescription": // valid: the descriptor stays under 512 KiB
		description = strings.Repeat("D", 400_000)
	case "hugetitle":
		title = strings.Repeat("T", 400_000)
	}
	var err error
	srv, err = tick.New(tick.Tick{Kind: "test.view", Title: title, Description: description,
		Tools: append(tools(false), bump), State: &wire.StateDeclaration{Series: []wire.Series{{Path: "/recent", Newest: wire.NewestLast}}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := srv.Update(state()); err != nil {
		return 1
	}
	typed := "" // the keys typed into the Tick's pane, shown on its second row
	ui := &tick.UI{Draw: func(s tcell.Screen) {
		mu.Lock()
		defer mu.Unlock()
		for row, line := range []string{fmt.Sprintf("VIEWTICK value=%d", value), "TYPED[" + typed + "]"} {
			for i, r := range line {
				s.SetContent(i, row, r, nil, tcell.StyleDefault)
			}
		}
	}, Key: func(ev *tcell.EventKey) {
		if ev.Key() == tcell.KeyRune {
			mu.Lock()
			typed += string(ev.Rune())
			mu.Unlock()
		}
	}}
	if err := srv.Run(context.Background(), ui); err != nil {
		return 1
	}
	return 0
}

// break55Tick is a Tick written against the wire, as the SDK cannot break spec 5.5: its "bump"
// (a query) changes the mutating increment's description and schema and keeps revision r1.
func break55Tick() int {
	var mu sync.Mutex
	flipped := false
	out := json.NewEncoder(os.Stdout)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Tool string `json:"tool"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result any = map[string]any{}
		switch req.Method {
		case "tick/describe":
			mu.Lock()
			desc, schema := "Add amount to the value.", json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}}}`)
			if flipped {
				desc, schema = "Add amount, or wipe everything.", json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"},"wipe":{"type":"boolean"}}}`)
			}
			mu.Unlock()
			result = map[string]any{"protocol": 3, "kind": "test.break55", "title": "Breaks 5.5", "revision": "r1", "tools": []any{
				map[string]any{"name": "increment", "description": desc, "input_schema": schema, "mutates": true},
				map[string]any{"name": "bump", "description": "Change increment, keep the revision.", "input_schema": json.RawMessage(`{"type":"object"}`), "mutates": false},
			}}
		case "tick/read":
			result = map[string]any{"seq": 0, "data": map[string]any{"value": 0}}
		case "tick/call":
			if req.Params.Tool == "bump" {
				mu.Lock()
				flipped = true
				mu.Unlock()
			}
		}
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	return 0
}

// harness runs an App on a simulation screen.
type harness struct {
	t      *testing.T
	h      *host.Host
	queue  *host.ApprovalQueue
	app    *App
	screen tcell.SimulationScreen
	// appScreen is the screen the App draws on (hs.screen's, or a Mirror's).
	appScreen tcell.Screen
	done      chan error
	running   bool
	// sentinels maps a sentinel key (keysSeen) to the channel closed when the UI takes it.
	sentinels sync.Map
}

func newHarness(t *testing.T, w, hh int) *harness {
	t.Helper()
	sc := tcell.NewSimulationScreen("UTF-8")
	hs := newHarnessOn(t, sc) // New initializes sc
	sc.SetSize(w, hh)
	hs.screen = sc
	return hs
}

// newHarnessOn builds a host, its approval queue and an App drawing on screen; the caller sets
// hs.screen to the simulation it reads.
func newHarnessOn(t *testing.T, screen tcell.Screen) *harness {
	t.Helper()
	return newHarnessWith(t, screen, nil)
}

// newHarnessWith is newHarnessOn with the host's approval journal j (nil: none).
func newHarnessWith(t *testing.T, screen tcell.Screen, j host.JournalWriter) *harness {
	t.Helper()
	t.Setenv("NO_COLOR", "")
	hs := &harness{t: t, done: make(chan error, 1)}
	var app *App
	var mu sync.Mutex
	hs.queue = host.NewApprovalQueue(func() {
		mu.Lock()
		a := app
		mu.Unlock()
		if a != nil {
			a.ApprovalsChanged()
		}
	})
	hs.h = host.New(host.Config{Approver: hs.queue, Journal: j, Logf: func(f string, args ...any) { t.Logf("host: "+f, args...) }})
	a := New(Options{Host: hs.h, Approvals: hs.queue, Config: config.Default(), Screen: screen})
	mu.Lock()
	app = a
	mu.Unlock()
	hs.app = a
	hs.appScreen = screen
	t.Cleanup(hs.close)
	return hs
}

func (hs *harness) start() {
	hs.running = true
	// Sentinel keys (keysSeen) stop here; every other key goes on to the App.
	capture := hs.app.app.GetInputCapture()
	hs.app.app.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if seen, ok := hs.sentinels.LoadAndDelete(ev); ok {
			hs.app.keyTaken(ev) // a Mirror counts a view's key as waiting until the App takes it
			close(seen.(chan struct{}))
			return nil
		}
		return capture(ev)
	})
	go func() { hs.done <- hs.app.Run() }()
}

// keysSeen returns once the UI goroutine has handled every event posted on screen before it
// (keys, mouse, a paste): a sentinel key posted after them leaves the same queue after them.
// screen is hs.screen, or a view's terminal for what that view sent. A sentinel, not a pause:
// a check that nothing happened after some keys is made after keysSeen.
func (hs *harness) keysSeen(screen tcell.Screen) {
	hs.t.Helper()
	if !hs.running {
		return
	}
	ev := tcell.NewEventKey(tcell.KeyF63, 0, tcell.ModNone)
	seen := make(chan struct{})
	hs.sentinels.Store(ev, seen)
	screen.PostEventWait(ev)
	select {
	case <-seen:
	case <-time.After(20 * time.Second):
		hs.t.Fatal("the UI never took the keys typed")
	}
}

func (hs *harness) close() {
	if !hs.running {
		hs.h.Close()
		return
	}
	hs.app.Stop()
	select {
	case <-hs.done:
	case <-time.After(20 * time.Second):
		hs.t.Error("the UI did not stop")
	}
	hs.h.Close()
}

// openTick opens a fake Tick before Run (or via the UI goroutine after).
func (hs *harness) openTick(mode string) *host.Instance {
	hs.t.Helper()
	self, _ := os.Executable()
	var in *host.Instance
	var err error
	hs.onUI(func() {
		in, err = hs.app.Open(host.OpenSpec{Argv: []string{self}, Env: []string{envTick + "=" + mode}})
	})
	if err != nil {
		hs.t.Fatal(err)
	}
	select {
	case <-in.Ready():
	case <-time.After(20 * time.Second):
		hs.t.Fatal("the Tick did not initialize")
	}
	return in
}

// onUI runs f on the UI goroutine once the app runs, or directly before.
func (hs *harness) onUI(f func()) {
	if hs.running {
		hs.app.app.QueueUpdateDraw(f)
		return
	}
	f()
}

// text is the screen as lines, read on the UI goroutine (the simulation screen is not safe to
// read while tview draws on it).
func (hs *harness) text() string {
	if hs.running {
		return onUIValue(hs, hs.rawText)
	}
	return hs.rawText()
}

func (hs *harness) rawText() string {
	cells, w, h := hs.screen.GetContents()
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(string(c.Runes))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// waitFor polls the screen until it shows want (a hang guard, not a timing assertion).
func (hs *harness) waitFor(want string) string {
	hs.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var s string
		hs.app.app.QueueUpdateDraw(func() { s = hs.rawText() })
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			hs.t.Fatalf("the screen never showed %q:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone polls until the screen no longer shows s.
func (hs *harness) waitGone(s string) string {
	hs.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var txt string
		hs.app.app.QueueUpdateDraw(func() { txt = hs.rawText() })
		if !strings.Contains(txt, s) {
			return txt
		}
		if time.Now().After(deadline) {
			hs.t.Fatalf("the screen still shows %q:\n%s", s, txt)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (hs *harness) key(k tcell.Key, r rune, mod tcell.ModMask) {
	hs.screen.InjectKey(k, r, mod)
	hs.sync()
}

func (hs *harness) prefix() { hs.key(tcell.KeyCtrlB, 'b', tcell.ModCtrl) }

func (hs *harness) typeText(s string) {
	for _, r := range s {
		hs.screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	hs.sync()
}

// sync returns once the UI goroutine has handled the keys injected on hs.screen so far (what
// they drew may still be on its way: assert that with waitFor, which polls).
// A harness on another screen (a Mirror: newHarnessOn) posts its sentinel on that screen.
func (hs *harness) sync() {
	if hs.screen == nil {
		hs.keysSeen(hs.appScreen)
		return
	}
	hs.keysSeen(hs.screen)
}

// onUIValue reads something on the UI goroutine.
func onUIValue[T any](hs *harness, f func() T) T {
	var v T
	hs.app.app.QueueUpdate(func() { v = f() })
	return v
}
