package agent

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// quietCancelled wraps an MCP transport so that a request the client cancelled with
// notifications/cancelled gets no reply, as MCP asks: the SDK cancels the handler's context
// (which withdraws a pending approval card) but would still write the handler's answer. It
// keeps the connection it made, through which the tasks send notifications the SDK has no
// call for (mcp_tasks.go).
type quietCancelled struct {
	mcp.Transport
	conn *cancelFilter // set by Connect, before the session reads anything
}

func (t *quietCancelled) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &cancelFilter{Connection: c, open: map[jsonrpc.ID]bool{}}
	return t.conn, nil
}

// cancelFilter tracks the client's requests still open (bounded by what the client has in
// flight) and which of them were cancelled, and drops the replies to those.
type cancelFilter struct {
	mcp.Connection
	mu   sync.Mutex
	open map[jsonrpc.ID]bool // request id → cancelled
}

func (c *cancelFilter) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return msg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.IsCall():
		c.open[req.ID] = false
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			break
		}
		if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
			if _, open := c.open[id]; open {
				c.open[id] = true
			}
		}
	}
	return msg, nil
}

func (c *cancelFilter) Write(ctx context.Context, msg jsonrpc.Message) error {
	if res, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		cancelled := c.open[res.ID]
		delete(c.open, res.ID)
		c.mu.Unlock()
		if cancelled {
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}
