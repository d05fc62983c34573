package server

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"sync"
	"time"

	"tickmux/host"
	"tickmux/host/journal"
	"tickmux/remote"
)

// notifyCommand runs the config's notify_command when a card starts waiting and no view is
// attached, with the card's summary as JSON on stdin (notify-send, a phone push, a chat bot).
// It runs at most once per notifyEvery (the cards it skips are logged), never longer than
// notifyTimeout, and never holds up the card: a failure is logged and that is all.
type notifyCommand struct {
	cmd   string
	logf  func(format string, args ...any)
	views func() int // attached views

	mu      sync.Mutex
	last    map[string]uint64 // the last card looked at, by host ("" this one: ids grow per host)
	lastRun time.Time
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

const (
	notifyEvery   = 10 * time.Second
	notifyTimeout = 30 * time.Second
)

// cardSummary is what notify_command reads on stdin. Every string is the agent's or the Tick's:
// the command must treat it as data.
type cardSummary struct {
	Card     uint64          `json:"card"`
	Kind     string          `json:"kind"`
	Client   string          `json:"client"`
	Instance string          `json:"instance,omitempty"`
	Title    string          `json:"title,omitempty"`
	Tool     string          `json:"tool,omitempty"`
	Revision string          `json:"revision,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	Argv     []string        `json:"argv,omitempty"`
	Text     string          `json:"text,omitempty"`
	Waiting  time.Time       `json:"waiting_since"`
	// Host is the host the card waits on ([[hosts]]), absent for this one.
	Host string `json:"host,omitempty"`
}

func newNotifyCommand(cmd string, logf func(string, ...any), views func() int) *notifyCommand {
	n := &notifyCommand{cmd: cmd, logf: logf, views: views, last: map[string]uint64{}}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	return n
}

// changed looks at the cards after any change to the queue. Any goroutine; never blocks.
func (n *notifyCommand) changed(cards []host.Card) {
	if n == nil || n.cmd == "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range cards {
		if c.ID <= n.last[c.Req.Host] {
			continue
		}
		n.last[c.Req.Host] = c.ID
		if n.views() > 0 {
			continue // the views rang
		}
		if n.closed {
			return
		}
		if !n.lastRun.IsZero() && time.Since(n.lastRun) < notifyEvery {
			n.logf("notify_command: not run for card %d: it ran less than %v ago", c.ID, notifyEvery)
			continue
		}
		n.lastRun = time.Now()
		r := c.Req
		in, _ := json.Marshal(cardSummary{Card: c.ID, Kind: string(r.Action), Client: r.Client, Instance: r.Instance,
			Title: r.Title, Tool: r.Tool, Revision: r.Revision, Args: capJSON(r.Args), Argv: r.Argv, Text: capString(r.Text), Waiting: c.Created, Host: r.Host})
		n.wg.Add(1)
		go n.run(c.ID, in) // owner: the notifier; returns when the command ends, by notifyTimeout or close
	}
}

func (n *notifyCommand) run(card uint64, stdin []byte) {
	defer n.wg.Done()
	ctx, cancel := context.WithTimeout(n.ctx, notifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", n.cmd)
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		msg := out.String()
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		n.logf("notify_command for card %d failed: %v; it printed: %q (fix notify_command in the config file)", card, err, msg)
	}
}

// notifyGrace is how long the server's stop waits for a command still running before it ends it.
const notifyGrace = 2 * time.Second

// close starts no more commands, gives those running notifyGrace to finish, ends the rest, and
// waits for them.
func (n *notifyCommand) close() {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { // owner: close; returns when the last command has ended
		n.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(notifyGrace):
		n.cancel()
		<-done
	}
	n.cancel()
}

// capJSON keeps args up to 4 KiB; larger ones are replaced by a note (the card has them all).
func capJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) <= 4096 {
		return raw
	}
	b, _ := json.Marshal("(args of more than 4 KiB: see the card)")
	return b
}

func capString(s string) string {
	if len(s) <= 4096 {
		return s
	}
	return s[:4096] + "…"
}

// openJournal opens the approval journal; when it cannot, the log says why and the host's
// writes say it again on the panel (the Journal retries at each entry).
func openJournal(dir string, maxTotal int64, logf func(string, ...any)) *journal.Journal {
	if dir == "" {
		d, err := journal.DefaultDir()
		if err != nil {
			logf("journal: %v", err)
		}
		dir = d
	}
	j, err := journal.Open(dir, maxTotal)
	if err != nil {
		logf("journal: %v; cards and calls go on unrecorded until it can be written", err)
	}
	return j
}

// localCards is the other hosts' cards as this host's notifier reads them.
func localCards(hcs []remote.HostCard) []host.Card {
	out := make([]host.Card, len(hcs))
	for i, hc := range hcs {
		out[i] = hc.Local()
	}
	return out
}
