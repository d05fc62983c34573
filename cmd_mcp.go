package main

import "tickmux/agent"

// tickmux mcp: an MCP server on stdio that bridges to the running tickmux; the logic is in
// agent/mcp.go.
func init() {
	v := agent.MCPVerb
	register(&command{name: v.Name, usage: v.Usage, summary: v.Summary, hidden: false,
		run: func(args []string, std stdio) int { return v.Run(args, std.in, std.out, std.err) }})
}
