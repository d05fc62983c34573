// Package journal is tickmux's approval journal: one JSON line per decision on a card and per
// call that ran under a grant, appended to $XDG_STATE_HOME/tickmux/journal.jsonl (0600, the
// directory 0700), rotated to journal.1.jsonl … so that all files together stay under a bound.
//
// A card gets a "waiting" line when it first waits, and a second line with the same run and card
// once its outcome is known, so a crash loses nothing but the outcome. Readers skip lines that are
// not whole JSON (a kill -9 in the middle of a write, a full disk) and Collapse hides a waiting
// line whose outcome line follows.
//
// The package is headless: the host writes it, views and the CLI read it; it never imports views.
// Every string in an entry came from a Tick or an agent: draw it escaped, and never act on it.
package journal

import (
	"encoding/json"
	"time"
)

// Decisions an entry records.
const (
	Waiting   = "waiting"   // the card is before the person; the outcome line follows
	Once      = "once"      // allowed once
	Revision  = "revision"  // allowed for the catalog revision (the r key): later calls are granted
	Granted   = "granted"   // ran under an earlier revision answer; GrantedBy names its card
	Denied    = "denied"    // the person said no
	Withdrawn = "withdrawn" // the client gave up (or the server stopped) before the answer
	Voided    = "voided"    // the catalog changed, or the instance ended, before the call went out
	Timeout   = "timeout"   // nobody answered in time (not written yet: tickmux's cards wait until answered)
)

// Outcome statuses.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusUnknown = "unknown"
)

// Entry is one journal line.
type Entry struct {
	Time time.Time `json:"time"`
	// Run names one server's life; card numbers start again at 1 in each run.
	Run string `json:"run"`
	// Card is the approval card's number; nil for a call that ran under a grant.
	Card *uint64 `json:"card"`
	// Kind is what was asked: call, open, send or close.
	Kind   string `json:"kind"`
	Client Client `json:"client"`
	// Instance is the target ("" for an open); Tick its kind and title.
	Instance string `json:"instance,omitempty"`
	Tick     *Tick  `json:"tick,omitempty"`
	Revision string `json:"revision,omitempty"`
	Tool     string `json:"tool,omitempty"`
	// Args are the call's arguments exactly as sent.
	Args json.RawMessage `json:"args,omitempty"`
	// Argv and Dir describe an open, Text a send.
	Argv []string `json:"argv,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	Text string   `json:"text,omitempty"`

	Decision string `json:"decision"`
	// GrantedBy is the card whose revision answer made the grant a "granted" call ran under
	// (nil when that card is not known, as for a grant made before the server restarted).
	GrantedBy *uint64 `json:"granted_by,omitempty"`
	// View is the view that answered (nil when none did).
	View     *string `json:"view"`
	WaitedMS int64   `json:"waited_ms"`
	// Outcome is nil on a waiting line.
	Outcome *Outcome `json:"outcome"`

	// SeqBefore is the seq of the latest state before the call went out, SeqAfter that of the
	// state when its result arrived; Change is the JSON Patch (RFC 6902) between the two.
	// Merged counts the updates beyond one that arrived while the call ran: the change includes
	// them, and they may be the person's (typing in the Tick) or another call's, not this one's.
	SeqBefore *uint64 `json:"seq_before"`
	SeqAfter  *uint64 `json:"seq_after"`
	Change    Patch   `json:"change"`
	Merged    int     `json:"merged,omitempty"`
	// ChangeOmitted is the size of a change too large to keep (MaxLine).
	ChangeOmitted int `json:"change_omitted,omitempty"`
}

// Client is who asked: the name it gave itself (not authenticated), the pid and uid the socket
// saw (SO_PEERCRED), and the pane it runs in when it runs inside tickmux.
type Client struct {
	Name string `json:"name"`
	PID  int    `json:"pid,omitempty"`
	UID  *int   `json:"uid,omitempty"`
	Pane string `json:"pane,omitempty"`
}

// Tick is the target Tick's self-description.
type Tick struct {
	Kind  string `json:"kind"`
	Title string `json:"title"`
}

// Outcome is how the request ended: the error's code and message, and its effect (H-E1: none,
// possible, unknown) when it failed.
type Outcome struct {
	Status  string `json:"status"`
	Code    int64  `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Effect  string `json:"effect,omitempty"`
}

// Final reports whether e is an outcome line rather than a waiting one.
func (e *Entry) Final() bool { return e.Decision != Waiting }

// Collapse drops each waiting line whose outcome line (same run, same card) is also in entries,
// keeping order otherwise. A waiting line left alone means the server stopped before the outcome.
func Collapse(entries []Entry) []Entry {
	type key struct {
		run  string
		card uint64
	}
	done := map[key]bool{}
	for _, e := range entries {
		if e.Card != nil && e.Final() {
			done[key{e.Run, *e.Card}] = true
		}
	}
	out := entries[:0:0]
	for _, e := range entries {
		if !e.Final() && e.Card != nil && done[key{e.Run, *e.Card}] {
			continue
		}
		out = append(out, e)
	}
	return out
}
