package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick"
	"tickmux/tick/wire"
)

func init() {
	register(Example{
		Name:    "counter",
		Summary: "one number that the keyboard and the increment tool share",
		Run: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("counter takes no arguments")
			}
			c, err := newCounter()
			if err != nil {
				return err
			}
			return c.srv.Run(ctx, &tick.UI{Draw: c.draw, Key: c.key})
		},
	})
}

const (
	counterKept   = 256 // changes the history tool can return
	counterRecent = 10  // changes in the state
)

// counterChange is one change of the value, as the state and the history tool show it.
type counterChange struct {
	N     int64  `json:"n"`     // numbered from 1
	Delta int64  `json:"delta"` // what was added
	Value int64  `json:"value"` // the value after the change
	By    string `json:"by"`    // "key" or "tool"
	At    string `json:"at"`
}

// counterState is the data of each update.
type counterState struct {
	Value   int64           `json:"value"`
	Changes int64           `json:"changes"` // how many changes ever
	Recent  []counterChange `json:"recent"`  // the newest last (declared as a series)
}

type counter struct {
	srv *tick.Server

	mu      sync.Mutex
	value   int64
	total   int64
	changes []counterChange // the newest counterKept, oldest first
}

func newCounter() (*counter, error) {
	c := &counter{}
	srv, err := tick.New(tick.Tick{
		Kind:        "example.counter",
		Title:       "Counter",
		Description: "One integer that the person changes with keys and agents change with increment; recent changes are in the state.",
		Tools: []tick.ToolSpec{
			{
				Name:        "increment",
				Description: "Add an integer (negative to subtract) to the counter. Returns the new value and the change's number.",
				Mutates:     true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":-1000000,"maximum":1000000,"description":"How much to add."}},"required":["amount"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct {
					Amount int64 `json:"amount"`
				}) (any, error) {
					ch := c.change(a.Amount, "tool")
					return map[string]int64{"value": ch.Value, "n": ch.N}, nil
				}),
			},
			{
				Name:        "history",
				Description: fmt.Sprintf("Read the last %d changes of the counter, oldest first; since returns only the changes numbered above it.", counterKept),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"since":{"type":"integer","minimum":0,"description":"Only changes with n greater than this."}},"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct {
					Since int64 `json:"since"`
				}) (any, error) {
					return c.history(a.Since), nil
				}),
			},
		},
		RecoverWith: "history",
		State:       &wire.StateDeclaration{Series: []wire.Series{{Path: "/recent", Newest: wire.NewestLast}}},
	})
	if err != nil {
		return nil, err
	}
	c.srv = srv
	c.mu.Lock()
	defer c.mu.Unlock()
	return c, c.srv.Update(c.stateLocked())
}

// change adds delta and publishes the new state. The update is made under the lock, so updates
// go out in the order of the changes.
func (c *counter) change(delta int64, by string) counterChange {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.value += delta
	c.total++
	ch := counterChange{N: c.total, Delta: delta, Value: c.value, By: by, At: time.Now().UTC().Format(time.RFC3339)}
	c.changes = append(c.changes, ch)
	if len(c.changes) > counterKept {
		c.changes = append(c.changes[:0], c.changes[len(c.changes)-counterKept:]...)
	}
	_ = c.srv.Update(c.stateLocked()) // fails only once the Tick has stopped
	return ch
}

func (c *counter) stateLocked() counterState {
	recent := c.changes[max(0, len(c.changes)-counterRecent):]
	return counterState{Value: c.value, Changes: c.total, Recent: append([]counterChange{}, recent...)}
}

// counterHistory is the result of the history tool.
type counterHistory struct {
	Value   int64           `json:"value"`
	Changes []counterChange `json:"changes"`
	// Complete is false when changes after since were already forgotten.
	Complete bool `json:"complete"`
}

func (c *counter) history(since int64) counterHistory {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := counterHistory{Value: c.value, Changes: []counterChange{}, Complete: true}
	for _, ch := range c.changes {
		if ch.N > since {
			h.Changes = append(h.Changes, ch)
		}
	}
	if len(c.changes) > 0 && c.changes[0].N > since+1 {
		h.Complete = false
	}
	return h
}

func (c *counter) key(ev *tcell.EventKey) {
	switch {
	case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyRune && ev.Rune() == '+':
		c.change(1, "key")
	case ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyRune && ev.Rune() == '-':
		c.change(-1, "key")
	case ev.Key() == tcell.KeyRune && ev.Rune() == '0':
		c.mu.Lock()
		v := c.value
		c.mu.Unlock()
		if v != 0 {
			c.change(-v, "key")
		}
	}
}

func (c *counter) draw(screen tcell.Screen) {
	c.mu.Lock()
	value := c.value
	recent := append([]counterChange{}, c.changes[max(0, len(c.changes)-counterRecent):]...)
	c.mu.Unlock()

	w, h := screen.Size()
	bar(screen, 0, "Counter", "example.counter")
	s := strconv.FormatInt(value, 10)
	if bigWidth(s) <= w-2 && h >= 12 {
		big(screen, (w-bigWidth(s))/2, 2, styleBold, s)
	} else {
		text(screen, (w-len(s))/2, 2, w, styleBold, s)
	}
	y := 8
	text(screen, 2, y, w-2, styleDim, "recent changes")
	for i := len(recent) - 1; i >= 0 && y+1 < h-1; i-- {
		ch := recent[i]
		y++
		line := fmt.Sprintf("#%-4d %+d → %d", ch.N, ch.Delta, ch.Value)
		x := 2 + text(screen, 2, y, w-2, styleNormal, line)
		who := "  by " + ch.By
		if ch.By == "tool" {
			who = "  by an agent"
		}
		text(screen, x, y, w-x, styleDim, who)
	}
	bar(screen, h-1, "+/↑ add one   -/↓ subtract one   0 reset   Ctrl-C quit", "")
}
