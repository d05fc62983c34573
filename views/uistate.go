package views

import (
	"fmt"
	"time"
)

// uiState is the App's UI-goroutine state for tabs, the paste buffer, the last pane, pane
// numbers and one-line questions (kept here, apart from app.go).
type uiState struct {
	// tabs are tmux's windows, in order; App.tab is one of them, the shown one. There is
	// always one at least.
	tabs []*tab

	lastPane     string    // the pane focused before the current one (prefix ;)
	pasteBuf     string    // what copy mode copied last (prefix ])
	pasteBufs    []string  // the last copies, newest first, pasteBuf among them (prefix =)
	numbersUntil time.Time // pane numbers show until then, or the next key (prefix q)
	input        *lineInput
}

// tab is one tab's state, the same whether it is shown (App.tab) or not: the App reads and
// changes the shown tab's through App.tab, as tmux a session's current window.
type tab struct {
	name       string // "" names it after its focused pane
	layout     Layout
	focus      string // the focused pane's id
	floatID    string // the floating pane, "" when none
	floatShown bool
	lastTiled  string // the tile focused before the float took the focus
	floatPlace Place  // where the floating pane was among the tiles
}

// tabItem is a tab as the status bar lists it.
type tabItem struct {
	index   int
	name    string
	current bool
	zoomed  bool // a pane of the tab is zoomed: tmux's Z flag
}

// maxPasteBuffers is how many copies the paste buffers keep (tmux's buffer-limit is 50; the
// chooser lists them all on one screen).
const maxPasteBuffers = 20

// addPasteBuffer keeps text as the newest paste buffer: prefix ] pastes it, prefix = lists it
// first. The oldest beyond maxPasteBuffers goes.
func (a *App) addPasteBuffer(text string) {
	a.pasteBuf = text
	a.pasteBufs = append([]string{text}, a.pasteBufs[:min(len(a.pasteBufs), maxPasteBuffers-1)]...)
}

// pasteBuffers lists the paste buffers, newest first. A copy that reached pasteBuf alone (set
// directly, not through addPasteBuffer) is kept first.
func (a *App) pasteBuffers() []string {
	if a.pasteBuf != "" && (len(a.pasteBufs) == 0 || a.pasteBufs[0] != a.pasteBuf) {
		a.addPasteBuffer(a.pasteBuf)
	}
	return a.pasteBufs
}

// tabSegs adds the tab list to the status bar's line when there are two tabs or more: "0:main*
// 1:build", the current one marked as tmux marks it. It notes where each tab went, for a click.
func (b *StatusBar) tabSegs(l line, used *int, avail int) line {
	b.tabSpans = b.tabSpans[:0]
	if len(b.tabs) < 2 {
		return l
	}
	th := b.theme
	for i, t := range b.tabs {
		if *used >= avail {
			break
		}
		if i > 0 { // a space between tabs, as tmux's status line has
			l = append(l, seg{" ", th.StatusBar})
			*used++
		}
		st := th.StatusBar
		mark := ""
		if t.current {
			st, mark = th.StatusAccent, "*"
		}
		if t.zoomed {
			mark += "Z"
		}
		s := untrusted(fmt.Sprintf("%d:%s%s", t.index, shorten(t.name, 16), mark), st)
		l = append(l, s)
		from := *used
		*used += width(s.text)
		b.tabSpans = append(b.tabSpans, tabSpan{t.index, from, min(*used, avail)})
	}
	l = append(l, seg{" ", th.StatusBar})
	*used++
	return l
}
