// Package agent is how agents and scripts reach a running tickmux: the control socket, the server
// that answers on it for a *host.Host, the Go client, the wait/delivery manager, the MCP bridge
// (`tickmux mcp`) and the CLI verbs.
//
//	Claude Code, Codex, …           scripts
//	      │ MCP on stdio               │ tickmux ls / call / wait …
//	      ▼                            ▼
//	   MCP (mcp.go) ──▶ Client (client.go) ◀── CLI verbs (cli.go)
//	                        │ NDJSON on the control socket (wire.go, socket.go)
//	                        ▼
//	   Server (server.go: connections; methods.go: list … screen; wait.go: deliveries)
//	                        │ Get, Call, Describe, Open, Remove, Subscribe
//	                        ▼
//	                    host.Host ──▶ host.Approver (the TUI's ApprovalQueue: only a keypress answers)
//
// Files, one concept each: socket.go (path, 0700/0600, one tickmux per socket, peer uid),
// wire.go (the protocol's shapes), errors.go (host failures as wire errors with their effect),
// server.go, methods.go, wait.go, calls.go (tickets: calls that outlive their request),
// client.go, mcp.go, mcp_tools.go, mcp_resources.go (tick://ID/state), mcp_cancel.go (no reply
// after notifications/cancelled), cli.go.
package agent
