package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/host"
)

// A real server with sandbox = "all": its first shell runs sandboxed and reaches the server only
// through the agent socket, where `tickmux ls` works and a view's attach is refused.
func TestEndToEndSandboxedPane(t *testing.T) {
	if _, err := host.SandboxAvailable(); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	dir := t.TempDir()
	socket := filepath.Join(dir, "s.sock")
	if err := os.MkdirAll(filepath.Join(dir, "tickmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tickmux", "config.toml"), []byte("sandbox = \"all\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "checks.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
echo "ps: $(ps -e -o comm= | tr '\n' ' ')"
echo "socket: $TICKMUX_SOCKET sandbox=$TICKMUX_SANDBOX"
echo "tmp: $(ls -A /tmp/tickmux)"
tickmux ls
tickmux attach; echo "attach-exit: $?"
echo checks-done
exec sleep 300
`), 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	cmd := exec.Command(self, "server", "--socket", socket)
	cmd.Env = append(os.Environ(), envAsMain+"=1", "XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir, "HOME="+dir, "SHELL="+script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // owner: the test; returns when the server exits
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	ctl := func(args ...string) string {
		c := exec.Command(self, append(args, "--socket", socket)...)
		c.Env = append(os.Environ(), envAsMain+"=1")
		out, _ := c.CombinedOutput()
		return string(out)
	}
	var screen string
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(screen, "checks-done") {
		if time.Now().After(deadline) {
			t.Fatalf("the sandboxed shell's checks never finished; its screen:\n%s", screen)
		}
		time.Sleep(100 * time.Millisecond)
		screen = ctl("screen", "shell:1")
	}
	t.Logf("the sandboxed pane's screen:\n%s", screen)
	for _, want := range []string{
		"ps: bwrap checks.sh checks.sh ps tr\n", // the subshell of $(...) and the pipe's tr
		"socket: " + host.SandboxSocketPath + " sandbox=1",
		"tmp: agent.sock",
		"ready,sandboxed",
		"view/attach is not served on the agent socket",
		"attach-exit: 1",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the sandboxed pane's screen lacks %q", want)
		}
	}
	// From outside, on the agent socket itself: a view's attach and kill-server are refused.
	for _, method := range []string{"view/attach", "view/kill-server"} {
		nc, err := net.Dial("unix", agent.AgentSocketPath(socket))
		if err != nil {
			t.Fatal(err)
		}
		nc.Write([]byte(`{"id":1,"method":"` + method + `","params":{"term":"xterm"}}` + "\n"))
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, _ := bufio.NewReader(nc).ReadString('\n')
		nc.Close()
		if !strings.Contains(line, `"error"`) || !strings.Contains(line, "is not served on the agent socket") {
			t.Errorf("%s on the agent socket answered %q, want a refusal", method, line)
		}
	}
	if out := ctl("ls"); !strings.Contains(out, "shell:1") {
		t.Fatalf("the server is gone after the refusals: %s", out)
	}
}
