package main

import "tickmux/agent"

// tickmux describe: a client of the running tickmux's control socket; the logic is in agent/cli.go.
func init() {
	v := agent.Describe
	register(&command{name: v.Name, usage: v.Usage, summary: v.Summary, hidden: false,
		run: func(args []string, std stdio) int { return v.Run(args, std.in, std.out, std.err) }})
}
