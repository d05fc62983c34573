package examples

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick"
	"tickmux/tick/wire"
)

func init() {
	register(Example{
		Name:    "clock",
		Summary: "a clock: one update per tick, recent ticks declared as a time series",
		Usage:   "[--every D]",
		Run:     runClock,
	})
}

const clockSamples = 10 // ticks kept in the state

func runClock(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("clock", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	every := flags.Duration("every", time.Second, "time between ticks")
	if err := flags.Parse(args); err != nil {
		return fmt.Errorf("%w; usage: clock [--every D]", err)
	}
	if *every < 10*time.Millisecond {
		return errors.New("--every must be at least 10ms")
	}
	c, err := newClock(*every)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	// Owned by runClock: ends when Run has returned and cancel is called.
	go func() {
		defer close(done)
		c.tickLoop(ctx)
	}()
	err = c.srv.Run(ctx, &tick.UI{Draw: c.draw, Key: c.key})
	cancel()
	<-done
	return err
}

// clockSample is one tick: when it fired and how late, a real time series.
type clockSample struct {
	At    string  `json:"at"`
	LagMS float64 `json:"lag_ms"` // how long after its scheduled instant the tick ran
}

// clockState is the data of each update.
type clockState struct {
	Time    string        `json:"time"` // local wall clock, 15:04:05
	Date    string        `json:"date"`
	Zone    string        `json:"zone"`
	EveryMS int64         `json:"every_ms"`
	Paused  bool          `json:"paused"`
	Ticks   int64         `json:"ticks"`
	Samples []clockSample `json:"samples"` // the newest last (declared as a series)
}

type clock struct {
	srv   *tick.Server
	every time.Duration

	mu      sync.Mutex
	now     time.Time
	paused  bool
	ticks   int64
	samples []clockSample
}

func newClock(every time.Duration) (*clock, error) {
	c := &clock{every: every, now: time.Now()}
	srv, err := tick.New(tick.Tick{
		Kind:        "example.clock",
		Title:       "Clock",
		Description: fmt.Sprintf("A wall clock that sends an update every %v with the time and the latest tick timings.", every),
		Tools: []tick.ToolSpec{
			{
				Name:        "set_paused",
				Description: "Pause or resume the clock. While paused it sends no updates and its screen stands still.",
				Mutates:     true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"paused":{"type":"boolean"}},"required":["paused"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct {
					Paused bool `json:"paused"`
				}) (any, error) {
					return map[string]bool{"paused": c.setPaused(a.Paused)}, nil
				}),
			},
			{
				Name:        "time_in",
				Description: "The current time in an IANA time zone such as Europe/Paris.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string","minLength":1,"description":"An IANA time zone name."}},"required":["zone"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct {
					Zone string `json:"zone"`
				}) (any, error) {
					loc, err := time.LoadLocation(a.Zone)
					if err != nil {
						return nil, &wire.ResponseError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("unknown time zone %q; use an IANA name such as Europe/Paris", a.Zone)}
					}
					now := time.Now().In(loc)
					return map[string]string{"zone": loc.String(), "time": now.Format(time.RFC3339), "weekday": now.Weekday().String()}, nil
				}),
			},
		},
		State: &wire.StateDeclaration{Series: []wire.Series{{Path: "/samples", Newest: wire.NewestLast}}},
	})
	if err != nil {
		return nil, err
	}
	c.srv = srv
	c.mu.Lock()
	defer c.mu.Unlock()
	return c, srv.Update(c.stateLocked())
}

// tickLoop ticks on every whole multiple of c.every until ctx ends.
func (c *clock) tickLoop(ctx context.Context) {
	next := time.Now().Truncate(c.every).Add(c.every)
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case fired := <-timer.C:
			c.tick(fired, fired.Sub(next))
			next = next.Add(c.every)
			if behind := time.Now(); next.Before(behind) { // slept through ticks: skip them
				next = behind.Truncate(c.every).Add(c.every)
			}
			timer.Reset(time.Until(next))
		}
	}
}

func (c *clock) tick(now time.Time, lag time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		return
	}
	c.now = now
	c.ticks++
	c.samples = append(c.samples, clockSample{At: now.UTC().Format(time.RFC3339Nano), LagMS: float64(lag.Microseconds()) / 1000})
	if len(c.samples) > clockSamples {
		c.samples = append(c.samples[:0], c.samples[len(c.samples)-clockSamples:]...)
	}
	_ = c.srv.Update(c.stateLocked())
}

func (c *clock) setPaused(paused bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused != paused {
		c.paused = paused
		_ = c.srv.Update(c.stateLocked())
	}
	return c.paused
}

func (c *clock) stateLocked() clockState {
	zone, _ := c.now.Zone()
	return clockState{
		Time:    c.now.Format("15:04:05"),
		Date:    c.now.Format("2006-01-02"),
		Zone:    zone,
		EveryMS: c.every.Milliseconds(),
		Paused:  c.paused,
		Ticks:   c.ticks,
		Samples: append([]clockSample{}, c.samples...),
	}
}

func (c *clock) key(ev *tcell.EventKey) {
	if ev.Key() == tcell.KeyRune && (ev.Rune() == ' ' || ev.Rune() == 'p') {
		c.mu.Lock()
		paused := c.paused
		c.mu.Unlock()
		c.setPaused(!paused)
	}
}

func (c *clock) draw(screen tcell.Screen) {
	c.mu.Lock()
	st := c.stateLocked()
	c.mu.Unlock()

	w, h := screen.Size()
	bar(screen, 0, "Clock", "example.clock")
	style := styleBold
	if st.Paused {
		style = styleDim
	}
	if bigWidth(st.Time) <= w-2 && h >= 12 {
		big(screen, (w-bigWidth(st.Time))/2, 2, style, st.Time)
	} else {
		text(screen, (w-len(st.Time))/2, 2, w, style, st.Time)
	}
	line := st.Date + "  " + st.Zone
	if st.Paused {
		line += "  (paused)"
	}
	text(screen, (w-len([]rune(line)))/2, 8, w, styleNormal, line)
	y := 10
	text(screen, 2, y, w-2, styleDim, fmt.Sprintf("tick %d, every %v; lag of the latest ticks:", st.Ticks, c.every))
	for i := len(st.Samples) - 1; i >= 0 && y+1 < h-1; i-- {
		y++
		s := st.Samples[i]
		at, _ := time.Parse(time.RFC3339Nano, s.At)
		text(screen, 4, y, w-4, styleNormal, fmt.Sprintf("%s  %6.2f ms", at.Local().Format("15:04:05.000"), s.LagMS))
	}
	bar(screen, h-1, "space pause/resume   Ctrl-C quit", "")
}
