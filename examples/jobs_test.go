package examples

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick/wire"
)

func findJob(st jobsState, id int64) *jobView {
	for i := range st.Jobs {
		if st.Jobs[i].ID == id {
			return &st.Jobs[i]
		}
	}
	return nil
}

// TestJobsRunAndFinish: run returns at once; the update when the job ends carries its exit code
// and the tail of its output; output reads it all.
func TestJobsRunAndFinish(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := startExample(t, dir, "jobs")
	var started jobView
	c.mustCall("run", map[string]string{"command": "pwd; echo to stderr >&2; printf 'no newline'; exit 3", "dir": "sub"}, &started)
	if started.ID != 1 || started.Status != "running" || started.By != "agent" {
		t.Fatalf("run: %+v", started)
	}
	var st jobsState
	c.waitUpdate("job 1 ends", &st, func() bool { j := findJob(st, 1); return j != nil && j.Status != "running" })
	j := findJob(st, 1)
	if j.Status != "exited" || j.ExitCode == nil || *j.ExitCode != 3 || j.Lines != 3 || st.Running != 0 || st.Finished != 1 {
		t.Fatalf("job 1 after exit 3: %+v", j)
	}
	if want := []string{filepath.Join(dir, "sub"), "to stderr", "no newline"}; strings.Join(j.Tail, "|") != strings.Join(want, "|") {
		t.Fatalf("tail %q, want %q", j.Tail, want)
	}
	var out jobOutput
	c.mustCall("output", map[string]any{"id": 1, "from": 2}, &out)
	if len(out.Output) != 2 || out.Output[0] != (outputLine{N: 2, Text: "to stderr"}) {
		t.Fatalf("output from line 2: %+v", out.Output)
	}

	updates := len(c.updates)
	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{"run", map[string]any{"command": "true", "dir": "no-such-dir"}},
		{"stop", map[string]any{"id": 1}}, // not running
		{"stop", map[string]any{"id": 7}},
		{"output", map[string]any{"id": 7}},
	} {
		if f := c.call(bad.tool, bad.args); f.Error == nil || f.Error.Code != wire.CodeInvalidParams {
			t.Fatalf("%s %v: %s, want -32602", bad.tool, bad.args, f)
		}
	}
	if len(c.updates) != updates {
		t.Fatal("a refused call changed the state")
	}
}

// TestJobsStop: stop ends the whole process group; the update says who stopped it.
func TestJobsStop(t *testing.T) {
	c := startExample(t, "", "jobs")
	c.mustCall("run", map[string]string{"command": "sleep 300 & sleep 300; echo never"}, nil)
	c.mustCall("stop", map[string]int{"id": 1}, nil)
	var st jobsState
	c.waitUpdate("job 1 killed", &st, func() bool { j := findJob(st, 1); return j != nil && j.Status != "running" })
	if j := findJob(st, 1); j.Status != "killed" || j.Signal != "SIGTERM" || j.StopBy != "agent" || j.ExitCode != nil {
		t.Fatalf("job after stop: %+v", j)
	}
}

// TestJobsEndWithTheTick: when the Tick exits (EOF here), its jobs are stopped with it.
func TestJobsEndWithTheTick(t *testing.T) {
	c := startExample(t, "", "jobs")
	c.mustCall("run", map[string]string{"command": "echo $$; exec sleep 300"}, nil)
	var out jobOutput
	for len(out.Output) == 0 { // the job prints its pid first; read until it has
		c.mustCall("output", map[string]int{"id": 1}, &out)
	}
	pid, err := strconv.Atoi(out.Output[0].Text)
	if err != nil {
		t.Fatal(err)
	}
	c.stdin.Close()
	select {
	case <-c.waited:
	case <-time.After(hangGuard):
		t.Fatal("the Tick did not exit at EOF")
	}
	c.waited <- nil // for Cleanup
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return // gone (and reaped by whoever inherited it)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job's process %d outlived the Tick", pid)
		}
	}
}

// TestJobsScreen: the person starts a command from the prompt and sees the job and its output.
func TestJobsScreen(t *testing.T) {
	t.Parallel()
	r, err := newJobRunner(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	r.key(key('n'))
	for _, ch := range "echo hi; echo there; exit 2" {
		r.key(key(ch))
	}
	r.key(special(tcell.KeyEnter))
	r.mu.Lock()
	j := r.find(1)
	r.mu.Unlock()
	if j == nil {
		t.Fatalf("no job after Enter (status %q)", r.status)
	}
	<-j.done
	want := picture(`
 Jobs                             0 running, 1 finished
 #1   exit 2            person echo hi; echo there; exit


── #1  echo hi; echo there; exit 2  (2 lines) ──────────
 hi
 there


 n new   k stop   r again   ↑↓ select   PgUp PgDn scrol
`)
	if got := render(t, 56, 10, r.draw); got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
}
