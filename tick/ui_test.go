package tick

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick/wire"
)

// pipes is an in-process host: it writes requests to serve's stdin and reads its stdout.
type pipes struct {
	inR, inW, outR, outW *os.File
	lines                *bufio.Reader
}

func newPipes(t *testing.T) *pipes {
	t.Helper()
	p := &pipes{}
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	p.lines = bufio.NewReader(p.outR)
	t.Cleanup(func() {
		for _, f := range []*os.File{p.inR, p.inW, p.outR, p.outW} {
			f.Close()
		}
	})
	return p
}

func (p *pipes) next(t *testing.T) string {
	t.Helper()
	_ = p.outR.SetReadDeadline(time.Now().Add(30 * time.Second)) // hang guard
	line, err := p.lines.ReadString('\n')
	if err != nil {
		t.Fatalf("reading stdout: %v", err)
	}
	return line
}

// screenText returns the simulated screen's rows as text, trailing spaces trimmed.
func screenText(s tcell.SimulationScreen) string {
	cells, w, h := s.GetContents()
	var b strings.Builder
	for y := range h {
		var row strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				row.WriteByte(' ')
			} else {
				row.WriteString(string(c.Runes))
			}
		}
		b.WriteString(strings.TrimRight(row.String(), " ") + "\n")
	}
	return b.String()
}

// TestUIKeysUpdateAndRedraw: a key handled on the UI goroutine makes an update on stdout and a new
// frame; Ctrl-C stops serving and finalises the screen; no goroutine outlives serve (goleak).
func TestUIKeysUpdateAndRedraw(t *testing.T) {
	t.Parallel()
	p := newPipes(t)
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	screen.SetSize(12, 2)

	var value atomic.Int64
	drawn := make(chan int64, 100)
	// The simulated screen is read on the UI goroutine only, at the start of a Draw: by then
	// the previous frame has been shown, and nothing is showing another.
	var wantShown atomic.Bool
	shown := make(chan string, 1)
	var srv *Server
	srv, err := New(Tick{Kind: "test.ui", Title: "UI"})
	if err != nil {
		t.Fatal(err)
	}
	ui := &UI{
		Draw: func(s tcell.Screen) {
			if wantShown.CompareAndSwap(true, false) {
				shown <- screenText(screen)
			}
			v := value.Load()
			s.PutStr(0, 0, fmt.Sprintf("value=%d", v))
			drawn <- v
		},
		Key: func(ev *tcell.EventKey) {
			if ev.Key() == tcell.KeyRune && ev.Rune() == '+' {
				if err := srv.Update(map[string]int64{"value": value.Add(1)}); err != nil {
					t.Error(err)
				}
			}
		},
	}
	served := make(chan error, 1)
	go func() { served <- srv.serve(context.Background(), p.inR, p.outW, ui, screen) }() // ends on Ctrl-C

	waitDraw := func(want int64) {
		t.Helper()
		for v := range drawn {
			if v == want {
				return
			}
		}
	}
	waitDraw(0)
	screen.InjectKey(tcell.KeyRune, '+', tcell.ModNone)
	var upd struct{ Params wire.State }
	if err := json.Unmarshal([]byte(p.next(t)), &upd); err != nil || upd.Params.Seq != 1 || string(upd.Params.Data) != `{"value":1}` {
		t.Fatalf("update after '+': %+v %v", upd, err)
	}
	waitDraw(1)
	wantShown.Store(true)
	srv.Redraw() // the next Draw reports the frame showing value=1
	if got, want := <-shown, "value=1\n\n"; got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}

	screen.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Ctrl-C did not stop serving")
	}
	if err := srv.Update(map[string]int{"late": 1}); err != ErrStopped {
		t.Fatalf("Update after stop: %v, want ErrStopped", err)
	}
}

// TestServeHeadlessEOF: with no screen, serve answers, and at EOF writes the newest pending
// update before returning nil.
func TestServeHeadlessEOF(t *testing.T) {
	t.Parallel()
	p := newPipes(t)
	srv, err := New(Tick{Kind: "test.headless", Title: "Headless"})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.serve(context.Background(), p.inR, p.outW, &UI{}, nil) }() // ends at EOF
	if _, err := p.inW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tick/read","params":{}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if got := p.next(t); got != `{"jsonrpc":"2.0","id":1,"result":{"seq":0,"data":null}}`+"\n" {
		t.Fatalf("read: %s", got)
	}
	if err := srv.Update(map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	p.inW.Close()
	if got := p.next(t); !strings.Contains(got, `"seq":1,"data":{"n":1}`) {
		t.Fatalf("last update: %s", got)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if err := srv.serve(context.Background(), p.inR, p.outW, nil, nil); err != errRunTwice {
		t.Fatalf("second serve: %v", err)
	}
}

// TestDrawnTextCannotEscape: what Draw puts on its screen reaches the terminal without control
// characters, whatever an agent or a file put in the text (STYLE 10).
func TestDrawnTextCannotEscape(t *testing.T) {
	t.Parallel()
	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		t.Fatal(err)
	}
	defer sim.Fini()
	sim.SetSize(12, 4)
	s := safeScreen{sim}
	s.PutStr(0, 0, "a\x1b[2Jb")
	s.PutStrStyled(0, 1, "c\x07\u009bd", tcell.StyleDefault)
	s.Put(0, 2, "\x1bx", tcell.StyleDefault)
	s.SetContent(0, 3, '\x1b', []rune{'\x07'}, tcell.StyleDefault)
	sim.Show()
	if got, want := screenText(sim), "a\uFFFD[2Jb\nc\uFFFD\uFFFDd\n\uFFFD\n\uFFFD\n"; got != want {
		t.Fatalf("screen:\n%q\nwant:\n%q", got, want)
	}
}
