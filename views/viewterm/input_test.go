package viewterm_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/views/viewterm"
)

// describe is an event as the App reads it.
func describe(ev tcell.Event) string {
	switch e := ev.(type) {
	case *tcell.EventKey:
		return fmt.Sprintf("key %d %q %d", e.Key(), e.Rune(), e.Modifiers())
	case *tcell.EventMouse:
		x, y := e.Position()
		return fmt.Sprintf("mouse %d,%d %d %d", x, y, e.Buttons(), e.Modifiers())
	case *tcell.EventPaste:
		return fmt.Sprintf("paste %v", e.Start())
	case *tcell.EventFocus:
		return fmt.Sprintf("focus %v", e.Focused)
	case *tcell.EventResize:
		w, h := e.Size()
		return fmt.Sprintf("resize %dx%d", w, h)
	case *tcell.EventError:
		return "error"
	}
	return fmt.Sprintf("%T", ev)
}

// events collects what sc reports until end arrives (the key 'Z' the test types last).
func events(t *testing.T, sc interface{ PollEvent() tcell.Event }) []string {
	t.Helper()
	got := make(chan []string, 1)
	go func() {
		var evs []string
		for {
			ev := sc.PollEvent()
			if ev == nil {
				break
			}
			if _, ok := ev.(*tcell.EventResize); ok {
				continue // tcell reports its size at Init; the resize test covers ours
			}
			d := describe(ev)
			evs = append(evs, d)
			if d == describe(tcell.NewEventKey(tcell.KeyRune, 'Z', 0)) {
				break
			}
		}
		got <- evs
	}()
	select {
	case evs := <-got:
		return evs
	case <-time.After(20 * time.Second): // a hang guard, not a timing
		t.Fatal("the end key never came")
		return nil
	}
}

// What a person types reaches the App as the same events from a Terminal as from tcell's own
// screen: keys with modifiers, function keys, kitty's and xterm's key reports, UTF-8 cut across
// reads, the mouse, a bracketed paste, focus.
func TestReadsAsTcell(t *testing.T) {
	t.Setenv("LC_ALL", "en_US.UTF-8")
	ti := lookup(t, "xterm-256color")
	chunks := []string{
		"a", "\x1b[A", "\x1b[1;5C", "\x1bx", "\x03", "\x7f", "\r", "\t", "\x1b[Z", "\x1bOP", "\x1b[15~",
		"\xc3", "\xa9", // é, cut in two
		"\xe4\xb8", "\x96", // 世
		"\x1b[97;5u",                   // ctrl-a as kitty reports it
		"\x1b[27;5;13~",                // ctrl-enter, xterm's modifyOtherKeys
		"\x1b[<0;5;3M", "\x1b[<0;5;3m", // a click at 4,2
		"\x1b[<64;2;2M",                  // the wheel
		"\x1b[200~pasted\ttext\x1b[201~", // a bracketed paste
		"\x1b[I", "\x1b[O",               // focus in, out
		"日本", "Z",
	}
	run := func(sc interface {
		PollEvent() tcell.Event
		Fini()
	}, tty *fakeTty) []string {
		done := make(chan []string, 1)
		go func() { done <- events(t, sc) }()
		for _, c := range chunks {
			if _, err := tty.inW.Write([]byte(c)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond) // separate reads, as typing makes them (not a timing)
		}
		evs := <-done
		sc.Fini()
		return evs
	}
	tcTty := newFakeTty(40, 10)
	tsc, err := tcell.NewTerminfoScreenFromTtyTerminfo(tcTty, ti)
	if err != nil {
		t.Fatal(err)
	}
	if err := tsc.Init(); err != nil {
		t.Fatal(err)
	}
	tsc.EnableMouse()
	tsc.EnablePaste()
	want := run(tsc, tcTty)

	ourTty := newFakeTty(40, 10)
	ours := viewterm.New(ourTty, ti, viewterm.Charset(os.Getenv))
	if err := ours.Init(); err != nil {
		t.Fatal(err)
	}
	got := run(ours, ourTty)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events differ\n tcell:\n  %s\n ours:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
	}
	if len(want) < len(chunks)-3 {
		t.Fatalf("tcell reported only %d events: %q", len(want), want)
	}
}

// A resize is reported once, with the new size; the size at Init is not reported as a resize.
func TestResizeReported(t *testing.T) {
	sc, tty := started(t, "xterm-256color", 30, 8, "UTF-8")
	tty.setSize(50, 12)
	if w, h := sc.Size(); w != 50 || h != 12 {
		t.Fatalf("Size %dx%d after the resize", w, h)
	}
	tty.setSize(50, 12) // told again, same size
	tty.inW.Write([]byte("Z"))
	var got []string
	for {
		d := describe(sc.PollEvent())
		got = append(got, d)
		if strings.HasPrefix(d, "key") {
			break
		}
	}
	if strings.Join(got, ", ") != "resize 50x12, key 256 'Z' 0" {
		t.Fatalf("events %q, want one resize to 50x12 and the key", got)
	}
}

// The terminal failing to read is reported, once, as an error: the Mirror drops the view.
func TestReadErrorReported(t *testing.T) {
	sc, tty := started(t, "xterm-256color", 30, 8, "UTF-8")
	tty.inW.CloseWithError(fmt.Errorf("the terminal went away"))
	if d := describe(sc.PollEvent()); d != "error" {
		t.Fatalf("got %s, want an error", d)
	}
}
