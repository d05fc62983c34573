package views

import (
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/keymap"
)

// rootView is the whole screen: the panes, the floating pane, the side panel, the status bar
// and any overlay. It places them on every draw and routes the mouse and pastes.
type rootView struct {
	*tview.Box
	a *App
}

// Draw lays out and draws what changed (UI goroutine). A full frame draws everything; otherwise
// only panes whose programs drew since the last frame, and what lies over them.
func (r *rootView) Draw(screen tcell.Screen) {
	a := r.a
	if a.keysWaiting() {
		a.kf.deferred++ // the draw after the key draws what this one would have (keysfirst.go)
		return
	}
	a.uncork() // the keys typed together go to their programs (keysfirst.go)
	if a.changed != nil {
		a.changed()
	}
	_, _, w, h := r.GetRect()
	if a.lastSize != [2]int{w, h} {
		a.lastSize, a.full = [2]int{w, h}, true // a resize: everything moves
	}
	full, chrome, due, viewFrame := a.full, a.full || a.chrome, a.frameDue, a.viewFrame
	a.full, a.chrome, a.frameDue, a.viewFrame = false, false, false, false
	now := time.Now()
	bg := a.theme.Background
	if full {
		for j := 0; j < h; j++ {
			for i := 0; i < w; i++ {
				screen.SetContent(i, j, ' ', nil, bg)
			}
		}
	}
	// The bar and the panel skip a draw that would change nothing, unless something drew over
	// them: a full frame, or an overlay shown now or in the frame before.
	overlay := a.view.confirm != nil || a.restoreAsk != nil || a.prompt.open || a.input != nil || a.help.open || a.tree.open
	if full || overlay || a.overlayWas {
		a.status.Invalidate()
		a.panel.Invalidate()
	}
	stale := full || overlay || a.overlayWas || a.paneNumbersShown()
	a.overlayWas = overlay
	ws := a.workspaceRect(w, h)
	rects := a.tab.layout.Arrange(ws)
	shared := a.sharedBorders(w, h)
	redrew := full
	for id, rect := range rects {
		p := a.panes[id]
		if p == nil {
			continue
		}
		if stale {
			p.invalidate() // a terminal redraws only its changed rows, unless drawn over
		}
		dirty := p.drawn != rect
		if due || full || chrome {
			dirty = p.dirty.Swap(false) || dirty
		}
		// A pane without the focus whose program keeps drawing (a build log, yes) is shown at
		// most 20 times a second: nobody reads faster, and its frames would delay the focused
		// pane's echo.
		if dirty && !full && !viewFrame && id != a.tab.focus && p.drawn == rect {
			if wait := background - now.Sub(p.at); wait > 0 {
				p.dirty.Store(true)
				a.drawLater(wait)
				dirty = false
			}
		}
		p.focused = id == a.tab.focus && a.view.mode != keymap.ModeCard && !a.panel.focused
		p.zoomed = a.tab.layout.Zoomed() == id
		p.shared, p.sepRight = shared, shared && rect.X+rect.W < ws.X+ws.W
		p.SetRect(rect.X, rect.Y, rect.W, rect.H)
		if chrome || dirty {
			p.keepTitle = a.echoDraw
			p.drawFrame(screen)
		}
		if full || dirty {
			p.drawContent(screen)
			p.drawn, p.at = rect, now
		}
		redrew = redrew || chrome || dirty
	}
	if full && a.tab.layout.Empty() && !(a.tab.floatShown && a.tab.floatID != "") {
		msg := "No panes. " + a.keys.Prefix.String() + " C opens a shell, " + a.keys.Prefix.String() + " : opens a Tick, " + a.keys.Prefix.String() + " Q quits."
		drawText(screen, ws.X+2, ws.Y+ws.H/2, ws.W-4, plain(msg, a.theme.PanelMuted), bg)
	}
	a.drawPaneNumbers(screen, rects) // while shown (prefix q), over every frame
	if a.tab.floatID != "" && a.tab.floatShown {
		if p := a.panes[a.tab.floatID]; p != nil && (redrew || (due && p.dirty.Swap(false))) {
			fr := a.floatRect(w, h)
			p.focused = a.tab.focus == a.tab.floatID && a.view.mode != keymap.ModeCard
			p.shared, p.sepRight = false, false // it floats: its own box
			p.SetRect(fr.X, fr.Y, fr.W, fr.H)
			p.invalidate() // the panes below may have drawn over it
			p.Draw(screen)
			p.drawn = fr
		}
	}
	if chrome && a.panelVisible(w) {
		pw := panelWidth(w)
		a.panel.SetRect(w-pw, 0, pw, h-1)
		a.panel.Draw(screen)
	}
	if a.retitleStatus() || chrome { // the bar skips a draw that changes nothing
		a.status.SetRect(0, h-1, w, 1)
		a.status.now = a.now()
		a.status.Draw(screen)
	}
	if a.restoreAsk != nil {
		drawText(screen, 0, h-1, w, line{{" " + a.restoreAsk.question + " (y/n) ", a.theme.Badge}}, a.theme.StatusBar)
	} else if a.view.confirm != nil {
		drawText(screen, 0, h-1, w, line{{" " + a.view.confirm.question + " (y/n) ", a.theme.Badge}}, a.theme.StatusBar)
	}
	if a.prompt.open {
		a.prompt.draw(screen, w, h)
	}
	a.drawInput(screen, w, h)
	if a.help.open {
		a.help.draw(screen, w, h)
	}
	if a.tree.open {
		a.tree.draw(screen, w, h)
	}
	// The terminal cursor belongs to the focused pane, unless an overlay has it.
	if !a.prompt.open && !a.help.open && !a.tree.open && a.input == nil {
		if p := a.focusedPane(); p != nil && p.focused && a.view.mode != keymap.ModeScroll {
			p.term.PlaceCursor(screen)
		} else {
			screen.HideCursor()
		}
	}
}

// MouseHandler focuses what is clicked, drags borders, scrolls the panel, and passes the rest to
// the pane under the pointer (which forwards it to its program only if the program asked).
func (r *rootView) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
	return r.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
		a := r.a
		a.full = true
		if a.prompt.open || a.help.open || a.tree.open || a.view.confirm != nil || a.restoreAsk != nil || a.input != nil {
			return true, nil
		}
		x, y := event.Position()
		w, h := a.screenSize()

		// A border drag in progress.
		if a.drag != nil {
			switch action {
			case tview.MouseMove:
				a.tab.layout.Drag(a.drag, x, y)
			case tview.MouseLeftUp:
				a.tab.layout.Drag(a.drag, x, y)
				a.drag = nil
			}
			return true, nil
		}

		// The status bar: click a tab to show it, an instance to focus its pane (a second
		// click soon after the first is a double click to tview: the same).
		if y == h-1 {
			if action == tview.MouseLeftClick || action == tview.MouseLeftDoubleClick {
				if i, ok := a.status.TabAt(x); ok {
					a.switchTab(i)
					a.rebuild()
				} else if id := a.status.At(x); id != "" {
					if id == a.tab.floatID {
						a.tab.floatShown = true
					}
					a.setFocus(id)
					a.rebuild()
				}
			}
			return true, nil
		}
		// The side panel.
		if a.panelVisible(w) && x >= w-panelWidth(w) {
			switch action {
			case tview.MouseScrollUp:
				a.panel.ScrollBy(-3)
			case tview.MouseScrollDown:
				a.panel.ScrollBy(3)
			case tview.MouseLeftClick:
				a.panel.focused = true
			}
			return true, nil
		}
		// The floating pane is on top.
		if a.tab.floatID != "" && a.tab.floatShown {
			if fr := a.floatRect(w, h); fr.Contains(x, y) {
				return r.toPane(a.panes[a.tab.floatID], action, event, setFocus)
			}
		}
		if action == tview.MouseLeftDown {
			if b := a.tab.layout.BorderAt(x, y); b != nil && a.tab.layout.Zoomed() == "" {
				a.drag = b
				return true, nil
			}
		}
		for id, rect := range a.tab.layout.Arrange(a.workspaceRect(w, h)) {
			if rect.Contains(x, y) {
				if action == tview.MouseLeftDown && a.tab.floatShown && a.tab.focus == a.tab.floatID {
					a.tab.floatShown = false
				}
				return r.toPane(a.panes[id], action, event, setFocus)
			}
		}
		return true, nil
	})
}

func (r *rootView) toPane(p *Pane, action tview.MouseAction, event *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
	a := r.a
	if p == nil {
		return true, nil
	}
	if action == tview.MouseLeftDown || action == tview.MouseLeftClick {
		if a.view.mode == keymap.ModeCard || a.view.mode == keymap.ModePrefix {
			a.view.mode = keymap.ModeRoot
		}
		a.setFocus(p.ID())
		a.rebuild()
	}
	p.term.Mouse(action, event)
	return true, nil
}

// PasteHandler sends a paste to the prompt or the focused pane (bracketed when its program
// asked for it).
func (r *rootView) PasteHandler() func(text string, setFocus func(p tview.Primitive)) {
	return r.WrapPasteHandler(func(text string, setFocus func(p tview.Primitive)) {
		a := r.a
		if a.prompt.open {
			a.prompt.paste(text)
			return
		}
		if a.input != nil {
			a.inputPaste(text)
			return
		}
		if a.view.mode != keymap.ModeRoot && a.view.mode != keymap.ModeLocked {
			return // a paste never answers a card or drives scroll mode
		}
		if p := a.focusedPane(); p != nil {
			p.term.Paste(text)
		}
	})
}
