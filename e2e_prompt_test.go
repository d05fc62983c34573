package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmux's commands at the : prompt, typed through tmux's real key path (issue 42 item 17).
func TestEndToEndPromptTmuxCommands(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	r.keys("C-b", ":")
	r.waitFor("command:")
	r.keys("split-window -h", "Enter")
	r.waitFor("shell:2")
	r.keys("C-b", ":")
	r.waitFor("command:")
	r.keys("rename-window build", "Enter")
	r.keys("C-b", ":")
	r.waitFor("command:")
	r.keys("new-window -n logs", "Enter")
	r.waitFor("0:build 1:logs*") // the tab list shows from two tabs on
	r.keys("C-b", "0")
	r.keys("C-b", ":")
	r.waitFor("command:")
	r.keys("resize-pane -Z", "Enter")
	r.waitFor("Z zoomed")
	r.keys("C-b", ":")
	r.waitFor("command:")
	r.keys("select-layout sideways", "Enter")
	r.waitFor("select-layout sideways: use even-horizontal")
	r.keys("Escape")
}

// The restore's question takes y or n only: a paste while it shows goes nowhere (not into the
// shell the start opened, nor as an answer).
func TestEndToEndPasteWhileTheRestoreAsks(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	r.waitFor("$ ")
	time.Sleep(2500 * time.Millisecond) // a snapshot is written at most every 2 s
	for _, pid := range r.launched() {
		if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); !strings.HasPrefix(string(comm), "tmux") {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	r.waitAllEnded(10*time.Second, "the kill")
	os.Remove(r.socket)
	r.startIn("again", "")
	r.waitIn("again", "restore the session of ")
	buf := filepath.Join(r.dir, "buf")
	if err := os.WriteFile(buf, []byte("echo pasted-$((2+3))\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.tmux("load-buffer", "-b", "p", buf)
	r.tmux("paste-buffer", "-p", "-r", "-b", "p", "-t", "again")
	r.keysTo("again", "n")
	r.waitIn("again", "not restored")
	r.keysTo("again", "echo typed-$((3+4))", "Enter")
	s := r.waitIn("again", "typed-7")
	if strings.Contains(s, "pasted-5") {
		t.Errorf("a paste while the restore asked reached the shell:\n%s", s)
	}
}
