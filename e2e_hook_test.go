package main

// End-to-end: Claude Code's permission hook run from inside a pane, as a fake agent, and answered
// with the card's keys in the real TUI (tmux send-keys).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEndToEndClaudeCodeHookInAPane: a fake agent in a shell pane pipes a recorded
// PermissionRequest input into `tickmux hook claude-code`; the card names the pane and shows the
// whole command; y prints the allow, n the deny, and a hook whose own timeout passes prints
// nothing and takes its card away.
func TestEndToEndClaudeCodeHookInAPane(t *testing.T) {
	t.Parallel()
	r := shellRig(t)
	input, err := os.ReadFile("agent/testdata/hooks/claude-bash.json")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(r.dir, "in.json")
	if err := os.WriteFile(in, input, 0o600); err != nil {
		t.Fatal(err)
	}
	// The fake agent: runs the hook as Claude Code does (its stdin the input, its stdout read as
	// the decision) and says when the hook has ended.
	agent := filepath.Join(r.dir, "agent.sh")
	script := fmt.Sprintf("#!/bin/sh\n%q hook claude-code \"$@\" < %q > %q/out.$N 2> %q/err.$N\necho \"hook-$N-exited-$?\"\n", r.self, in, r.dir, r.dir)
	if err := os.WriteFile(agent, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(n int, args string) {
		r.keys(fmt.Sprintf("N=%d %s %s", n, agent, args), "Enter")
	}
	output := func(n int) string {
		b, _ := os.ReadFile(filepath.Join(r.dir, fmt.Sprintf("out.%d", n)))
		return string(b)
	}

	run(1, "")
	s := r.waitFor("Claude Code wants to run its tool Bash in shell:1")
	if !strings.Contains(s, `rm -rf build &&⟨5 spaces⟩echo "done\u200b"`) {
		t.Fatalf("the card does not show the whole command:\n%s", s)
	}
	r.prefix("a", "allow once")
	r.keys("y")
	r.waitFor("hook-1-exited-0")
	if got := output(1); got != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`+"\n" {
		t.Fatalf("y: the hook printed %q", got)
	}

	run(2, "")
	r.waitFor("⚑ 1 pending")
	r.prefix("a", "allow once")
	r.keys("n")
	r.waitFor("hook-2-exited-0")
	if got := output(2); got != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"denied by the person in tickmux"}}}`+"\n" {
		t.Fatalf("n: the hook printed %q", got)
	}

	// Silence: nobody answers before the hook's own timeout; nothing is printed, the card goes.
	run(3, "--timeout 1s")
	r.waitFor("hook-3-exited-0")
	r.waitGone("e2e", "pending")
	if got := output(3); got != "" {
		t.Fatalf("silence: the hook printed %q", got)
	}
}
