package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Keys first under a flood: keys typed through a real terminal (tmux) into a shell beside 50
// Ticks that each send about 1,000 updates a second reach the shell in order, and no frame goes
// to the view while a key it sent waits in the server's queue: the keys that pile up are all
// taken first, then one frame shows them; printable ASCII typed into the shell goes through a
// typing lane, which the flood leaves open. The server counts it (its log's "keys first:" line,
// written when its UI stops); nothing here is timed.
func TestKeysFirstUnderFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 50 flooding Ticks")
	}
	const ticks, bursts = 50, 8
	r := newTmuxRig(t)
	hub := newFloodHub(t, r.dir, ticks)
	r.env = append(r.env, "PATH="+hub.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	defer func() {
		r.killServer()
		hub.close()
	}()
	hub.start(t, r)

	// A shell beside them takes the focus; zoomed, it fills the view. It says which pane it is,
	// so the keys are known to reach it.
	r.keys("C-b", "c")
	r.waitFor("shell:1")
	r.keys("C-b", "z")
	r.keys("-l", `echo "PANE[$TICKMUX_PANE]"`)
	r.keys("Enter")
	r.waitFor("PANE[shell:1]")

	// Bursts of keys, each one write to the terminal: a command line the shell runs only if its
	// keys arrived whole and in order. Every other burst is printable ASCII alone, which a typing
	// lane takes once the App opened one (the flood's updates leave it open), then Enter. The
	// others hold a character that is not ASCII and end with their Enter, all one write: they
	// take the usual way, through the queue, key by key.
	typed := 0
	for i := 0; i < bursts; i++ {
		word := fmt.Sprintf("KEYS%02dFIRST", i)
		line := "echo " + strings.Repeat(": ", 40) + word + "$((6*7))"
		if i%2 == 0 {
			line = "echo é " + strings.Repeat(": ", 40) + word + "$((6*7))\r"
			r.keys("-l", line)
		} else {
			r.keys("-l", line)
			r.keys("Enter")
			typed++
		}
		typed += utf8.RuneCountInString(line)
		r.waitFor(word + "42")
	}

	r.killServer()
	m := regexp.MustCompile(`keys first: (\d+) keys taken, (\d+) of them with more keys waiting; (\d+) draws and (\d+) updates left to the draw after a waiting key; (\d+) frames shown while a key waited; (\d+) keys typed through a lane`).FindStringSubmatch(r.log())
	if m == nil {
		t.Fatalf("the server did not log what keys first did:\n%s", r.log())
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	taken, behind, draws, updates, shown, laned := n(1), n(2), n(3), n(4), n(5), n(6)
	t.Logf("%d keys typed; the server took %d, %d of them with more keys waiting; %d draws and %d updates left to the draw after a waiting key; %d frames shown while a key waited; %d typed through a lane",
		typed, taken, behind, draws, updates, shown, laned)
	if taken+laned < typed {
		t.Errorf("the server took %d keys and typed %d through a lane, fewer than the %d typed", taken, laned, typed)
	}
	if laned == 0 {
		t.Errorf("no key went through a typing lane: beside %d flooding Ticks every key took the long way", ticks)
	}
	if behind == 0 {
		t.Errorf("no key ever waited behind another: bursts of %d keys beside %d flooding Ticks did not exercise keys first", typed/bursts, ticks)
	}
	if shown != 0 {
		t.Errorf("%d frames went to the view while a key it sent waited in the queue", shown)
	}
}
