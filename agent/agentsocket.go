package agent

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"

	"tickmux/host"
)

// The agent socket is a second listener of a tickmux server, the one sandboxed panes reach
// (host/sandbox.go binds it into them): it answers the agent methods (routes: list, describe,
// read, call, wait, watch, open, close, send, screen, cancel_call, journal and the hooks'
// permission and agent_event), none of which answers a card, and refuses every view method
// (view/attach, view/kill-server, ...). An open asked for on it is always sandboxed, whatever
// the policy: a sandboxed program cannot open its way out.

// AgentSocketSuffix ends an agent socket's name; the control socket NAME.sock has its agent
// socket NAME.agent.sock beside it.
const AgentSocketSuffix = ".agent.sock"

// AgentSocketPath is the agent socket beside the control socket at control.
func AgentSocketPath(control string) string {
	return strings.TrimSuffix(control, ".sock") + AgentSocketSuffix
}

// ServeAgent opens the agent socket at path (which must end in AgentSocketSuffix) and answers
// the agent methods with h until Close; a view method is refused, and the connection closed.
func ServeAgent(h *host.Host, path string, opts Options) (*Server, error) {
	if !strings.HasSuffix(path, AgentSocketSuffix) {
		return nil, fmt.Errorf("the agent socket %s must end in %s", path, AgentSocketSuffix)
	}
	opts.Views = refuseView
	return Serve(h, path, opts)
}

// agentOnly reports whether s is an agent socket (ServeAgent): its name says so.
func (s *Server) agentOnly() bool { return strings.HasSuffix(s.Path(), AgentSocketSuffix) }

// refuseView answers a view method on the agent socket with an error; the connection then closes.
func refuseView(nc *net.UnixConn, req Request) {
	err := failure(ReasonBadRequest, "%s is not served on the agent socket: views attach, and kill-server runs, only from outside the sandbox, on the person's control socket", req.Method)
	line, _ := json.Marshal(Message{ID: req.ID, Error: err})
	_ = nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, _ = nc.Write(append(line, '\n'))
}
