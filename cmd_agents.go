package main

import (
	"tickmux/agent"
	"tickmux/host"
)

// The TUI's control socket: cmd_tui.go calls startAgents after making its host, and the stop it
// returns before closing the host (its deferred calls run in that order).
func init() {
	startAgents = func(h *host.Host, socket string, logf func(string, ...any)) (func(), error) {
		srv, err := agent.Serve(h, agent.SocketPath(socket), agent.Options{Logf: logf})
		if err != nil {
			return nil, err // "another tickmux is already running on SOCKET", or why the socket cannot open
		}
		logf("control socket: listening on %s", srv.Path())
		return func() { srv.Close() }, nil
	}
}
