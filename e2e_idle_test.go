package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// No CPU when idle: once a shell pane sits quiet, tickmux's own processes (the server, its
// guardian and the view) are all asleep, with no timer of their own waking them. The server
// returns its free heap after 5 to 10 s of quiet and then stops that timer too (memtrim.go), so
// the count starts after 12 s. The status bar's clock wakes the UI once a minute, so the window
// never spans a minute boundary.
func TestEndToEndIdleTickmuxSleeps(t *testing.T) {
	r := shellRig(t)
	time.Sleep(12 * time.Second)
	if s := time.Now().Second(); s > 52 {
		time.Sleep(time.Duration(62-s) * time.Second)
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
