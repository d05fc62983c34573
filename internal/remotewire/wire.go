// Package remotewire is the protocol between a person's local tickmux and a tickmux server on
// another host, spoken over one SSH connection per host (issue 40):
//
//	local server ── ssh [ssh_args] -T DEST tickmux proxy ── remote control socket ── remote server
//
// `tickmux proxy` on the remote host dials its server's control socket, sends MethodHello, and
// from then on copies lines both ways. The framing is the control socket's (agent/wire.go): one
// JSON value per line, requests with an id > 0, one answer per request, notifications without an
// id. The remote server takes a proxy's hello only from a process that is not inside any of its
// panes, as it takes a view's attach (server/nesting.go): a program in a pane can neither run
// `tickmux proxy` nor speak this protocol to answer a card.
//
// Versions negotiate: the hello carries the local side's Version and Features; the answer the
// remote's; each side uses only what both list. A remote tickmux too old to know `proxy` fails
// with its usage error, which the local side reports as such.
//
// Every string here came from another machine's Ticks and agents: escape before drawing, never
// act on it.
package remotewire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Version is this side's protocol version.
const Version = 1

// Features this build speaks; the hello's answer lists the remote's.
const (
	FeatureCards = "cards" // remote/cards, remote/answer and the cards notification
	FeatureLs    = "ls"    // remote/ls
)

// Methods, local → remote.
const (
	// MethodHello must be first on a proxy connection: HelloParams → HelloResult.
	MethodHello = "proxy/hello"
	// MethodPing answers at once ({} → {}): the local side's liveness probe.
	MethodPing = "remote/ping"
	// MethodCards lists the pending cards: {} → CardsResult.
	MethodCards = "remote/cards"
	// MethodAnswer answers one card: AnswerParams → {}; an error when the card is no longer
	// waiting or no longer what Digest says (it changed since the person read it).
	MethodAnswer = "remote/answer"
	// MethodLs lists the Ticks, plain programs and agents: {} → LsResult.
	MethodLs = "remote/ls"
)

// NotifyCards (remote → local) carries CardsResult each time the pending cards change.
const NotifyCards = "remote/cards"

// HelloParams open a proxy connection.
type HelloParams struct {
	Version  int      `json:"version"`
	Features []string `json:"features"`
	// Via says how the person reaches the host, for its journal: "ssh from 10.0.0.5" (the
	// proxy fills it from SSH_CONNECTION).
	Via string `json:"via,omitempty"`
}

// HelloResult is the remote's side of the negotiation.
type HelloResult struct {
	Version  int      `json:"version"`
	Features []string `json:"features"`
	Hostname string   `json:"hostname"`
	// Tickmux is the remote build's version string, for messages.
	Tickmux string `json:"tickmux,omitempty"`
}

// Card is one pending card as the remote's side panel would show it: all of what will run.
type Card struct {
	ID     uint64    `json:"id"`
	Digest string    `json:"digest"` // CardDigest of the rest: the answer must name it
	Since  time.Time `json:"since"`  // when it started waiting
	Action string    `json:"action"` // call, open, close, send, agent
	Client string    `json:"client,omitempty"`
	// Instance and Title name the target (or, for an agent, its pane).
	Instance        string          `json:"instance,omitempty"`
	Title           string          `json:"title,omitempty"`
	Tool            string          `json:"tool,omitempty"`
	ToolDescription string          `json:"tool_description,omitempty"`
	Args            json.RawMessage `json:"args,omitempty"`
	Revision        string          `json:"revision,omitempty"`
	Unchecked       []string        `json:"unchecked,omitempty"`
	Argv            []string        `json:"argv,omitempty"`
	Dir             string          `json:"dir,omitempty"`
	Shell           bool            `json:"shell,omitempty"`
	Sandboxed       bool            `json:"sandboxed,omitempty"`
	Text            string          `json:"text,omitempty"`
	Agent           *AgentCall      `json:"agent,omitempty"`
}

// AgentCall is an agent's own tool call on a card (host.AgentCall).
type AgentCall struct {
	Agent       string          `json:"agent"`
	Session     string          `json:"session,omitempty"`
	Cwd         string          `json:"cwd,omitempty"`
	Tool        string          `json:"tool"`
	Input       json.RawMessage `json:"input,omitempty"`
	Command     string          `json:"command,omitempty"`
	Description string          `json:"description,omitempty"`
	File        string          `json:"file,omitempty"`
	Diff        string          `json:"diff,omitempty"`
	DiffNote    string          `json:"diff_note,omitempty"`
	MCPServer   string          `json:"mcp_server,omitempty"`
	MCPTool     string          `json:"mcp_tool,omitempty"`
}

// CardsResult lists the pending cards, in the order they started waiting.
type CardsResult struct {
	Cards []Card `json:"cards"`
}

// Decisions of an answer.
const (
	Once     = "once"
	Revision = "revision"
	Deny     = "deny"
)

// AnswerParams answer card ID as the person did in the local view named View ("view 1
// /dev/pts/3 on laptop"); the remote appends " via ssh" and journals it.
type AnswerParams struct {
	Card     uint64 `json:"card"`
	Digest   string `json:"digest"`
	Decision string `json:"decision"`
	View     string `json:"view"`
}

// LsResult is what runs on the host.
type LsResult struct {
	Ticks  []Tick  `json:"ticks"`
	Agents []Agent `json:"agents,omitempty"`
}

// Tick is one pane's program (Tick or plain).
type Tick struct {
	ID     string `json:"id"`
	Title  string `json:"title,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Status string `json:"status,omitempty"`
	Plain  bool   `json:"plain,omitempty"`
}

// Agent is an agent session its hooks reported.
type Agent struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Pane    string `json:"pane,omitempty"`
	State   string `json:"state,omitempty"`
}

// CardDigest is the digest of what card c shows (its ID and every field but Digest): an answer
// names the digest of the card the person read, and the remote refuses it when its card no
// longer has that digest.
func CardDigest(c Card) string {
	c.Digest = ""
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
