package viewterm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"

	"tickmux/server/viewterm"
	"tickmux/vt"
)

// started is a Terminal for a terminal of type term, w x h, initialized; it is finalized at the
// test's end.
func started(t *testing.T, term string, w, h int, charset string) (*viewterm.Terminal, *fakeTty) {
	t.Helper()
	return startedTi(t, lookup(t, term), w, h, charset)
}

// A cell's text never reaches the terminal as a command: C0 and C1 controls, ESC and DEL are
// drawn as '?', whatever text the cell was given, on a UTF-8 terminal and an ASCII one.
func TestControlCharactersNeverWritten(t *testing.T) {
	hostile := []string{"\x1b", "\x1b]52;c;aGk=\x07", "\x07", "\x9b31m", "\u009d0;x\u009c", "\x7f", "\r", "\n", "\x08", "a\x1bc"}
	for _, charset := range []string{"UTF-8", "US-ASCII"} {
		sc, tty := started(t, "xterm-256color", 20, 4, charset)
		tty.take()
		for i, s := range hostile {
			sc.PutCell(i, 1, s, tcell.StyleDefault, 1)
		}
		sc.Show()
		out := tty.take()
		body := out[strings.Index(out, "\x1b[2;1H")+len("\x1b[2;1H"):]
		body = body[:strings.Index(body, "\x1b[?2026l")]
		for _, c := range []string{"\x07", "\x9b", "\u009b", "\u009d", "\u009c", "\x7f", "\r", "\n", "\x08", "\x1b]", "\x1bc"} {
			if strings.Contains(body, c) {
				t.Fatalf("%s: the frame wrote %q: %q", charset, c, body)
			}
		}
		v := vt.New(20, 4, nil)
		v.Write([]byte(out))
		var s vt.Screen
		v.Snapshot(&s)
		if row := string(runes(s.Row(1))); !strings.HasPrefix(row, "??") || s.Title != "" || s.Modes.Mouse != 0 {
			t.Fatalf("%s: row shows %q, title %q, modes %+v", charset, row, s.Title, s.Modes)
		}
	}
}

func runes(cells []vt.Cell) []rune {
	var r []rune
	for _, c := range cells {
		r = append(r, c.Rune)
	}
	return r
}

// Modes and the clipboard set from another goroutine never write: they wait for the next frame.
// A terminal that stopped reading holds up only the frame's write.
func TestModesWaitForTheFrame(t *testing.T) {
	sc, tty := started(t, "xterm-256color", 20, 4, "UTF-8")
	tty.take()
	block := make(chan struct{})
	tty.mu.Lock()
	tty.block = block
	tty.mu.Unlock()
	done := make(chan struct{})
	go func() {
		sc.EnableMouse(tcell.MouseButtonEvents)
		sc.EnablePaste()
		sc.EnableFocus()
		sc.SetClipboard([]byte("copied"))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a hang guard, not a timing
		t.Fatal("setting modes waited for the stalled terminal")
	}
	shown := make(chan struct{})
	go func() { sc.Show(); close(shown) }()
	close(block)
	<-shown
	tty.mu.Lock()
	tty.block = nil
	tty.mu.Unlock()
	out := tty.take()
	for _, want := range []string{"\x1b[?1000h", "\x1b[?1006h", "\x1b[?2004h", "\x1b[?1004h", "\x1b]52;c;Y29waWVk\x1b\\"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the frame lacks %q: %q", want, out)
		}
	}
}

// An empty frame writes nothing; a frame that only moves the cursor writes only that.
func TestShowWritesOnlyWhatChanged(t *testing.T) {
	sc, tty := started(t, "xterm-256color", 20, 4, "UTF-8")
	sc.PutCell(0, 0, "x", tcell.StyleDefault, 1)
	sc.ShowCursor(1, 0)
	sc.Show()
	tty.take()
	sc.Show()
	if out := tty.take(); out != "" {
		t.Fatalf("an empty frame wrote %q", out)
	}
	sc.ShowCursor(5, 2)
	sc.Show()
	if out := tty.take(); out != "\x1b[3;6H" {
		t.Fatalf("a cursor move wrote %q", out)
	}
	sc.HideCursor()
	sc.Show()
	if out := tty.take(); out != "\x1b[?25l" {
		t.Fatalf("hiding the cursor wrote %q", out)
	}
}

// On a terminal that scrolls when its last cell is written and cannot be told not to (automatic
// margins, no way to turn them off) but can insert a character, the bottom right cell is drawn
// without writing there: the screen does not scroll, and the cell left of it keeps its text.
func TestLastCellOnAScrollingTerminal(t *testing.T) {
	base := lookup(t, "linux")
	ti := *base
	ti.Name = "linux-am-test"
	ti.DisableAutoMargin, ti.EnableAutoMargin = "", ""
	sc, tty := startedTi(t, &ti, 6, 3, "UTF-8")
	sc.PutCell(0, 0, "T", tcell.StyleDefault, 1)
	sc.PutCell(4, 2, "y", tcell.StyleDefault.Bold(true), 1)
	sc.Show()
	sc.PutCell(5, 2, "z", tcell.StyleDefault, 1)
	sc.Show()
	out := tty.take()
	if strings.Contains(out, "\x1b[3;6H") {
		t.Fatalf("the last cell was addressed: %q", out)
	}
	v := vt.New(6, 3, nil)
	v.Write([]byte(out))
	var s vt.Screen
	v.Snapshot(&s)
	if got := s.Text(); !strings.HasPrefix(got, "T") || !strings.Contains(got, "    yz") {
		t.Fatalf("screen:\n%s", got)
	}
	if s.Row(2)[4].Style.Attrs&vt.AttrBold == 0 || s.Row(2)[5].Style.Attrs&vt.AttrBold != 0 {
		t.Fatalf("styles: %+v %+v", s.Row(2)[4].Style, s.Row(2)[5].Style)
	}
}

func startedTi(t *testing.T, ti *terminfo.Terminfo, w, h int, charset string) (*viewterm.Terminal, *fakeTty) {
	t.Helper()
	tty := newFakeTty(w, h)
	sc := viewterm.New(tty, ti, charset)
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sc.Fini)
	return sc, tty
}

// The first frame of a view, what every attach draws: a tcell screen made and drawn against a
// Terminal. go test -run XXX -bench FirstFrame ./server/viewterm
func BenchmarkFirstFrame(b *testing.B) {
	ti := lookup(b, "xterm-256color")
	b.Setenv("COLORTERM", "")
	const w, h = 200, 60
	var styles []tcell.Style
	for i := 0; i < 24; i++ {
		styles = append(styles, tcell.StyleDefault.Foreground(tcell.NewRGBColor(int32(i*10), 200-int32(i*7), 90)).Background(tcell.NewRGBColor(20, int32(i*5), 40)))
	}
	text := []string{"a", "─", "│", "x", " ", "é"}
	b.Run("tcell", func(b *testing.B) {
		for b.Loop() {
			tty := newFakeTty(w, h)
			sc, err := tcell.NewTerminfoScreenFromTtyTerminfo(tty, ti)
			if err != nil {
				b.Fatal(err)
			}
			if err := sc.Init(); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < w*h; i++ {
				sc.Put(i%w, i/w, text[i%len(text)], styles[(i/7)%len(styles)])
			}
			sc.Show()
			sc.Fini()
		}
	})
	b.Run("viewterm", func(b *testing.B) { firstFrames(b, ti, w, h, styles, text) })
	b.Run("viewterm-truecolor", func(b *testing.B) { firstFrames(b, lookup(b, "xterm-direct"), w, h, styles, text) })
}

func firstFrames(b *testing.B, ti *terminfo.Terminfo, w, h int, styles []tcell.Style, text []string) {
	for b.Loop() {
		tty := newFakeTty(w, h)
		sc := viewterm.New(tty, ti, "UTF-8")
		if err := sc.Init(); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < w*h; i++ {
			sc.PutCell(i%w, i/w, text[i%len(text)], styles[(i/7)%len(styles)], 1)
		}
		sc.Show()
		sc.Fini()
	}
}

// nowTty is a terminal that takes at most room bytes of a write that must not wait (WriteNow):
// its buffer is nearly full.
type nowTty struct {
	*fakeTty
	room int
	nows int
}

func (t *nowTty) WriteNow(b []byte) (int, error) {
	t.nows++
	n := min(len(b), t.room)
	return t.fakeTty.Write(b[:n])
}

// ShowNow writes the frame Show would, as far as the terminal takes it without waiting; the
// rest goes first in the next frame's write, so the terminal gets the same bytes in the same
// order. A tty that cannot write without waiting gets nothing from ShowNow, all of it next.
func TestShowNowLeavesTheRestToTheNextShow(t *testing.T) {
	ti := lookup(t, "xterm-256color")
	draw := func(sc *viewterm.Terminal, s string) {
		for i, r := range s {
			sc.PutCell(i, 1, string(r), tcell.StyleDefault.Foreground(tcell.ColorRed), 1)
		}
		sc.ShowCursor(len(s), 1)
	}
	want, wtty := startedTi(t, ti, 20, 4, "UTF-8")
	wtty.take()
	draw(want, "echo")
	want.Show()
	draw(want, "echo2")
	want.Show()
	whole := wtty.take()

	for _, room := range []int{0, 5, 1 << 20} {
		tty := &nowTty{fakeTty: newFakeTty(20, 4), room: room}
		sc := viewterm.New(tty, ti, "UTF-8")
		if err := sc.Init(); err != nil {
			t.Fatal(err)
		}
		tty.take()
		draw(sc, "echo")
		if took := sc.ShowNow(); took != (room == 1<<20) || tty.nows != 1 {
			t.Fatalf("room %d: ShowNow reported %v after %d writes", room, took, tty.nows)
		}
		draw(sc, "echo2")
		sc.Show()
		if got := tty.take(); got != whole {
			t.Fatalf("room %d: the terminal got\n%q\nwant\n%q", room, got, whole)
		}
		sc.Fini()
	}

	plain, ptty := startedTi(t, ti, 20, 4, "UTF-8")
	ptty.take()
	draw(plain, "echo")
	if plain.ShowNow() {
		t.Fatal("ShowNow reported the frame shown on a tty that cannot write without waiting")
	}
	if got := ptty.take(); got != "" {
		t.Fatalf("ShowNow wrote %q through a write that may wait", got)
	}
	draw(plain, "echo2")
	plain.Show()
	if got := ptty.take(); got != whole {
		t.Fatalf("the next Show wrote\n%q\nwant\n%q", got, whole)
	}
}
