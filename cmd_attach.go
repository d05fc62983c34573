package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tickmux/agent"
	"tickmux/internal/sockpath"
	"tickmux/server"
)

// runAttach is `tickmux attach`: this terminal becomes a view of the running server (-t NAME:
// of the session NAME).
func runAttach(args []string, std stdio) int {
	f, err := parseTUIFlags(args, std, "tickmux attach")
	if err != nil || len(f.argv) > 0 {
		return 2
	}
	if !configPathOK("tickmux attach", f.config, std) {
		return 2
	}
	sock := agent.SocketPath(f.socket)
	if f.session != "" && !sockpath.Running(sock) {
		fmt.Fprintf(std.err, "tickmux attach: no session named %s runs (tickmux sessions lists those that do; tickmux new -s %s starts it)\n", f.session, f.session)
		return 1
	}
	return server.Attach(sock, os.Stdin, os.Stdout, std.err, viewParams())
}

// runKillServer is `tickmux kill-server`: the server ends, and every program in it.
func runKillServer(args []string, std stdio) int {
	f, err := parseTUIFlags(args, std, "tickmux kill-server")
	if err != nil || len(f.argv) > 0 {
		return 2
	}
	sock := agent.SocketPath(f.socket)
	if f.session != "" && !sockpath.Running(sock) {
		fmt.Fprintf(std.err, "tickmux kill-server: no session named %s runs (tickmux sessions lists those that do)\n", f.session)
		return 1
	}
	if err := server.KillServer(sock); err != nil {
		fmt.Fprintf(std.err, "tickmux kill-server: %v\n", err)
		return 1
	}
	return 0
}

// viewParams describe this terminal to the server, which draws on it.
func viewParams() server.AttachParams {
	return server.AttachParams{Term: os.Getenv("TERM"), ColorTerm: os.Getenv("COLORTERM")}
}

// runReload is `tickmux reload`: the running server reads its config file again (the file given
// with --config, else the one it started with), as tmux's source-file. Refused from inside one of
// its panes: the config binds the keys that answer cards.
func runReload(args []string, std stdio) int {
	given := false
	for _, a := range args {
		if a == "--config" || strings.HasPrefix(a, "--config=") || a == "-config" || strings.HasPrefix(a, "-config=") {
			given = true
		}
	}
	f, err := parseTUIFlags(args, std, "tickmux reload")
	if err != nil || len(f.argv) > 0 {
		return 2
	}
	sock := agent.SocketPath(f.socket)
	if !sockpath.Running(sock) {
		fmt.Fprintf(std.err, "tickmux reload: no tickmux runs on %s\n", sock)
		return 1
	}
	path := ""
	if given {
		if path, err = filepath.Abs(f.config); err != nil {
			fmt.Fprintf(std.err, "tickmux reload: %v\n", err)
			return 2
		}
	}
	msg, err := server.Reload(sock, path)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux reload: %v\n", err)
		return 1
	}
	fmt.Fprintln(std.out, msg)
	return 0
}
