package server

import (
	"os/exec"
	"testing"
	"time"
)

// kill-server learns that the server exited from a pidfd, not by polling: exitedWithin is true
// once the process has exited (a zombie counts: it runs no more), false while it runs.
func TestExitedWithin(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	if exitedWithin(cmd.Process.Pid, 50*time.Millisecond) {
		t.Fatal("a running process was reported as exited")
	}
	go func() { // owner: the test; ends at once
		time.Sleep(100 * time.Millisecond)
		cmd.Process.Kill()
	}()
	if !exitedWithin(cmd.Process.Pid, 20*time.Second) {
		t.Fatal("the process's exit was not seen")
	}
}
