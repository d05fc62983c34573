package main

import "tickmux/agent"

// tickmux serve: a headless tickmux (host and control socket, no screen) for tests and scripts; the
// logic is in agent/cli.go.
func init() {
	v := agent.ServeVerb
	register(&command{name: v.Name, usage: v.Usage, summary: v.Summary, hidden: true,
		run: func(args []string, std stdio) int { return v.Run(args, std.in, std.out, std.err) }})
}
