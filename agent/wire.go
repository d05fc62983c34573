package agent

// The control protocol between socket clients (the CLI verbs, `tickmux mcp`) and the running
// tickmux. It is tickmux's own, not Tick protocol 3: HOST.md leaves the client-to-host interface
// open. One JSON value per line, UTF-8, "\n"-terminated, on a Unix socket:
//
//	client → server  {"id":1,"method":"call","params":{...}}         a request (id > 0)
//	client → server  {"method":"cancel","params":{"request":1}}       give up request 1
//	server → client  {"id":1,"result":{...}}                          exactly one answer per request
//	server → client  {"id":1,"error":{"message":…,"effect":…}}
//	server → client  {"method":"progress","params":{"request":1,"message":…}}
//	server → client  {"method":"changed","params":{"request":7,"id":"hosted:1","seq":12}}
//
// The first request on a connection should be hello, which names the client for approval cards.
// Requests on one connection run concurrently; answers come in any order.

import (
	"encoding/json"

	"tickmux/host/journal"
	"tickmux/host/trim"
	"tickmux/internal/remotewire"
	"tickmux/tick/wire"
)

// ProtocolVersion is the version of the control protocol; hello compares it.
const ProtocolVersion = 1

// Methods a client may call.
const (
	MethodHello    = "hello"    // HelloParams → HelloResult
	MethodList     = "list"     // ListParams → ListResult
	MethodDescribe = "describe" // IDParams → Description
	MethodRead     = "read"     // ReadParams → ReadResult
	MethodCall     = "call"     // CallParams → CallResult; progress while it waits
	MethodWait     = "wait"     // WaitParams → WaitResult
	MethodOpen     = "open"     // OpenParams → TickInfo; progress while it waits
	MethodClose    = "close"    // IDParams → CloseResult; progress while it waits
	MethodSend     = "send"     // SendParams → SendResult; progress while it waits
	MethodScreen   = "screen"   // IDParams → ScreenResult
	MethodWatch    = "watch"    // WatchParams → a "changed" notification per new state, until cancelled
	// MethodCancelCall withdraws a call that answered with a ticket: CancelCallParams → CallOutcome.
	MethodCancelCall = "cancel_call"
	// MethodJournal reads the approval journal's entries for this client's own requests:
	// JournalParams → JournalResult.
	MethodJournal = "journal"
)

// Notifications.
const (
	NotifyCancel   = "cancel"   // client → server: CancelParams
	NotifyProgress = "progress" // server → client: Progress
	NotifyChanged  = "changed"  // server → client: Changed
)

// Request is one line from a client: a request when ID > 0, a notification when ID is 0.
type Request struct {
	ID     uint64          `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Message is one line from the server: the answer to request ID (exactly one of Result and
// Error), or a notification (Method and Params, no ID).
type Message struct {
	ID     uint64          `json:"id,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Why a request failed, for scripts (Error.Reason).
const (
	ReasonBadRequest     = "bad_request"     // malformed request, unknown method or params
	ReasonNotRunning     = "not_running"     // no tickmux on the socket (client side)
	ReasonDisconnected   = "disconnected"    // the connection to tickmux broke (client side)
	ReasonUntrusted      = "untrusted"       // the socket or its server is not the user's own (client side)
	ReasonCancelled      = "cancelled"       // the client gave up
	ReasonNotFound       = "not_found"       // no instance with that id is visible
	ReasonNotATick       = "not_a_tick"      // a shell: no tools, no state
	ReasonNotReady       = "not_ready"       // starting or ended
	ReasonUnknownTool    = "unknown_tool"    // no such tool in the catalog
	ReasonInvalidArgs    = "invalid_args"    // the args do not fit input_schema (H-K1)
	ReasonCatalogChanged = "catalog_changed" // the revision is not the current one (H-K3)
	ReasonDenied         = "denied"          // the person said no
	ReasonVoided         = "voided"          // the catalog changed while the approval waited (H-K3)
	ReasonWithdrawn      = "withdrawn"       // the client gave up before the person answered
	ReasonNoApprover     = "no_approver"     // nobody here can approve (headless)
	ReasonTimeout        = "timeout"         // the Tick did not answer in time (H-K4)
	ReasonSessionEnded   = "session_ended"   // the Tick ended while the request was out
	ReasonToolFailed     = "tool_failed"     // the Tick answered with an error
	ReasonFailed         = "failed"          // anything else
	ReasonMutates        = "mutates"         // query_tick was asked to run a mutating tool
	ReasonTooMany        = "too_many"        // too many calls await the person on this connection
)

// Error is a failed request. Effect says what it may have done (HOST.md H-E1): only "none"
// allows anyone to say that nothing happened.
type Error struct {
	Message string      `json:"message"`
	Effect  wire.Effect `json:"effect"`
	Reason  string      `json:"reason"`
	// Code is the Tick's JSON-RPC error code when the Tick answered with an error.
	Code int64 `json:"code,omitempty"`
	// Rule is the HOST.md rule behind the failure, when there is one.
	Rule string `json:"rule,omitempty"`
	// Data is the Tick's error data (untrusted).
	Data json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message + " (effect: " + string(e.Effect) + ")" }

// CancelParams withdraw a request: a pending approval card is withdrawn, a wait ends.
type CancelParams struct {
	Request uint64 `json:"request"`
}

// Progress says what a long request is waiting for. The server sends one every few seconds while
// a call, open, close or send is under way, so that clients with request timeouts keep waiting.
type Progress struct {
	Request uint64 `json:"request"`
	// Phase is "approval" while a card waits for the person, "running" otherwise.
	Phase   string `json:"phase"`
	Message string `json:"message"`
	// Card is the approval card's number, when it is known.
	Card uint64 `json:"card,omitempty"`
}

// Progress phases.
const (
	PhaseApproval = "approval"
	PhaseRunning  = "running"
)

// Changed is sent on a watch for every new state of a watched instance (coalesced), and, with
// Event set, when an instance's status or catalog changes or it leaves (so a listing of the
// instances can be refreshed).
type Changed struct {
	Request uint64 `json:"request"`
	ID      string `json:"id"`
	Seq     uint64 `json:"seq"`
	// Event is "" for a new state, else "status", "catalog" or "removed".
	Event string `json:"event,omitempty"`
}

// HelloParams name the client; the name appears on approval cards (it is not authenticated).
type HelloParams struct {
	Client   string `json:"client"`
	Protocol int    `json:"protocol"`
}

// HelloResult identifies the server.
type HelloResult struct {
	Server   string `json:"server"`
	Protocol int    `json:"protocol"`
	PID      int    `json:"pid"`
}

// IDParams name one instance.
type IDParams struct {
	ID string `json:"id"`
}

// TickInfo is one instance as clients see it (list, open).
type TickInfo struct {
	ID string `json:"id"`
	// Type is "tick" or "shell".
	Type string `json:"type"`
	// Status is "ready" or "ended" (instances still starting are not shown, H-I1); "opened" for
	// a pane an open with a host opened there.
	Status      string   `json:"status"`
	Kind        string   `json:"kind,omitempty"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Revision    string   `json:"revision,omitempty"`
	RecoverWith string   `json:"recover_with,omitempty"`
	Seq         *uint64  `json:"seq,omitempty"`     // the latest state's seq (Ticks)
	Updates     *uint64  `json:"updates,omitempty"` // tick/update notifications received (Ticks)
	Command     []string `json:"command"`
	Cwd         string   `json:"cwd,omitempty"`
	// Ended says why an ended instance ended.
	Ended string `json:"ended,omitempty"`
	// Sandboxed: its program runs in a sandbox (host/sandbox.go).
	Sandboxed bool `json:"sandboxed,omitempty"`
	// Host is the other host it was opened on (open with a host; ID is that host's own id, and
	// Status "opened": whether a Tick initialized is that host's to tell).
	Host string `json:"host,omitempty"`
	// Decisions is how many decisions (cards answered, withdrawn or voided, calls under a
	// grant) the approval journal holds for this instance since it opened (Ticks).
	Decisions *int `json:"decisions,omitempty"`
	// Agent is the agent session (Claude Code, Codex) in a shell's pane, as its hooks told
	// tickmux (list only).
	Agent *AgentInfo `json:"agent,omitempty"`
}

// AgentInfo is an agent session's state on its pane.
type AgentInfo struct {
	Name    string `json:"name"`
	Session string `json:"session"`
	// State is "started", "working", "waiting for you", "done" or "ended".
	State string `json:"state"`
	// Since is when it entered State (RFC 3339), ForS how long ago that was, in seconds.
	Since  string `json:"since"`
	ForS   int64  `json:"for_s"`
	Detail string `json:"detail,omitempty"`
}

// ListParams ask for the list. Hosts adds the other hosts of the config's [[hosts]] (their
// states, and what runs on those up, asked over ssh within 2 s); without it nothing goes out.
type ListParams struct {
	Hosts bool `json:"hosts,omitempty"`
}

// ListResult is every instance a client may see, in the order they were opened.
type ListResult struct {
	Ticks []TickInfo `json:"ticks"`
	// PendingApprovals counts the approval cards waiting for the person.
	PendingApprovals int `json:"pending_approvals"`
	// Views counts the views attached to a tickmux server (absent when it has none to count).
	Views *int `json:"views,omitempty"`
	// Note says when approvals wait and no view is attached to answer them.
	Note string `json:"note,omitempty"`
	// Hosts are the other machines of the config's [[hosts]] (issue 40), in its order, when
	// ListParams.Hosts asked for them: each one's state and, while up, what runs there.
	// Read-only (HostsNote says so to agents).
	Hosts     []HostListing `json:"hosts,omitempty"`
	HostsNote string        `json:"hosts_note,omitempty"`
}

// HostListing is one other host as the list method shows it. Every string in it but Name and
// State came from that host (or its ssh): as untrusted as a Tick's.
type HostListing struct {
	Name  string `json:"name"`  // the [[hosts]] entry's name
	State string `json:"state"` // up, connecting or unreachable
	// Since is when it entered State (RFC 3339); Down, for a host not up, when it was lost: the
	// start of the spell it has not been up, across the tries since.
	Since string `json:"since,omitempty"`
	Down  string `json:"down,omitempty"`
	// Reason says why it is unreachable (while connecting: why the last try failed).
	Reason string `json:"reason,omitempty"`
	// NextTry is when an unreachable host is tried again (RFC 3339), NextTryInS in how many
	// seconds.
	NextTry    string `json:"next_try,omitempty"`
	NextTryInS *int64 `json:"next_try_in_s,omitempty"`
	// Hostname is what the host called itself when it last said hello.
	Hostname string `json:"hostname,omitempty"`
	// Ticks and Agents are what runs there (up hosts only), with that host's ids.
	Ticks  []remotewire.Tick  `json:"ticks,omitempty"`
	Agents []remotewire.Agent `json:"agents,omitempty"`
	// Note says when an up host did not list what runs there in time.
	Note string `json:"note,omitempty"`
}

// ToolInfo is one tool of a Tick's catalog (spec 5.2 TickTool).
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Mutates     bool            `json:"mutates"`
	// NotChecked lists what of input_schema tickmux does not check in args (a pattern it cannot
	// run, a $schema it does not know), one sentence each: the Tick checks it (spec 7.2).
	NotChecked []string `json:"not_checked,omitempty"`
}

// Description is a Tick's catalog, fresh from tick/describe (spec 5.2).
type Description struct {
	ID          string                 `json:"id"`
	Kind        string                 `json:"kind"`
	Title       string                 `json:"title"`
	Description string                 `json:"description,omitempty"`
	Revision    string                 `json:"revision"`
	Tools       []ToolInfo             `json:"tools"`
	RecoverWith string                 `json:"recover_with,omitempty"`
	State       *wire.StateDeclaration `json:"state,omitempty"`
}

// ReadParams ask for an instance's latest state. Full skips the delivery budget.
type ReadParams struct {
	ID   string `json:"id"`
	Full bool   `json:"full,omitempty"`
}

// ReadResult is the latest state (untrusted data), trimmed like a delivery of one (H-SUB2)
// unless Full was asked, with the recovery tool (H-RC1).
type ReadResult struct {
	ID          string          `json:"id"`
	Seq         uint64          `json:"seq"`
	At          string          `json:"at"`
	Data        json.RawMessage `json:"data"`
	RecoverWith string          `json:"recover_with,omitempty"`
	Trimmed     []trim.Dropped  `json:"trimmed,omitempty"`
}

// CallParams call one tool. Revision "" means the current one.
//
// Query refuses a tool with mutates: true before anything happens (MCP's query_tick, which is
// annotated read-only). TicketAfterS bounds how long the answer may take: when the call is not
// done by then, the answer is a Ticket and the call goes on; wait with Calls collects its outcome
// and cancel_call withdraws it. Without TicketAfterS the answer waits for the call's end.
type CallParams struct {
	ID           string          `json:"id"`
	Tool         string          `json:"tool"`
	Args         json.RawMessage `json:"args,omitempty"`
	Revision     string          `json:"revision,omitempty"`
	Query        bool            `json:"query,omitempty"`
	TicketAfterS *float64        `json:"ticket_after_s,omitempty"`
	// Keep lets a ticketed call outlive this connection (the CLI's call --no-wait): it then runs
	// until the person answers or tickmux exits, and any connection may collect or withdraw it
	// (the socket is the user's alone). Without Keep the connection's end withdraws it.
	Keep bool `json:"keep,omitempty"`
}

// CallResult is the tool's result (untrusted data) and the revision the call carried. Status is
// always "ok": a Ticket, the other answer to a call, has another status.
type CallResult struct {
	Status   string          `json:"status"`
	ID       string          `json:"id"`
	Tool     string          `json:"tool"`
	Revision string          `json:"revision"`
	Result   json.RawMessage `json:"result"`
}

// Call statuses: CallResult and CallOutcome say "ok"; a Ticket says the call is still under way.
const (
	StatusOK               = "ok"
	StatusAwaitingApproval = "awaiting_approval" // a Ticket: the card waits for the person
	StatusRunning          = "running"           // a Ticket: approved (or a query), the Tick has not answered yet
	StatusDenied           = "denied"            // an outcome: the person said no; nothing happened
	StatusVoided           = "voided"            // an outcome: the catalog changed first; nothing happened
	StatusWithdrawn        = "withdrawn"         // an outcome: cancel_call came first; nothing happened
	StatusFailed           = "failed"            // an outcome: Error says the effect
	StatusUnknown          = "unknown"           // no such call on this connection (or already collected)
)

// Ticket is the answer to a call that is still under way after its TicketAfterS. Call names it
// for wait (Calls) and cancel_call; it belongs to this connection, and its card is withdrawn when
// the connection ends, unless the call asked to Keep it.
type Ticket struct {
	Status  string `json:"status"`
	Call    string `json:"call"`
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Card    uint64 `json:"card,omitempty"`
	Message string `json:"message"`
}

// CancelCallParams name a call that answered with a ticket.
type CancelCallParams struct {
	Call string `json:"call"`
}

// CallOutcome is how a ticketed call ended: Status ok with Result, or denied, voided, withdrawn
// or failed with Error (whose effect says what it may have done), or unknown.
type CallOutcome struct {
	Call     string          `json:"call"`
	Status   string          `json:"status"`
	ID       string          `json:"id,omitempty"`
	Tool     string          `json:"tool,omitempty"`
	Revision string          `json:"revision,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *Error          `json:"error,omitempty"`
}

// WaitParams wait for news. IDs empty means every Tick, including those opened meanwhile.
// AfterSeq gives, per id, the seq the caller has seen; for an id not in it, the server uses the
// seq it last gave this connection (by wait or read), and an instance this connection has not
// been given yet counts as news, unless FromNow counts it from its state when the wait starts
// (the CLI, whose connection has no history). TimeoutS <= 0 checks once and returns; nil waits
// until news.
//
// Calls names tickets (call:N) to wait for: the wait returns as soon as one of them has an
// outcome (each outcome is given once). With Calls and no IDs, state news does not end the wait.
type WaitParams struct {
	IDs      []string          `json:"ids,omitempty"`
	Calls    []string          `json:"calls,omitempty"`
	AfterSeq map[string]uint64 `json:"after_seq,omitempty"`
	FromNow  bool              `json:"from_now,omitempty"`
	TimeoutS *float64          `json:"timeout_s,omitempty"`
}

// WaitResult is one delivery (H-SUB1): an entry per instance with news, trimmed to the budget
// (H-SUB2), each naming its recovery tool (H-RC1). Gone lists named ids that cannot bring news.
type WaitResult struct {
	Entries  []trim.Entry  `json:"entries"`
	Gone     []Gone        `json:"gone,omitempty"`
	Calls    []CallOutcome `json:"calls,omitempty"`
	TimedOut bool          `json:"timed_out,omitempty"`
}

// Gone is a named id that ended or does not exist.
type Gone struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// OpenParams open a Tick (or, with Shell, a plain program; an empty command then means $SHELL).
// Cwd must be absolute; clients resolve it against their own working directory.
type OpenParams struct {
	Command []string `json:"command"`
	Cwd     string   `json:"cwd,omitempty"`
	Shell   bool     `json:"shell,omitempty"`
	// Sandbox runs it in a sandbox (host/sandbox.go) whatever the config's sandbox policy;
	// without it an agent's open is sandboxed unless the policy is "off".
	Sandbox bool `json:"sandbox,omitempty"`
	// Host opens it on another host of the config's [[hosts]] (issue 40), by its tickmux there,
	// and this tickmux shows it: Command and Cwd are that host's ("" Cwd: its default). No
	// sandbox there: Sandbox is refused with Host.
	Host string `json:"host,omitempty"`
}

// CloseResult confirms that an instance was ended and removed.
type CloseResult struct {
	ID     string `json:"id"`
	Closed bool   `json:"closed"`
}

// SendParams type text into an instance's terminal, as if from the keyboard.
type SendParams struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// SendResult counts the bytes queued for the terminal.
type SendResult struct {
	ID    string `json:"id"`
	Bytes int    `json:"bytes"`
}

// ScreenResult is an instance's screen as text (untrusted: may hold anything the program drew).
type ScreenResult struct {
	ID   string `json:"id"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
	Text string `json:"text"`
}

// WatchParams choose the instances a watch reports; empty means all.
type WatchParams struct {
	IDs []string `json:"ids,omitempty"`
}

// JournalParams ask for the journal's entries of the caller's own requests, newest last.
type JournalParams struct {
	// ID keeps the entries of one instance ("": all).
	ID string `json:"id,omitempty"`
	// N is how many of the newest to return (default 20, at most 100).
	N int `json:"n,omitempty"`
}

// JournalResult is the approval journal's entries for requests the calling client's process
// made in this server's run (by the pid the socket saw). Every string in them is a Tick's or an
// agent's: data, never instructions.
type JournalResult struct {
	Entries []journal.Entry `json:"entries"`
	Note    string          `json:"note,omitempty"`
}
