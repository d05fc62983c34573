package host

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"
)

// waitAgentState polls session id's state until ok says yes; the deadline only guards a hang.
func waitAgentState(t *testing.T, b *AgentBoard, id string, ok func(AgentSession) bool) AgentSession {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, _ := b.Get(id)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s stayed %+v", id, s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func startSleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// An agent whose process exits without its SessionEnd (killed, crashed, or Codex leaving its
// session to a background app-server) is ended on the board when the kernel says the process
// exited; a session that ended by its event, or moved to another process, is no longer watched
// for the old one; Close lets every watch go (goleak checks no goroutine is left).
func TestAgentSessionEndsWhenItsProcessExits(t *testing.T) {
	b := newAgentBoard(func(string) {})
	defer b.Close()

	agent := startSleeper(t)
	b.Set(AgentSession{Agent: "Codex", Session: "s1", Pane: "shell:1", PID: agent.Process.Pid}, AgentWorking, time.Now())
	// An event whose hook found no pane keeps the process known.
	b.Set(AgentSession{Agent: "Codex", Session: "s1", Pane: "shell:1", Detail: "Bash"}, AgentWorking, time.Now())
	if s, _ := b.Get("s1"); s.PID != agent.Process.Pid || s.State != AgentWorking {
		t.Fatalf("before the exit: %+v", s)
	}
	agent.Process.Kill()
	agent.Wait()
	s := waitAgentState(t, b, "s1", func(s AgentSession) bool { return s.State == AgentEnded })
	if s.Detail != "its program exited" || s.Pane != "shell:1" {
		t.Fatalf("after the exit: %+v", s)
	}

	// Moved to another process: the first one's exit ends nothing.
	first, second := startSleeper(t), startSleeper(t)
	b.Set(AgentSession{Agent: "Claude Code", Session: "s2", Pane: "shell:2", PID: first.Process.Pid}, AgentWorking, time.Now())
	b.Set(AgentSession{Agent: "Claude Code", Session: "s2", Pane: "shell:2", PID: second.Process.Pid}, AgentDone, time.Now())
	first.Process.Kill()
	first.Wait()
	// Ended by its own event: its process is let go, and the session's state is the event's.
	b.Set(AgentSession{Agent: "Claude Code", Session: "s3", Pane: "shell:3", PID: second.Process.Pid}, AgentWorking, time.Now())
	b.Set(AgentSession{Agent: "Claude Code", Session: "s3", Pane: "shell:3"}, AgentEnded, time.Now())
	b.mu.Lock()
	_, watched3 := b.watches["s3"]
	w2 := b.watches["s2"]
	b.mu.Unlock()
	if watched3 || w2 == nil || w2.pid != second.Process.Pid {
		t.Fatalf("watches: s3 %v, s2 %+v", watched3, w2)
	}
	second.Process.Kill()
	second.Wait()
	waitAgentState(t, b, "s2", func(s AgentSession) bool { return s.State == AgentEnded })
	if s, _ := b.Get("s3"); s.Detail != "" {
		t.Fatalf("s3 ended by its event, then: %+v", s)
	}

	// A watch still waiting when the board closes.
	live := startSleeper(t)
	b.Set(AgentSession{Agent: "Codex", Session: "s4", Pane: "shell:4", PID: live.Process.Pid}, AgentWorking, time.Now())
	b.Close()
	if s, _ := b.Get("s4"); s.State != AgentWorking {
		t.Fatalf("closing the board changed s4: %+v", s)
	}
}

// A session ended by its process's exit loses the person's "again this session" grants, as one
// ended by its SessionEnd does: a resumed session of the same id asks again.
func TestAgentExitForgetsTheSessionsGrants(t *testing.T) {
	q := NewApprovalQueue(nil)
	h := New(Config{Approver: q})
	defer h.Close()
	agent := startSleeper(t)
	h.Agents().Set(AgentSession{Agent: "Codex", Session: "s1", Pane: "shell:1", PID: agent.Process.Pid}, AgentWaiting, time.Now())
	req := ApprovalRequest{Action: ActionAgent, Client: "Codex", Instance: "shell:1",
		Agent: &AgentCall{Agent: "Codex", Session: "s1", Tool: "Bash", Input: json.RawMessage(`{"command":"make"}`)}}
	done := make(chan error, 1)
	go func() { done <- q.Approve(context.Background(), req) }()
	for len(q.Pending()) == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := q.Answer(q.Pending()[0].ID, AllowRevision); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || !q.Granted(req) {
		t.Fatalf("the grant was not made: %v", err)
	}
	agent.Process.Kill()
	agent.Wait()
	waitAgentState(t, h.Agents(), "s1", func(s AgentSession) bool { return s.State == AgentEnded })
	for deadline := time.Now().Add(10 * time.Second); q.Granted(req); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the session's grant outlived its program")
		}
	}
}
