package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// No CPU when idle: once a shell pane sits quiet, tickmux's own processes (the server, its
// guardian and the view) are all asleep, with no timer of their own waking them. The server
// returns its free heap after 5 to 10 s of quiet and then stops that timer too (memtrim.go), so
// the count starts after 12 s. The status bar's clock wakes the UI once a minute, so the window
// never spans the first seconds of a minute. Then keys, a paste, a resize and quit go through the
// real key path after the quiet spell, and every process ends.
func TestEndToEndIdleTickmuxSleeps(t *testing.T) {
	r := shellRig(t)
	time.Sleep(12 * time.Second)
	for s := time.Now().Second(); s < 2 || s > 54; s = time.Now().Second() {
		time.Sleep(time.Second)
	}
	ours := r.ownProcesses()
	if len(ours) < 3 {
		t.Fatalf("want the server, the guardian and the view, found %v", ours)
	}
	before := contextSwitches(t, ours)
	time.Sleep(4 * time.Second)
	after := contextSwitches(t, ours)
	for _, pid := range ours {
		if d := after[pid] - before[pid]; d != 0 {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			t.Errorf("%q (pid %d) woke %d times in 4 s of quiet", bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), pid, d)
		}
	}
	r.typeLine("echo after-quiet-$((5*5))", "after-quiet-25")
	r.tmux("set-buffer", "-b", "p", "echo pasted-$((2*3))")
	r.tmux("paste-buffer", "-p", "-b", "p", "-t", "e2e")
	r.keys("Enter")
	r.waitFor("pasted-6")
	wide := r.paneCols("wide")
	r.tmux("resize-window", "-t", "e2e", "-x", "120", "-y", "30")
	r.waitUntil("e2e", "show the status bar on the 30th line", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return len(lines) == 30 && strings.Contains(lines[29], "C-b ? help")
	})
	if narrow := r.paneCols("narrow"); narrow >= wide {
		t.Errorf("the shell's terminal is %d columns after the window shrank, %d before", narrow, wide)
	}
	r.keys("C-b", "Q")
	r.waitFor("quit tickmux")
	r.keys("y")
	r.waitAllEnded(10*time.Second, "quit after a quiet spell")
}

// paneCols is the width of the focused shell pane's terminal, as the program in it reads it.
func (r *tmuxRig) paneCols(tag string) int {
	r.t.Helper()
	rx := regexp.MustCompile(tag + `-cols=([0-9]+)=`)
	r.keys("echo "+tag+"-cols=$(tput cols)=", "Enter")
	s := r.waitUntil("e2e", "show the width "+tag, rx.MatchString)
	n, _ := strconv.Atoi(rx.FindStringSubmatch(s)[1])
	return n
}

// ownProcesses lists the rig's live processes that run tickmux's binary (server, guardian, view).
func (r *tmuxRig) ownProcesses() []int {
	var pids []int
	for _, pid := range r.launched() {
		argv, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if self, _, _ := bytes.Cut(argv, []byte{0}); string(self) == r.self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// contextSwitches sums the voluntary and involuntary context switches of every thread of each pid.
func contextSwitches(t *testing.T, pids []int) map[int]int {
	t.Helper()
	out := map[int]int{}
	for _, pid := range pids {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
		if err != nil || len(tasks) == 0 {
			t.Fatalf("process %d is gone", pid)
		}
		for _, f := range tasks {
			status, _ := os.ReadFile(f)
			for _, line := range bytes.Split(status, []byte("\n")) {
				if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.HasSuffix(name, []byte("ctxt_switches")) {
					n, _ := strconv.Atoi(string(bytes.TrimSpace(value)))
					out[pid] += n
				}
			}
		}
	}
	return out
}
