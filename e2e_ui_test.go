package main

// End-to-end checks of keys a person types in a real terminal (tmux send-keys into the real
// binary): what reaches a pane's program, scroll-mode search, tabs, and closing panes.

import (
	"strings"
	"testing"
	"time"
)

// shellRig starts tickmux with one shell pane and waits for its prompt.
func shellRig(t *testing.T) *tmuxRig {
	t.Helper()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	r.keys("echo shell-up-$((6*7))", "Enter")
	r.waitFor("shell-up-42")
	return r
}

func TestEndToEndCtrlGReachesTheProgram(t *testing.T) {
	r := shellRig(t)
	r.keys("cat -v", "Enter")
	time.Sleep(200 * time.Millisecond)
	r.keys("C-g", "Enter")
	s := r.waitFor("^G")
	if strings.Contains(s, "LOCKED") {
		t.Fatalf("a bare C-g locked tickmux:\n%s", s)
	}
}

func TestEndToEndScrollSearch(t *testing.T) {
	r := shellRig(t)
	r.keys("seq -f 'line %g' 2000; echo all-printed", "Enter")
	r.waitFor("all-printed")
	r.keys("C-b", "[")
	r.waitFor("SCROLL")
	r.keys("/")
	r.keys("-l", "line 1234")
	r.waitFor("(search up) line 1234")
	r.keys("Enter")
	s := r.waitFor("line 1234")
	if !strings.Contains(s, "SCROLL") || strings.Contains(s, "copied") {
		t.Fatalf("Enter after the query did not search:\n%s", s)
	}
	r.keys("/")
	r.keys("-l", "line 12")
	r.keys("Enter")
	r.waitFor("line 1233")
	r.keys("n")
	r.keys("n")
	// The match is highlighted on the cursor's line; the status bar still says SCROLL.
	s = r.waitFor("line 1231")
	if !strings.Contains(s, "SCROLL") {
		t.Fatalf("n left scroll mode:\n%s", s)
	}
	r.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(r.screen(), "SCROLL") {
		if time.Now().After(deadline) {
			t.Fatalf("q did not leave scroll mode:\n%s", r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
