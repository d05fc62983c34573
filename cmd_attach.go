package main

import (
	"fmt"
	"os"

	"tickmux/agent"
	"tickmux/server"
)

func init() {
	register(&command{
		name:    "attach",
		usage:   "attach [--socket PATH]",
		summary: "show the running tickmux in this terminal (prefix d detaches)",
		run: func(args []string, std stdio) int {
			f, err := parseTUIFlags(args, std, "tickmux attach")
			if err != nil || len(f.argv) > 0 {
				return 2
			}
			return server.Attach(agent.SocketPath(f.socket), os.Stdin, os.Stdout, std.err, viewParams())
		},
	})
	register(&command{
		name:    "kill-server",
		usage:   "kill-server [--socket PATH]",
		summary: "end the running tickmux and every program in it",
		run: func(args []string, std stdio) int {
			f, err := parseTUIFlags(args, std, "tickmux kill-server")
			if err != nil || len(f.argv) > 0 {
				return 2
			}
			if err := server.KillServer(agent.SocketPath(f.socket)); err != nil {
				fmt.Fprintf(std.err, "tickmux kill-server: %v\n", err)
				return 1
			}
			return 0
		},
	})
}

// viewParams describe this terminal to the server, which draws on it.
func viewParams() server.AttachParams {
	return server.AttachParams{Term: os.Getenv("TERM"), ColorTerm: os.Getenv("COLORTERM")}
}
