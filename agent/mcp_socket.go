package agent

import (
	"os"
	"strconv"

	"tickmux/internal/sockpath"
)

// mcpSocket is the socket `tickmux mcp` reaches: --socket, else $TICKMUX_SOCKET, else the one its
// nearest ancestor was given (the agent that started it runs in a tickmux pane, but its client
// dropped the variable from the MCP server's environment, as Codex and the MCP Inspector do),
// else the default socket. Which one it took, when it was not told, goes to the client's log.
func mcpSocket(flag string, logf func(string, ...any)) string {
	if flag != "" || os.Getenv(sockpath.EnvSocket) != "" {
		return SocketPath(flag)
	}
	if path, pid, ok := sockpath.FromAncestors(); ok {
		logf("tickmux mcp: $%s was not passed to this process; using %s, named in the environment of process %d (%s), an ancestor", sockpath.EnvSocket, path, pid, commOf(pid))
		return path
	}
	path := SocketPath("")
	logf("tickmux mcp: $%s was not passed to this process and no ancestor names one; using the default socket %s", sockpath.EnvSocket, path)
	return path
}

// commOf is a process's command name, as /proc says ("" when gone).
func commOf(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return string(b)
}
