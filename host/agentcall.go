package host

import (
	"bytes"
	"encoding/json"
)

// AgentCall is an agent program's own tool call, put before the person by the agent's permission
// hook (`tickmux hook claude-code`, `tickmux hook codex`): what the card of an ActionAgent shows.
// Every string in it comes from the agent: views escape it before drawing.
type AgentCall struct {
	// Agent names the program ("Claude Code", "Codex").
	Agent string
	// Session is the agent's session id, Cwd its working directory, as the hook's input said.
	Session string
	Cwd     string
	// Tool is the tool's name as the agent calls it ("Bash", "Edit", "mcp__server__tool").
	Tool string
	// Input is the tool's whole input as the agent sent it.
	Input json.RawMessage

	// Command is a shell tool's command line (Bash); Description what the agent said it does.
	Command     string
	Description string
	// File is the file an edit writes (Edit, Write, MultiEdit); Diff the change as a unified diff
	// against the file on disk, or DiffNote why there is none (the file unreadable, an edit whose
	// old text is not in the file).
	File     string
	Diff     string
	DiffNote string
	// MCPServer and MCPTool split an MCP tool's name (mcp__server__tool).
	MCPServer, MCPTool string
}

// InputKey is Input in compact form: the exact input a session grant allows again.
func (a *AgentCall) InputKey() string {
	var b bytes.Buffer
	if json.Compact(&b, a.Input) != nil {
		return string(a.Input)
	}
	return b.String()
}
