package agent

import "encoding/json"

// The agents' permission hooks. Claude Code (2.1.197) and Codex run a command before they ask
// the person to allow a tool; `tickmux hook claude-code|codex` is that command. It passes the
// hook's input to the running tickmux (MethodPermission), which shows a card, and prints the
// person's decision in the form the agent reads. Anything but an allow or a deny the person gave
// prints nothing: the agent then asks on its own prompt (never an allow by silence).

// MethodPermission asks the person about an agent's tool call: PermissionParams →
// PermissionResult; an error when nobody answered (withdrawn, no view, no screen).
const MethodPermission = "agent/permission"

// MethodAgentEvent tells tickmux of an agent's other hook events (session start and end, a
// prompt, a tool, a notification, a stop): AgentEventParams → {}. They set the agent session's
// state on its pane (host.AgentBoard); nothing is decided.
const MethodAgentEvent = "agent/event"

// AgentEventParams carry one hook event's input.
type AgentEventParams struct {
	Agent string          `json:"agent"`
	Input json.RawMessage `json:"input"`
}

// Agents whose hooks tickmux answers (PermissionParams.Agent).
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
)

// ReasonNoView: no view was attached for the whole of the wait, so nobody could answer the card.
const ReasonNoView = "no_view"

// PermissionParams carry one PermissionRequest hook's input.
type PermissionParams struct {
	// Agent is AgentClaudeCode or AgentCodex.
	Agent string `json:"agent"`
	// Input is the JSON the agent wrote on the hook's stdin, as it was.
	Input json.RawMessage `json:"input"`
	// NoViewWaitS is how long the card may wait while no view is attached before it is withdrawn
	// (0: DefaultNoViewWait).
	NoViewWaitS float64 `json:"no_view_wait_s,omitempty"`
	// GiveUpAtMS is when the hook's own --timeout (TimeoutS) ends its wait, in Unix
	// milliseconds: a card withdrawn at or after it was withdrawn by that timeout, one withdrawn
	// before it by the agent ending the hook (0: not said, an older hook).
	GiveUpAtMS int64   `json:"give_up_at_ms,omitempty"`
	TimeoutS   float64 `json:"timeout_s,omitempty"`
}

// PermissionResult is the person's decision.
type PermissionResult struct {
	// Decision is "allow" or "deny".
	Decision string `json:"decision"`
	// Granted: allowed without a card, by the person's earlier "again this session" answer.
	Granted bool `json:"granted,omitempty"`
	// Card is the card the person answered (0 when Granted).
	Card uint64 `json:"card,omitempty"`
	// Pane is the pane the agent runs in, "" when it was not found in tickmux.
	Pane string `json:"pane,omitempty"`
}

// Decisions (PermissionResult.Decision).
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
)

// HookInput is the part of a hook's stdin tickmux reads; the agents send more (transcript path,
// permission mode, suggestions), which is ignored.
type HookInput struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	// Message is a Notification's text ("Claude is waiting for your input").
	Message string `json:"message"`
}
