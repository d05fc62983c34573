package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP resources: tick://ID/state for every ready Tick.
//
// Clients such as Claude Code call resources/list and never resources/templates/list, so the
// states are listed as concrete resources, kept in the SDK's registry: refreshed before every
// resources/list (so a listing is never stale) and by the watcher whenever an instance's status
// or catalog changes or it leaves (the SDK then sends notifications/resources/list_changed).
// The template stays for clients that use templates. Every failure is a JSON-RPC error with a
// code and a message that says what to do; nothing answers with code 0.

// watchClient names the watcher's connection (it never asks for approval).
const watchClient = "tickmux mcp (resource updates)"

// resourceOf is the listing entry for one Tick.
func resourceOf(t TickInfo) *mcp.Resource {
	desc := fmt.Sprintf("The latest state of %s, %q (kind %s): the same JSON as read_tick. Subscribe to be told when it changes.", t.ID, t.Title, t.Kind)
	if t.Description != "" {
		desc += " The Tick says of itself: " + t.Description
	}
	return &mcp.Resource{URI: StateURI(t.ID), Name: t.ID + " state", Title: t.Title + " (" + t.ID + ")", MIMEType: "application/json", Description: desc}
}

// syncResources makes the registry list exactly the ready Ticks that c sees.
func (m *MCP) syncResources(ctx context.Context, c *Client) error {
	var list ListResult
	if err := c.Do(ctx, MethodList, struct{}{}, &list, nil); err != nil {
		return err
	}
	want := map[string]*mcp.Resource{}
	for _, t := range list.Ticks {
		if t.Type == "tick" && t.Status == "ready" {
			r := resourceOf(t)
			want[r.URI] = r
		}
	}
	m.resMu.Lock()
	defer m.resMu.Unlock()
	var gone []string
	for uri := range m.listed {
		if want[uri] == nil {
			gone = append(gone, uri)
			delete(m.listed, uri)
		}
	}
	if len(gone) > 0 {
		m.server.RemoveResources(gone...)
		m.registryChanges++
	}
	for uri, r := range want {
		if old := m.listed[uri]; old != nil && old.Title == r.Title && old.Description == r.Description {
			continue
		}
		m.listed[uri] = r
		m.server.AddResource(r, m.readResource)
		m.registryChanges++
	}
	return nil
}

// primeResources fills the registry before a session connects, when tickmux runs: the SDK tells
// connected sessions of every registry change, so a registry first filled by a session's first
// resources/list sent it a list_changed right after the listing it had just been given.
func (m *MCP) primeResources(ctx context.Context) {
	c, err := Dial(ctx, m.socket, watchClient)
	if err != nil {
		return // not running: the first listing finds it empty, and says so
	}
	defer c.Close()
	if err := m.syncResources(ctx, c); err != nil {
		m.logf("tickmux mcp: cannot list the resources: %v", err)
	}
}

// forgetResources empties the listing (tickmux stopped: it has no Ticks).
func (m *MCP) forgetResources() {
	m.resMu.Lock()
	defer m.resMu.Unlock()
	var gone []string
	for uri := range m.listed {
		gone = append(gone, uri)
	}
	clear(m.listed)
	if len(gone) > 0 {
		m.server.RemoveResources(gone...)
	}
}

// refreshListing is receiving middleware: resources/list is answered from a registry refreshed
// just before. When tickmux is not running the listing is empty (it has no Ticks then).
func (m *MCP) refreshListing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "resources/list" {
			m.startWatch() // from now on the client is told when the list changes
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				c, err := m.client(ctx, ss, clientName(ss.InitializeParams().ClientInfo))
				if err == nil {
					err = m.syncResources(ctx, c)
				}
				if err != nil {
					m.logf("tickmux mcp: resources/list: %v", err)
					m.forgetResources()
				}
			}
		}
		return next(ctx, method, req)
	}
}

// invalidParams is the JSON-RPC error for a request naming something that is not there.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// unavailable is the JSON-RPC error for a resource request tickmux could not answer (not
// running, disconnected): the message says why.
func unavailable(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: errorOf(err).Message}
}

func badURI(uri string) error {
	return invalidParams("tickmux has no resource %q: its resources are tick://ID/state, such as tick://hosted:1/state (resources/list shows them)", uri)
}

func (m *MCP) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, ok := stateID(req.Params.URI)
	if !ok {
		return nil, badURI(req.Params.URI)
	}
	c, err := m.client(ctx, req.Session, clientName(req.ClientInfo()))
	if err != nil {
		return nil, unavailable(err)
	}
	var raw json.RawMessage
	if err := c.Do(ctx, MethodRead, ReadParams{ID: id}, &raw, nil); err != nil {
		var e *Error
		if errors.As(err, &e) && (e.Reason == ReasonNotFound || e.Reason == ReasonNotATick || e.Reason == ReasonNotReady) {
			return nil, invalidParams("%s: %s", req.Params.URI, e.Message)
		}
		return nil, unavailable(err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(raw)}}}, nil
}

func stateID(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, "tick://")
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, "/state")
	return id, ok && id != "" && !strings.Contains(id, "/")
}

// subscribe accepts a subscription only to the state of a Tick that exists; the SDK keeps the
// subscriptions and sends each update only to the sessions subscribed to its URI.
func (m *MCP) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	id, ok := stateID(req.Params.URI)
	if !ok {
		return badURI(req.Params.URI)
	}
	c, err := m.client(ctx, req.Session, clientName(req.Session.InitializeParams().ClientInfo))
	if err != nil {
		return unavailable(err)
	}
	var list ListResult
	if err := c.Do(ctx, MethodList, struct{}{}, &list, nil); err != nil {
		return unavailable(err)
	}
	for _, t := range list.Ticks {
		if t.ID != id {
			continue
		}
		if t.Type != "tick" {
			return invalidParams("%s is a plain terminal program, not a Tick: it has no state to subscribe to", id)
		}
		m.startWatch()
		return nil
	}
	return invalidParams("there is no Tick %s in tickmux: resources/list (or list_ticks) shows the Ticks and their tick://ID/state", id)
}

// startWatch starts the watcher once, when a client first lists or subscribes to resources.
func (m *MCP) startWatch() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.watching && !m.closed {
		m.watching = true
		m.wg.Add(1)
		go m.watch() // owner: m; exits when Close cancels m.ctx
	}
}

// watch follows tickmux: every new state becomes notifications/resources/updated for the
// sessions subscribed to it, and every instance that changes status or catalog, or leaves,
// refreshes the listing (notifications/resources/list_changed). It redials while tickmux is not
// running, with an empty listing meanwhile.
func (m *MCP) watch() {
	defer m.wg.Done()
	paused := false
	for {
		c, err := Dial(m.ctx, m.socket, watchClient)
		if err == nil {
			paused = false
			if err = m.syncResources(m.ctx, c); err == nil {
				err = c.Watch(m.ctx, nil, func(ch Changed) {
					if ch.Event == "" {
						_ = m.server.ResourceUpdated(m.ctx, &mcp.ResourceUpdatedNotificationParams{URI: StateURI(ch.ID)})
						return
					}
					if err := m.syncResources(m.ctx, c); err != nil && m.ctx.Err() == nil {
						m.logf("tickmux mcp: cannot refresh the resource list: %v", err)
					}
				})
			}
			c.Close()
		}
		if m.ctx.Err() != nil {
			return
		}
		m.forgetResources()
		if !paused { // once per outage: tickmux may stay down for long
			m.logf("tickmux mcp: resource updates paused until tickmux runs again: %v", err)
			paused = true
		}
		select {
		case <-m.ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}
