package viewterm_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/server/viewterm"
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
// reads, the mouse, a bracketed paste's ends (its text comes as it was sent:
// TestPasteTextAsSent), focus.
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
		"\x1b[<64;2;2M",      // the wheel
		"\x1b[200~\x1b[201~", // a bracketed paste's ends
		"\x1b[I", "\x1b[O",   // focus in, out
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
	// tcell's input processor posts a resize from a goroutine of its own: a key typed after it
	// may come first. Events until both came, then until a second key typed after them.
	tty.inW.Write([]byte("Z"))
	var got []string
	resizes, keys := 0, 0
	for resizes == 0 || keys == 0 {
		d := describe(sc.PollEvent())
		got = append(got, d)
		if strings.HasPrefix(d, "resize") {
			resizes++
		} else if strings.HasPrefix(d, "key") {
			keys++
		}
	}
	tty.inW.Write([]byte("Y"))
	for keys < 2 {
		d := describe(sc.PollEvent())
		got = append(got, d)
		if strings.HasPrefix(d, "key") {
			keys++
		}
	}
	sort.Strings(got)
	if strings.Join(got, ", ") != "key 256 'Y' 0, key 256 'Z' 0, resize 50x12" {
		t.Fatalf("events %q, want one resize to 50x12 and the two keys", got)
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

// A bracketed paste's text reaches the App byte for byte as the terminal sent it, whatever it
// holds (line feeds, tabs, controls, an escape sequence, bytes that are not UTF-8) and wherever
// the reads cut it, markers included; keys around it stay keys, and an Esc key alone at the end
// of a read is not held back for the next.
// Issue 26 item 1, issue 24 item 6.
func TestPasteTextAsSent(t *testing.T) {
	sc, tty := started(t, "xterm-256color", 40, 10, "UTF-8")
	text := "echo hello\necho world\r\n\tx\x03\x1b[A\x1bOP\xff\xfe\x00end"
	reads := []string{
		"a",
		"\x1b[20", "0~" + text[:7], text[7:20], text[20:] + "\x1b[2", "01", "~b",
		"\x1b", // the Esc key, alone: reported before anything else is typed
	}
	got := make(chan tcell.Event, 64)
	go func() { // owner: the test; ends when the terminal is finalized
		for {
			ev := sc.PollEvent()
			if ev == nil {
				close(got)
				return
			}
			got <- ev
		}
	}()
	for _, r := range reads {
		if _, err := tty.inW.Write([]byte(r)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // separate reads (not a timing)
	}
	var evs []string
	var pasted []byte
	for {
		var ev tcell.Event
		select {
		case ev = <-got:
		case <-time.After(20 * time.Second): // a hang guard
			t.Fatalf("no Esc key after %q", evs)
		}
		if p, ok := ev.(*viewterm.EventPasteText); ok {
			pasted = append(pasted, p.PastedBytes()...)
			if len(evs) == 0 || evs[len(evs)-1] != "text" {
				evs = append(evs, "text")
			}
			continue
		}
		evs = append(evs, describe(ev))
		if k, ok := ev.(*tcell.EventKey); ok && k.Key() == tcell.KeyEscape {
			break
		}
	}
	want := []string{"key 256 'a' 0", "paste true", "text", "paste false", "key 256 'b' 0", "key 27 '\\x00' 0"}
	if strings.Join(evs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(evs, "\n  "), strings.Join(want, "\n  "))
	}
	if string(pasted) != text {
		t.Fatalf("pasted %q, want %q", pasted, text)
	}
}

// A paste's start cut right after its ESC (the ESC went on as the Esc key might) is still a paste.
func TestPasteStartCutAfterEsc(t *testing.T) {
	sc, tty := started(t, "xterm-256color", 40, 10, "UTF-8")
	go func() {
		for _, r := range []string{"\x1b", "[200~x\ny", "\x1b[201~Z"} {
			tty.inW.Write([]byte(r))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var evs []string
	for {
		ev := sc.PollEvent()
		if p, ok := ev.(*viewterm.EventPasteText); ok {
			evs = append(evs, fmt.Sprintf("text %q", p.PastedBytes()))
			continue
		}
		evs = append(evs, describe(ev))
		if evs[len(evs)-1] == "key 256 'Z' 0" {
			break
		}
	}
	if want := []string{"paste true", `text "x\ny"`, "paste false", "key 256 'Z' 0"}; strings.Join(evs, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", evs, want)
	}
}
