package views

import (
	"github.com/gdamore/tcell/v2"

	"tickmux/vt"
)

// MultiView is what the App needs of a screen that several views draw on and type into: a
// server's (server/mirror.Mirror). New finds it by asserting Options.Screen; an App on one
// terminal has none. The App learns which view sent an event, which views come and go, and
// where a paste starting now goes; it asks the screen to drop a view, whether a frame would
// reach anybody, and whether a key waits in the queue (keys first: keysfirst.go).
type MultiView interface {
	// OnViews sets the function told of a view that attaches or leaves, or is about to attach
	// (id empty). Any goroutine calls it.
	OnViews(f func(id string, attached bool))
	// OnPaste sets the function that chooses where a paste starting now goes; it runs on the UI
	// goroutine, and post runs a function there after everything the view sent before.
	OnPaste(f func(post func(func())) PasteSink)
	// OnLane sets the function that opens a typing lane for view id (lane.go), nil when a key
	// typed now would not go to a pane as it is. It runs on the UI goroutine, after everything
	// the view sent before.
	OnLane(f func(id string) Lane)
	// TakeMark is what to run for ev when it marks a paste's start or end, nil when it marks
	// none. UI goroutine.
	TakeMark(ev *tcell.EventKey) func()
	// OriginOf is the view that sent ev, "" when none did. UI goroutine.
	OriginOf(ev tcell.Event) string
	// Detach drops view id, telling it reason. Any goroutine.
	Detach(id, reason string)
	// Drawing reports whether a frame reaches anybody: a view is attached or expected.
	Drawing() bool
	// KeysWaiting reports whether a key a view sent waits in the queue. Any goroutine.
	KeysWaiting() bool
	// KeyTaken notes that the App took ev from the queue. UI goroutine.
	KeyTaken(ev tcell.Event)
	// ShownWhileKeysWaited is how many frames went to the views while a key waited (the log).
	ShownWhileKeysWaited() int
}

// PasteSink is where one paste goes, as the view's reader goroutine writes it: its text, piece
// by piece, then its end (once). A key read inside a paste (a screen that reads a paste as
// keys, as tcell's does) goes in as the bytes it stands for. quit closes when the view leaves.
// An alias of an interface literal: the Mirror names the same type without importing views.
type PasteSink = interface {
	Write(b []byte, quit <-chan struct{})
	WriteKey(ev *tcell.EventKey, quit <-chan struct{})
	End()
}

// viewPaste is a paste's sink as a multi-view screen writes it.
type viewPaste struct{ s pasteSink }

func (p viewPaste) Write(b []byte, quit <-chan struct{}) { p.s.write(b, quit) }
func (p viewPaste) WriteKey(ev *tcell.EventKey, quit <-chan struct{}) {
	p.s.write(encodeKey(ev, vt.Modes{}), quit)
}
func (p viewPaste) End() { p.s.end() }

// choosePaste is pasteSink for a multi-view screen (UI goroutine).
func (a *App) choosePaste(post func(func())) PasteSink { return viewPaste{a.pasteSink(post)} }
