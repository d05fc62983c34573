// Package snapshot is what a tickmux server writes of its session so that a later start can bring
// it back after a crash, a kill -9 or a reboot: the tabs and their layouts, what ran in each pane
// and where, the agent sessions its hooks reported. The format is JSON, readable and documented
// field by field below (docs/reference.md, RESTORE); files are 0600 in a 0700 directory.
//
// A snapshot holds no secrets: no environment but the variables the config names (restore_env),
// and scrollback only when the config asks for it (restore_scrollback).
//
// The package is headless: views fill a Session, the server stores it (store.go).
package snapshot

import "time"

// Version is the format's version; a reader refuses a snapshot of a later one.
const Version = 1

// Session is one snapshot of a server's session.
type Session struct {
	Version int `json:"version"`
	// Time is when it was taken.
	Time time.Time `json:"time"`
	// Socket is the control socket of the server it was taken of.
	Socket string `json:"socket"`
	// Run is the server's journal run: the cards of that run still waiting when it died are
	// voided at the next start.
	Run string `json:"run,omitempty"`
	// Ended says how the server ended when it ended by itself ("quit", "kill-server", "last
	// pane closed"); "" while it runs, so a snapshot with no Ended is of a server that died.
	Ended string `json:"ended,omitempty"`
	// Tabs in their order; Current is the shown one's index.
	Tabs    []Tab `json:"tabs"`
	Current int   `json:"current"`
	// Agents are the agent sessions its hooks reported, newest last.
	Agents []Agent `json:"agents,omitempty"`
	// Grants counts the revision grants (r) that were in force: never restored, said once.
	Grants int `json:"grants,omitempty"`
}

// Tab is one tab: its panes and their layout.
type Tab struct {
	// Name is the name the person gave it; "" names it after its focused pane.
	Name  string `json:"name,omitempty"`
	Panes []Pane `json:"panes"`
	// Layout is the split tree over Panes (by index); nil when the tab has only a float.
	Layout *Node `json:"layout,omitempty"`
	// Focus is the focused pane's index, Zoomed the zoomed one's (-1: none), Float the
	// floating pane's (-1: none) and FloatShown whether it shows.
	Focus      int  `json:"focus"`
	Zoomed     int  `json:"zoomed"`
	Float      int  `json:"float"`
	FloatShown bool `json:"float_shown,omitempty"`
}

// Node is a node of a tab's split tree: a leaf names a pane by its index in Tab.Panes, a split
// divides its rectangle between A and B.
type Node struct {
	Pane *int `json:"pane,omitempty"`
	// Axis is "side-by-side" (B right of A) or "stacked" (B below A).
	Axis  string  `json:"axis,omitempty"`
	Ratio float64 `json:"ratio,omitempty"` // A's share
	A     *Node   `json:"a,omitempty"`
	B     *Node   `json:"b,omitempty"`
}

// Axes of a split.
const (
	SideBySide = "side-by-side"
	Stacked    = "stacked"
)

// Kinds of a pane.
const (
	KindShell = "shell" // the person's shell (argv empty: $SHELL)
	KindPlain = "plain" // a plain program started in the pane (tickmux --plain -- CMD)
	KindTick  = "tick"  // a Tick
)

// Pane is one pane: what ran in it and where.
type Pane struct {
	Kind string `json:"kind"`
	// Argv is the pane's own program ("" for the default shell); Dir the working directory of
	// what ran in its foreground (the shell's, or the command's it ran).
	Argv []string `json:"argv,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Name is the name the person gave the pane; Title what its frame showed.
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	// Running is the command a shell ran in its foreground (its argv, from /proc), none when
	// the shell waited at its prompt.
	Running []string `json:"running,omitempty"`
	// Agent is the agent session that ran in the pane, by its Session id (Session.Agents).
	Agent string `json:"agent,omitempty"`
	// Env holds the variables restore_env names, as the foreground process had them.
	Env []string `json:"env,omitempty"`
	// Sandbox: the pane ran in a sandbox. Host: the host it ran on ("" this one).
	Sandbox bool   `json:"sandbox,omitempty"`
	Host    string `json:"host,omitempty"`
	// Scrollback is the pane's text, oldest line first (restore_scrollback only).
	Scrollback []string `json:"scrollback,omitempty"`
}

// Agent is an agent session a hook reported.
type Agent struct {
	Agent   string `json:"agent"` // "Claude Code", "Codex"
	Session string `json:"session"`
	Dir     string `json:"dir,omitempty"`
	State   string `json:"state,omitempty"`
}

// Panes counts the panes of every tab.
func (s *Session) Panes() int {
	n := 0
	for _, t := range s.Tabs {
		n += len(t.Panes)
	}
	return n
}
