package views

import (
	"slices"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// Keys first: a key a view sent never waits behind drawing. tview's loop takes keys and queued
// updates (host events, paced frames, the clock) in whatever order they come, and draws after
// each; under a flood every one of those draws is a frame of many panes, and a burst of keys
// (a paste-less burst, or keys typed while the UI goroutine waited for a core) would wait for
// one frame per key and per update. Instead, while a key waits in the queue (the Mirror counts
// keys from their post until captureKey takes them), every draw leaves its work to the draw
// that follows the last waiting key: updates still apply their state at once, and whatever
// they asked to draw (a paced frame, the chrome, an echo) is drawn by that one frame. The key
// therefore waits for at most the event or update in hand, never for a backlog of frames.
//
// Keys typed together (read from a view's terminal at once) also go to the program together:
// while a key waits behind the one typed into a pane, the pane's program is corked
// (host.Process.Cork), and the last key's uncorks it, so the program gets them in one write, as
// tmux writes the keys of one read, not a write (a wake-up, maybe an echo and a frame) a key.
//
// Only a server's App (a Mirror) knows what waits; an App on one terminal draws as before.

// keysFirst counts what the rule did, for the log and for tests, and holds the programs corked
// (UI goroutine).
type keysFirst struct {
	taken    int // keys the App took from a view
	behind   int // of those, keys taken while another key waited behind them
	deferred int // draws left to the draw after a waiting key
	updates  int // updates applied while a key waited
	corked   []*host.Process
}

// typeKey types ev into pane p, with the keys waiting behind it: they go to the program in one
// write. UI goroutine.
func (a *App) typeKey(p *Pane, ev *tcell.EventKey) {
	if proc := p.inst.Process(); proc != nil && a.keysWaiting() {
		if !slices.Contains(a.kf.corked, proc) {
			proc.Cork()
			a.kf.corked = append(a.kf.corked, proc)
		}
	}
	p.term.Key(ev)
	if !a.keysWaiting() {
		a.uncork()
	}
}

// uncork lets the keys held for programs go, once no key waits any more; every draw calls it (a
// draw follows every key: the last key's uncorks whatever it went to). UI goroutine.
func (a *App) uncork() {
	for _, proc := range a.kf.corked {
		proc.Uncork()
	}
	clear(a.kf.corked)
	a.kf.corked = a.kf.corked[:0]
}

// keysWaiting reports whether a key waits in the queue. Any goroutine.
func (a *App) keysWaiting() bool { return a.mirror != nil && a.mirror.KeysWaiting() }

// keyTaken notes that the UI goroutine took key ev from the queue.
func (a *App) keyTaken(ev *tcell.EventKey) {
	if a.mirror == nil {
		return
	}
	a.mirror.KeyTaken(ev)
	a.kf.taken++
	if a.mirror.KeysWaiting() {
		a.kf.behind++
	}
}

// logKeysFirst logs what the rule did over the App's run (a server's App only).
func (a *App) logKeysFirst() {
	if a.mirror == nil {
		return
	}
	a.logf("keys first: %d keys taken, %d of them with more keys waiting; %d draws and %d updates left to the draw after a waiting key; %d frames shown while a key waited; %d keys typed through a lane",
		a.kf.taken, a.kf.behind, a.kf.deferred, a.kf.updates, a.mirror.ShownWhileKeysWaited(), a.laned.Load())
}
