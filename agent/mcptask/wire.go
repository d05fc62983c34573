// Package mcptask is the MCP tasks extension (io.modelcontextprotocol/tasks, SEP-2663, for the
// 2026-07-28 protocol) as tickmux's MCP bridge serves it: the wire shapes and the table of tasks
// one bridge process holds. go-sdk v1.8.0 has no tasks code; agent/mcp_tasks.go plugs this into
// the SDK's extension points (custom methods, receiving middleware). Drop it for the SDK's own
// when a release has one.
//
// Field names follow what the installed client reads, checked against Claude Code 2.1.328's code
// (the pinned testdata/claudecode-2.1.328, and e2e_claude_tasks_test.go runs it): ttlMs and
// pollIntervalMs, where drafts of the SEP said ttlSeconds and pollIntervalMilliseconds.
package mcptask

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID names the extension in capabilities (SEP-2663 "Extension Identifier").
const ExtensionID = "io.modelcontextprotocol/tasks"

// The extension's methods and notification (SEP-2663 "Methods").
const (
	MethodGet          = "tasks/get"
	MethodCancel       = "tasks/cancel"
	MethodUpdate       = "tasks/update"
	NotificationStatus = "notifications/tasks/status"
)

// Status is a task's state (SEP-2663 "Task Status"): working until it ends completed, failed or
// cancelled; input_required is never used here (tickmux asks nothing of the client).
type Status string

const (
	StatusWorking   Status = "working"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// Terminal reports whether s is an end state: the task changes no more.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// Result types (SEP-2663 "Polymorphic Results"; "complete" is the 2026-07-28 base protocol's).
const (
	ResultTypeTask     = "task"
	ResultTypeComplete = "complete"
)

// Task is the Task shape (SEP-2663 "Task"): flat, as a tools/call answer and in tasks/get.
// Timestamps are RFC 3339 (ISO 8601) in UTC; TTLMs is counted from CreatedAt and may grow.
type Task struct {
	TaskID         string `json:"taskId"`
	Status         Status `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// DetailedTask is a Task with its outcome (SEP-2663 "DetailedTask"): Result, the CallToolResult
// the request would have returned, once completed; Error, a JSON-RPC error object, once failed.
type DetailedTask struct {
	Task
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is the JSON-RPC error object of a failed task (SEP-2663 "Failed Tasks").
type Error struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// CreateTaskResult answers a request with a task in lieu of its result (SEP-2663 "Creating
// Tasks"): resultType "task" and the Task, flat.
type CreateTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Task
}

// NewCreateTaskResult is t as the answer to the request that made it.
func NewCreateTaskResult(t Task) *CreateTaskResult {
	return &CreateTaskResult{ResultType: ResultTypeTask, Task: t}
}

// GetParams are tasks/get's (SEP-2663 "Getting Tasks"); CancelParams tasks/cancel's.
type GetParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// CancelParams are tasks/cancel's (SEP-2663 "Cancelling Tasks").
type CancelParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// UpdateParams are tasks/update's (SEP-2663 "Updating Tasks"): input responses for an
// input_required task, which tickmux never makes; the request is acknowledged.
type UpdateParams struct {
	mcp.ParamsBase
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// GetResult answers tasks/get: resultType "complete" and the DetailedTask, flat.
type GetResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	DetailedTask
}

// NewGetResult is t as tasks/get's answer.
func NewGetResult(t DetailedTask) *GetResult {
	return &GetResult{ResultType: ResultTypeComplete, DetailedTask: t}
}

// AckResult acknowledges tasks/cancel and tasks/update (an empty result).
type AckResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// Ack is the acknowledgement.
func Ack() *AckResult { return &AckResult{ResultType: ResultTypeComplete} }

// Declared reports whether a request's client capabilities (its _meta's
// io.modelcontextprotocol/clientCapabilities, else the session's) list the extension
// (SEP-2663 "Capability Negotiation"): only then may the answer be a task.
func Declared(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[ExtensionID]
	return ok
}

// Timestamp writes t as the Task's timestamps are written.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
