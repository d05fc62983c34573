package mcptask

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clocked is a table whose clock the test moves.
func clocked(ttl time.Duration) (*Table, *time.Time) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	tb := NewTable(ttl, 500*time.Millisecond)
	tb.now = func() time.Time { return now }
	return tb, &now
}

// SEP-2663 "Task Lifetime": a working task stays however long it works; an ended one until its
// TTL from creation, and at least linger after its end; ttlMs says so.
func TestTableLifetime(t *testing.T) {
	tb, now := clocked(time.Hour)
	task, made := tb.Start("call:kept-1", "waiting for the person's approval on card 1 (hosted:1 set)")
	if !made || task.Status != StatusWorking || task.TTLMs != 3600000 || task.PollIntervalMs != 500 ||
		task.CreatedAt != "2026-12-07T12:00:00.000Z" || task.LastUpdatedAt != task.CreatedAt {
		t.Fatalf("Start: %+v", task)
	}
	if again, made := tb.Start("call:kept-1", "other"); made || again.StatusMessage != task.StatusMessage {
		t.Errorf("a second Start replaced the task: %+v", again)
	}
	*now = now.Add(2 * time.Hour) // working past its TTL: still held (its owner ends it)
	if _, ok := tb.Get("call:kept-1"); !ok {
		t.Fatal("a working task was dropped")
	}
	ended, ok := tb.End("call:kept-1", StatusCompleted, "done", json.RawMessage(`{"content":[]}`), nil)
	if !ok || ended.Status != StatusCompleted || ended.TTLMs != (2*time.Hour+linger).Milliseconds() || ended.LastUpdatedAt != "2026-12-07T14:00:00.000Z" {
		t.Fatalf("End: %+v", ended)
	}
	if _, ok := tb.End("call:kept-1", StatusFailed, "again", nil, &Error{Code: -32603, Message: "x"}); ok {
		t.Error("an ended task ended again")
	}
	*now = now.Add(linger - time.Second)
	if got, ok := tb.Get("call:kept-1"); !ok || got.Status != StatusCompleted || string(got.Result) != `{"content":[]}` {
		t.Fatalf("within linger: %+v %v", got, ok)
	}
	*now = now.Add(2 * time.Second)
	if _, ok := tb.Get("call:kept-1"); ok {
		t.Error("an ended task outlived its lifetime")
	}
}

// A full table drops the task that ended first, never a working one.
func TestTableBound(t *testing.T) {
	tb, now := clocked(time.Hour)
	tb.Start("working", "")
	for i := range maxTasks - 1 {
		id := "t" + strconv.Itoa(i)
		tb.Start(id, "")
		tb.End(id, StatusCancelled, "", nil, nil)
		*now = now.Add(time.Millisecond)
	}
	tb.Start("one more", "")
	if _, ok := tb.Get("working"); !ok {
		t.Error("the full table dropped a working task")
	}
	if n := len(tb.tasks); n > maxTasks {
		t.Errorf("%d tasks, want at most %d", n, maxTasks)
	}
}

// The handle and tasks/get's answer are flat, with the field names Claude Code 2.1.328 reads.
func TestWireShapes(t *testing.T) {
	tk := Task{TaskID: "call:kept-1", Status: StatusWorking, StatusMessage: "m", CreatedAt: "c", LastUpdatedAt: "u", TTLMs: 1000, PollIntervalMs: 500}
	b, _ := json.Marshal(NewCreateTaskResult(tk))
	if want := `{"resultType":"task","taskId":"call:kept-1","status":"working","statusMessage":"m","createdAt":"c","lastUpdatedAt":"u","ttlMs":1000,"pollIntervalMs":500}`; string(b) != want {
		t.Errorf("handle:\n%s\nwant\n%s", b, want)
	}
	b, _ = json.Marshal(NewGetResult(DetailedTask{Task: tk, Error: &Error{Code: -32603, Message: "lost"}}))
	if !strings.HasPrefix(string(b), `{"resultType":"complete","taskId":"call:kept-1"`) || !strings.HasSuffix(string(b), `"error":{"code":-32603,"message":"lost"}}`) {
		t.Errorf("tasks/get: %s", b)
	}
	if !Declared(&mcp.ClientCapabilities{Extensions: map[string]any{ExtensionID: map[string]any{}}}) || Declared(&mcp.ClientCapabilities{}) || Declared(nil) {
		t.Error("Declared")
	}
}
