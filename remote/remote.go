// Package remote reaches the tickmux servers on other hosts (issue 40, "many machines, one view,
// one queue"): one Link per [[hosts]] entry, each one ssh process run with the person's own
// OpenSSH client,
//
//	ssh -T -o BatchMode=yes ... [ssh_args] DEST TICKMUX proxy [--socket SOCKET]
//
// speaking internal/remotewire on its stdin and stdout; a Manager over all of them gives the
// states, the pending cards of every host in one queue, answers and listings.
//
// A link is connecting, up, or unreachable with the reason in the person's words and the time of
// its next try. While up it pings every 5 s; no answer within 3 s (or the connection's end) makes
// it unreachable at once, kills its ssh (the whole process group) and tries again after 1 s, 2 s,
// 4 s … up to 30 s, from 1 s again after a connection that stayed up 30 s. ssh never prompts
// (BatchMode, and its stdin is the link's pipe).
//
// Nothing here blocks a caller on the network beyond the caller's own context: a call to a host
// that is not up fails at once with the reason; each link has its own goroutines, so a host that
// hangs touches no other. Nothing is retried: an answer to a card whose connection dropped before
// the remote's word came back is reported as unknown, and the card list tells.
//
// Headless: no UI package. Every string that came from another host (cards, hostnames, ssh's
// messages) is as untrusted as that host: escape it before drawing it.
package remote

import (
	"fmt"
	"strings"
	"time"

	"tickmux/internal/remotewire"
)

// State is where a link stands.
type State string

// States of a link.
const (
	Connecting  State = "connecting"
	Up          State = "up"
	Unreachable State = "unreachable"
)

// HostState is one host's link as the person sees it.
type HostState struct {
	Name  string // the [[hosts]] entry's name
	State State
	Since time.Time // when it entered State
	// NextTry is when an unreachable link starts its next connection.
	NextTry time.Time
	// Reason says why it is unreachable, in the person's words (untrusted: ssh's last line may
	// come from the other host); while connecting again, why the last try failed.
	Reason string
	// Hostname is what the host called itself in its last hello ("" before one).
	Hostname string
	// Down is when the host was lost: the start of the spell it has not been up, across the
	// tries since (Since is each try's, or each failure's). Zero while up, and until a first
	// try failed.
	Down time.Time
}

// HostCard is one pending card of a host.
type HostCard struct {
	Host string // the [[hosts]] entry's name
	Card remotewire.Card
	// Reachable is false when the host is not up (or not yet listed its cards since it came
	// back): the card is the last one known, and nobody can answer it now.
	Reachable bool
}

// Options shape a Link or a Manager.
type Options struct {
	// Logf, when set, gets a line for every change of a link's state.
	Logf func(format string, args ...any)
	// Changed, when set, is called after a host's state or cards changed. It runs on a goroutine
	// of the link (of the Manager, for a Manager's) and must return quickly: read States and
	// Cards, or wake the UI's own loop, and return. Calls are coalesced, never queued: while one
	// runs, any number of changes make one more call, so a slow Changed delays only the next
	// call, never the links' reading.
	Changed func()
	// SSH is the ssh program ("ssh", found on PATH, when empty).
	SSH string

	timing  timing          // zero: the defaults; tests shorten them
	observe func(HostState) // tests: every state, as it is set
}

// timing are a link's clocks.
type timing struct {
	pingEvery    time.Duration // a ping this often while up
	pingTimeout  time.Duration // an unanswered ping makes the link unreachable after this
	helloTimeout time.Duration // from starting ssh to the hello's answer
	backoffMin   time.Duration // the first wait after a failure
	backoffMax   time.Duration // the longest
	stableAfter  time.Duration // a connection up this long resets the wait to backoffMin
}

func (t timing) withDefaults() timing {
	def := timing{
		pingEvery:   5 * time.Second,
		pingTimeout: 3 * time.Second,
		// ssh's ConnectTimeout (10 s) covers the TCP connection and its banner; the key
		// exchange, the login and the remote's start come after it.
		helloTimeout: 30 * time.Second,
		backoffMin:   time.Second,
		backoffMax:   30 * time.Second,
		stableAfter:  30 * time.Second,
	}
	for _, f := range []struct{ got, def *time.Duration }{
		{&t.pingEvery, &def.pingEvery}, {&t.pingTimeout, &def.pingTimeout}, {&t.helloTimeout, &def.helloTimeout},
		{&t.backoffMin, &def.backoffMin}, {&t.backoffMax, &def.backoffMax}, {&t.stableAfter, &def.stableAfter},
	} {
		if *f.got <= 0 {
			*f.got = *f.def
		}
	}
	return t
}

// UnreachableError is a call to a host that is not up: nothing was sent.
type UnreachableError struct {
	Host    string
	State   State // Connecting or Unreachable
	Reason  string
	NextTry time.Time
}

func (e *UnreachableError) Error() string {
	if e.State == Connecting {
		return fmt.Sprintf("%s: still connecting; nothing was sent", e.Host)
	}
	return fmt.Sprintf("%s is unreachable: %s; nothing was sent", e.Host, e.Reason)
}

// LostError is a request that went out (or may have) and got no answer: the connection ended, or
// the caller's context ran out first. What it did on the host is unknown.
type LostError struct {
	Host   string
	Method string
	Cause  string
}

func (e *LostError) Error() string {
	return fmt.Sprintf("no answer from %s to %s (%s): whether it happened there is unknown", e.Host, e.Method, e.Cause)
}

// RemoteError is the host's own error answer to a request.
type RemoteError struct {
	Host    string
	Method  string
	Message string
	Reason  string // the control protocol's reason (agent.Reason...), when the host gave one
	Effect  string // what the request may have done there ("none", "unknown", ...)
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("%s answered %s with an error: %s", e.Host, e.Method, e.Message)
}

// clean makes a line from another host fit a message: control characters out, bounded.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		cut := 300
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
