package main

// End-to-end attacks on the approval card and on the UI, through the real key path in tmux.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick"
)

// envHugeTick makes the test binary a Tick whose description ("description") or title ("title")
// is 400,000 characters: a valid descriptor (under 512 KiB) that once froze tickmux.
const envHugeTick = "TICKMUX_TEST_HUGE_TICK"

func hugeTick(which string) int {
	desc, title := "A Tick with a huge text.", "Huge"
	if which == "description" {
		desc = strings.Repeat("D", 400_000)
	} else {
		title = strings.Repeat("T", 400_000)
	}
	empty := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	srv, err := tick.New(tick.Tick{Kind: "test.huge", Title: title, Description: desc,
		Tools: []tick.ToolSpec{{Name: "poke", Description: "Poke.", InputSchema: empty, Mutates: true,
			Handler: func(context.Context, json.RawMessage) (any, error) { return nil, nil }}}})
	if err != nil {
		return 1
	}
	if err := srv.Update(map[string]int{"n": 1}); err != nil {
		return 1
	}
	ui := &tick.UI{Draw: func(s tcell.Screen) {
		for i, r := range "HUGETICK" {
			s.SetContent(i, 0, r, nil, tcell.StyleDefault)
		}
	}}
	if err := srv.Run(context.Background(), ui); err != nil {
		return 1
	}
	return 0
}

// The open an agent asks for is padded so that `touch PWNED` lies past the panel's edge: the
// card shows it, and the person's n keeps it from running.
// spec: H-K2
func TestEndToEndPaddedOpenCardShowsAll(t *testing.T) {
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	pwned := filepath.Join(r.dir, "PWNED")
	open := r.cli("open", "--shell", "--", "bash", "-c", "sleep 0"+strings.Repeat(" ", 150)+"; touch "+pwned)
	if err := open.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitFor("wants to open a sandboxed shell") // an agent's open, under the default sandbox = "agents"
	scr := r.prefix("a", "allow once")
	if !strings.Contains(scr, "⟨150 spaces⟩; touch ") || !strings.Contains(scr, "PWNED") {
		t.Fatalf("the card hides the padded part:\n%s", scr)
	}
	r.keys("n")
	done := make(chan error, 1)
	go func() { done <- open.Wait() }() // owner: the test; ends when the verb returns
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the denied open succeeded")
		}
	case <-time.After(30 * time.Second):
		open.Process.Kill()
		t.Fatal("the open verb did not return after the denial")
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the denied command ran")
	}
}

// A Tick's 400,000-character description or title: the UI still answers keys, and SIGTERM ends
// tickmux within 2 s.
func TestEndToEndHugeTickTextThenSIGTERM(t *testing.T) {
	for _, which := range []string{"description", "title"} {
		t.Run(which, func(t *testing.T) {
			r := newTmuxRig(t)
			r.start("--", "env", envHugeTick+"="+which, r.self)
			r.waitFor("HUGETICK")
			r.waitFor("STATE")
			var worst time.Duration
			for i := 0; i < 3; i++ {
				start := time.Now()
				r.prefix("?", "Esc close")
				r.keys("Escape")
				for strings.Contains(r.screen(), "Esc close") {
					time.Sleep(10 * time.Millisecond)
				}
				worst = max(worst, time.Since(start))
			}
			t.Logf("help opened and closed, worst of 3 (tmux round trips included): %v", worst)
			if worst > 5*time.Second { // a generous bound: frozen took tens of seconds a redraw
				t.Fatalf("the UI took %v to answer a key", worst)
			}
			// The server draws the UI (the view only passed it the terminal): it is what must end.
			pid := r.serverPID(r.t)
			start := time.Now()
			if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			for alive(pid) {
				if time.Since(start) > 10*time.Second {
					t.Fatal("the tickmux server still runs 10 s after SIGTERM")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("the tickmux server took %v to end after SIGTERM, want within 2 s", d)
			} else {
				t.Logf("tickmux ended %v after SIGTERM", d)
			}
		})
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return !(i > 0 && len(stat) > i+2 && stat[i+2] == 'Z')
}
