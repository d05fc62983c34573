package views

import "fmt"

// uiState is the App's UI-goroutine state for the float's place, tabs, the paste buffer, the
// last pane and the prompt's history (kept here, apart from app.go).
type uiState struct {
	floatPlace Place // where the floating pane was among the tiles
}

// tabItem is a tab as the status bar lists it.
type tabItem struct {
	index   int
	name    string
	current bool
}

// tabSegs adds the tab list to the status bar's line when there are two tabs or more: "0:main
// 1:build*", the current one marked as tmux marks it.
func (b *StatusBar) tabSegs(l line, used *int, avail int) line {
	if len(b.tabs) < 2 {
		return l
	}
	th := b.theme
	for _, t := range b.tabs {
		if *used >= avail {
			break
		}
		st := th.StatusBar
		mark := " "
		if t.current {
			st, mark = th.StatusAccent, "*"
		}
		s := untrusted(fmt.Sprintf("%d:%s%s", t.index, shorten(t.name, 16), mark), st)
		l = append(l, s)
		*used += width(s.text)
	}
	l = append(l, seg{" ", th.StatusBar})
	*used++
	return l
}
