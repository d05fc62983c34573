package mcptask

import (
	"encoding/json"
	"sync"
	"time"
)

// Table holds the tasks one bridge process made or was asked about, by task id. A working task
// stays until it ends (whoever runs it ends it at its TTL, SEP-2663 "Task Lifetime"); an ended
// one until its TTL from creation has passed, and at least linger after it ended, so a client
// that polls at the last moment still gets the outcome. At most maxTasks: past that the task
// that ended first is dropped. Safe for concurrent use.
type Table struct {
	ttl, poll time.Duration
	now       func() time.Time

	mu    sync.Mutex
	tasks map[string]*entry
}

type entry struct {
	t                DetailedTask
	created, updated time.Time
}

// maxTasks bounds a table: the bridge's kept calls are bounded per process (64) by the tickmux
// server, so this is only reached by tasks/get naming many ended calls.
const maxTasks = 1024

// linger is how long an ended task is kept at least, whatever its TTL.
const linger = 5 * time.Minute

// NewTable makes a table whose tasks live ttl from their creation and tell clients to poll
// every poll.
func NewTable(ttl, poll time.Duration) *Table {
	return &Table{ttl: ttl, poll: poll, now: time.Now, tasks: map[string]*entry{}}
}

// TTL is how long a task lives from its creation.
func (tb *Table) TTL() time.Duration { return tb.ttl }

// Start records a working task, or returns the one id already names (and false).
func (tb *Table) Start(id, message string) (Task, bool) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if e := tb.tasks[id]; e != nil {
		return tb.view(e).Task, false
	}
	tb.prune()
	now := tb.now()
	e := &entry{created: now, updated: now, t: DetailedTask{Task: Task{TaskID: id, Status: StatusWorking, StatusMessage: message}}}
	tb.tasks[id] = e
	return tb.view(e).Task, true
}

// Get returns the task named id with its outcome, if the table holds it.
func (tb *Table) Get(id string) (DetailedTask, bool) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.prune()
	e := tb.tasks[id]
	if e == nil {
		return DetailedTask{}, false
	}
	return tb.view(e), true
}

// End ends a working task: completed with result (a CallToolResult), failed with rpcErr, or
// cancelled. It returns the ended task and true, or false when id names no working task (an
// ended task keeps its first end).
func (tb *Table) End(id string, status Status, message string, result json.RawMessage, rpcErr *Error) (DetailedTask, bool) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	e := tb.tasks[id]
	if e == nil || e.t.Status.Terminal() {
		return DetailedTask{}, false
	}
	e.t.Status, e.t.StatusMessage, e.t.Result, e.t.Error, e.updated = status, message, result, rpcErr, tb.now()
	return tb.view(e), true
}

// view is e as the wire gives it. Called with tb.mu held.
func (tb *Table) view(e *entry) DetailedTask {
	t := e.t
	t.CreatedAt, t.LastUpdatedAt = Timestamp(e.created), Timestamp(e.updated)
	t.TTLMs = tb.lifetime(e).Milliseconds()
	t.PollIntervalMs = tb.poll.Milliseconds()
	return t
}

// lifetime is how long after its creation e is kept: its TTL, and linger past its end.
func (tb *Table) lifetime(e *entry) time.Duration {
	if e.t.Status.Terminal() {
		return max(tb.ttl, e.updated.Sub(e.created)+linger)
	}
	return tb.ttl
}

// prune drops the ended tasks past their lifetime, and the one that ended first while the
// table is full. Called with tb.mu held.
func (tb *Table) prune() {
	now := tb.now()
	var oldest string
	for id, e := range tb.tasks {
		if !e.t.Status.Terminal() {
			continue
		}
		if now.Sub(e.created) > tb.lifetime(e) {
			delete(tb.tasks, id)
			continue
		}
		if oldest == "" || e.updated.Before(tb.tasks[oldest].updated) {
			oldest = id
		}
	}
	if len(tb.tasks) >= maxTasks && oldest != "" {
		delete(tb.tasks, oldest)
	}
}
