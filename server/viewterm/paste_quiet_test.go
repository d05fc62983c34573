package viewterm_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/server/viewterm"
)

// spec: issue 38 item 6. A paste whose end never comes (ESC[200~ and text, then nothing) ends
// once it has had no byte for the bound, as if its end marker had come: its text so far (a
// marker's start cut at its end included) is paste text, and the keys typed after it, the prefix
// first, are keys again.
func TestPasteWithoutEndEndsWhenQuiet(t *testing.T) {
	defer viewterm.SetPasteQuiet(50 * time.Millisecond)()
	sc, tty := started(t, "xterm-256color", 40, 10, "UTF-8")
	if _, err := tty.inW.Write([]byte("a\x1b[200~echo hi\n\x1b[20")); err != nil {
		t.Fatal(err)
	}
	var evs []string
	for {
		ev := sc.PollEvent() // the hang guard: the test's own timeout
		if p, ok := ev.(*viewterm.EventPasteText); ok {
			if last := len(evs) - 1; last >= 0 && strings.HasPrefix(evs[last], "text ") {
				evs[last] += string(p.PastedBytes())
			} else {
				evs = append(evs, "text "+string(p.PastedBytes()))
			}
			continue
		}
		if _, ok := ev.(*tcell.EventResize); ok {
			continue
		}
		evs = append(evs, describe(ev))
		if pe, ok := ev.(*tcell.EventPaste); ok && !pe.Start() {
			// Ended by the bound: nothing was typed after the paste's text yet.
			if _, err := tty.inW.Write([]byte("\x02Z")); err != nil {
				t.Fatal(err)
			}
		}
		if evs[len(evs)-1] == "key 256 'Z' 0" {
			break
		}
	}
	want := []string{"key 256 'a' 0", "paste true", "text echo hi\n\x1b[20", "paste false",
		"key 66 'b' 2", "key 256 'Z' 0"} // C-b, the prefix
	if strings.Join(evs, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", evs, want)
	}
}

// A paste that keeps coming, however slowly within the bound, is not cut: only a pause longer
// than the bound ends it.
func TestPasteWithPausesNotCut(t *testing.T) {
	defer viewterm.SetPasteQuiet(time.Hour)()
	sc, tty := started(t, "xterm-256color", 40, 10, "UTF-8")
	go func() { // owner: the test; ends once written
		for _, r := range []string{"\x1b[200~x", "\x02y", "\x1b[201~Z"} {
			tty.inW.Write([]byte(r))
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var evs []string
	for {
		ev := sc.PollEvent()
		if p, ok := ev.(*viewterm.EventPasteText); ok {
			evs = append(evs, fmt.Sprintf("text %q", p.PastedBytes()))
			continue
		}
		if _, ok := ev.(*tcell.EventResize); ok {
			continue
		}
		evs = append(evs, describe(ev))
		if evs[len(evs)-1] == "key 256 'Z' 0" {
			break
		}
	}
	if want := []string{"paste true", `text "x"`, `text "\x02y"`, "paste false", "key 256 'Z' 0"}; strings.Join(evs, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", evs, want)
	}
}
