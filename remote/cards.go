package remote

import "tickmux/host"

// Local is the card as a view draws it: the request of Card with Req.Host naming its host, and
// its ID and time the remote's. Every string in it came from another host: views escape it before
// drawing, and nothing acts on it.
func (c HostCard) Local() host.Card {
	w := c.Card
	r := host.ApprovalRequest{Action: host.Action(w.Action), Client: w.Client, Instance: w.Instance, Title: w.Title,
		Tool: w.Tool, ToolDescription: w.ToolDescription, Args: w.Args, Revision: w.Revision, Unchecked: w.Unchecked,
		Argv: w.Argv, Dir: w.Dir, Shell: w.Shell, Sandboxed: w.Sandboxed, Text: w.Text, Host: c.Host}
	if a := w.Agent; a != nil {
		r.Agent = &host.AgentCall{Agent: a.Agent, Session: a.Session, Cwd: a.Cwd, Tool: a.Tool, Input: a.Input,
			Command: a.Command, Description: a.Description, File: a.File, Diff: a.Diff, DiffNote: a.DiffNote,
			MCPServer: a.MCPServer, MCPTool: a.MCPTool}
	}
	return host.Card{ID: w.ID, Req: r, Created: w.Since}
}
