package host

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A group whose only member has exited but is not reaped yet (a zombie) has ended: where nobody
// reaps orphans, waiting for it would use up every grace (the guardian's after tickmux is gone).
func TestGroupAliveIgnoresZombies(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exec sleep 100")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !groupAlive(pid) {
		t.Fatal("a running group is reported gone")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for state(pid) != "Z" { // not reaped: nobody waits for it yet
		if time.Now().After(deadline) {
			t.Fatalf("the killed process is in state %q, not a zombie", state(pid))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if syscall.Kill(-pid, 0) != nil {
		t.Fatal("the zombie's group cannot be signalled: the test shows nothing")
	}
	if groupAlive(pid) {
		t.Error("a group of one zombie is reported alive")
	}
	cmd.Wait()
	if groupAlive(pid) {
		t.Error("a reaped group is reported alive")
	}
}

// state is the process state letter of pid ("" when it is gone).
func state(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return f[0]
}
