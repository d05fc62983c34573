package tick

import (
	"context"

	"github.com/gdamore/tcell/v2"
)

// UI is a Tick's terminal interface, drawn with tcell on the controlling terminal, which tickmux
// shows in the Tick's pane. It never writes to stdout.
//
// Draw and Key run on the UI goroutine only, one at a time; anything they share with tool
// handlers needs a lock. Other goroutines ask for a new frame with Server.Redraw (Update does it
// for them); requests made while a frame is due collapse into one.
type UI struct {
	// Draw paints the whole screen on a cleared buffer, the cursor hidden (Draw may show it);
	// the SDK shows the frame afterwards. It runs at start, after each key and resize, and after
	// Update or Redraw. Text put on the screen it gets has control characters replaced by
	// U+FFFD, so text from agents or files cannot send escape sequences to the terminal.
	Draw func(screen tcell.Screen)
	// Key handles one key press; the screen is drawn again afterwards. Optional. Ctrl-C never
	// reaches it: it stops the Tick, as it would stop any terminal program.
	Key func(ev *tcell.EventKey)
}

// uiLoop runs a UI on a screen. It is created by serve and owned by its goroutine.
type uiLoop struct {
	ui     UI
	screen tcell.Screen
	poke   chan struct{} // capacity 1: a frame is due
	stop   func()        // stops the whole Tick (Ctrl-C)
}

func newUILoop(ui UI, screen tcell.Screen, stop func()) *uiLoop {
	return &uiLoop{ui: ui, screen: screen, poke: make(chan struct{}, 1), stop: stop}
}

// redraw asks for a frame; safe from any goroutine, never blocks.
func (l *uiLoop) redraw() {
	select {
	case l.poke <- struct{}{}:
	default:
	}
}

// run draws and handles events until ctx ends or the screen goes away, then calls Fini, which
// restores the terminal. A panic in Draw or Key restores the terminal before it goes on.
func (l *uiLoop) run(ctx context.Context) {
	events := make(chan tcell.Event, 16)
	quit := make(chan struct{})
	done := make(chan struct{})
	// Owned by this loop: ends when quit is closed or the screen is finalised; closes events.
	go func() {
		defer close(done)
		l.screen.ChannelEvents(events, quit)
	}()
	defer func() {
		close(quit)
		l.screen.Fini()
		<-done
	}()

	l.draw()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.poke:
			l.draw()
		case ev, ok := <-events:
			if !ok {
				return
			}
			switch ev := ev.(type) {
			case *tcell.EventResize:
				l.screen.Sync()
				l.draw()
			case *tcell.EventKey:
				if ev.Key() == tcell.KeyCtrlC {
					l.stop()
					return
				}
				if l.ui.Key != nil {
					l.ui.Key(ev)
				}
				l.draw()
			}
		}
	}
}

func (l *uiLoop) draw() {
	l.screen.Clear()
	l.screen.HideCursor()
	if l.ui.Draw != nil {
		l.ui.Draw(safeScreen{l.screen})
	}
	l.screen.Show()
}
