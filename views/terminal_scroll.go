package views

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode"

	"github.com/gdamore/tcell/v2"

	"tickmux/keymap"
	"tickmux/vt"
)

// scrollMode is the view's scroll and copy mode over the whole buffer (scrollback, then
// screen): a cursor that moves by lines and columns, a selection from an anchor to the cursor,
// and a search. Lines are numbered from the oldest line of the scrollback.
type scrollMode struct {
	scroll    int // lines back from the live screen
	line, col int // the cursor
	anchor    *[2]int
	lines     bool // the selection is of whole lines (V), from the anchor's line to the cursor's
	searching bool
	forward   bool
	query     []rune
	last      string // the last query searched
	lastFwd   bool
	match     [3]int // line, first column, columns past the last (match[2] == 0: none)
	message   string
}

// StartScroll enters scroll mode with the cursor where the program's is.
func (v *TerminalView) StartScroll() {
	if v.sm != nil {
		return
	}
	c := v.term.Cursor()
	v.sm = &scrollMode{scroll: v.scroll, line: v.term.ScrollbackLen() + c.Y, col: c.X}
	v.sm.follow(v)
}

// StopScroll leaves scroll mode, back to the live screen.
func (v *TerminalView) StopScroll() {
	v.sm = nil
	v.scroll = 0
}

// Scrolling reports whether the view is in scroll mode.
func (v *TerminalView) Scrolling() bool { return v.sm != nil }

// Live reports that the view is neither scrolled back with the wheel nor in scroll mode.
func (v *TerminalView) Live() bool { return v.scroll == 0 && v.sm == nil }

// Searching reports whether a search query is being typed (after / or ?): every key then
// belongs to the query until Enter or Esc.
func (v *TerminalView) Searching() bool { return v.sm != nil && v.sm.searching }

// Selection is the text Copy would copy now: the selection, or the cursor's line.
func (v *TerminalView) Selection() string {
	if v.sm == nil {
		return ""
	}
	return v.sm.selectedText(v)
}

// ScrollAction performs a scroll-mode action.
func (v *TerminalView) ScrollAction(act keymap.Action) {
	sm := v.sm
	if sm == nil {
		return
	}
	sm.message = ""
	_, _, _, h := v.GetInnerRect()
	total := v.term.ScrollbackLen() + v.rows()
	switch act {
	case keymap.ScrollUp:
		sm.line--
	case keymap.ScrollDown:
		sm.line++
	case keymap.PageUp:
		sm.line -= max(h-1, 1)
		sm.scroll += max(h-1, 1)
	case keymap.PageDown:
		sm.line += max(h-1, 1)
		sm.scroll -= max(h-1, 1)
	case keymap.ScrollTop:
		sm.line, sm.col = 0, 0
	case keymap.ScrollBottom:
		sm.line = total - 1
	case keymap.CursorLeft:
		sm.col = max(sm.col-1, 0)
	case keymap.CursorRight:
		sm.col = min(sm.col+1, v.cols()-1)
	case keymap.SearchForward, keymap.SearchBackward:
		sm.searching, sm.forward, sm.query = true, act == keymap.SearchForward, nil
	case keymap.SearchNext: // again, in the search's direction (as vi and tmux)
		sm.search(v, sm.last, sm.lastFwd)
	case keymap.SearchPrev: // again, the other way; the search keeps its direction
		sm.search(v, sm.last, !sm.lastFwd)
	case keymap.StartSelection, keymap.SelectLine:
		lines := act == keymap.SelectLine
		if sm.anchor != nil && sm.lines == lines {
			sm.anchor = nil
		} else {
			if sm.anchor == nil {
				sm.anchor = &[2]int{sm.line, sm.col}
			}
			sm.lines = lines
		}
	case keymap.LineStart:
		sm.col = 0
	case keymap.LineEnd:
		sm.col = max(sm.lineEnd(v, sm.line), 0)
	case keymap.NextWord, keymap.PrevWord, keymap.WordEnd:
		sm.line, sm.col = sm.word(v, act, total)
	case keymap.ScreenTop, keymap.ScreenMiddle, keymap.ScreenBottom:
		top := v.term.ScrollbackLen() - sm.scroll
		rows := min(h, v.rows())
		switch act {
		case keymap.ScreenTop:
			sm.line = top
		case keymap.ScreenMiddle:
			sm.line = top + (rows-1)/2
		default:
			sm.line = top + rows - 1
		}
	case keymap.HalfPageUp:
		sm.line -= max(h/2, 1)
		sm.scroll += max(h/2, 1)
	case keymap.HalfPageDown:
		sm.line += max(h/2, 1)
		sm.scroll -= max(h/2, 1)
	case keymap.Copy:
		v.setClipboard(sm.selectedText(v))
		v.StopScroll()
		return
	case keymap.ExitMode:
		v.StopScroll()
		return
	}
	sm.line = clampInt(sm.line, 0, total-1)
	sm.follow(v)
}

// ScrollKey handles a key in scroll mode that the keymap did not bind: the text of a search,
// and vi-like keys.
func (v *TerminalView) ScrollKey(ev *tcell.EventKey) {
	sm := v.sm
	if sm == nil {
		return
	}
	if sm.searching {
		switch ev.Key() {
		case tcell.KeyRune:
			sm.query = append(sm.query, ev.Rune())
		case tcell.KeyBackspace, tcell.KeyBackspace2:
			if len(sm.query) > 0 {
				sm.query = sm.query[:len(sm.query)-1]
			}
		case tcell.KeyEnter:
			sm.searching = false
			if len(sm.query) > 0 {
				sm.last, sm.lastFwd = string(sm.query), sm.forward
			}
			sm.search(v, string(sm.query), sm.forward)
		case tcell.KeyEscape, tcell.KeyCtrlC:
			sm.searching = false
		}
		return
	}
	keys := map[tcell.Key]keymap.Action{
		tcell.KeyUp: keymap.ScrollUp, tcell.KeyDown: keymap.ScrollDown,
		tcell.KeyLeft: keymap.CursorLeft, tcell.KeyRight: keymap.CursorRight,
		tcell.KeyPgUp: keymap.PageUp, tcell.KeyPgDn: keymap.PageDown,
		tcell.KeyHome: keymap.ScrollTop, tcell.KeyEnd: keymap.ScrollBottom,
		tcell.KeyEscape: keymap.ExitMode, tcell.KeyEnter: keymap.Copy,
	}
	runes := map[rune]keymap.Action{
		'k': keymap.ScrollUp, 'j': keymap.ScrollDown, 'h': keymap.CursorLeft, 'l': keymap.CursorRight,
		'g': keymap.ScrollTop, 'G': keymap.ScrollBottom, '/': keymap.SearchForward,
		'?': keymap.SearchBackward, 'n': keymap.SearchNext, 'N': keymap.SearchPrev,
		'v': keymap.StartSelection, ' ': keymap.StartSelection, 'y': keymap.Copy, 'q': keymap.ExitMode,
	}
	if act, ok := keys[ev.Key()]; ok {
		v.ScrollAction(act)
	} else if act, ok := runes[ev.Rune()]; ok && ev.Key() == tcell.KeyRune {
		v.ScrollAction(act)
	}
}

func (v *TerminalView) rows() int { _, r := v.term.Size(); return r }
func (v *TerminalView) cols() int { c, _ := v.term.Size(); return c }

// lineEnd is the column of the line's last character that is not blank, -1 for a blank line.
func (sm *scrollMode) lineEnd(v *TerminalView, line int) int {
	cells, _ := v.term.Line(line, nil)
	for x := len(cells) - 1; x >= 0; x-- {
		if c := cells[x]; c.Width != 0 && c.Rune != ' ' && c.Rune != 0 {
			return x
		}
	}
	return -1
}

// word moves as vi's W, B and E (tmux's next-space, previous-space, next-space-end): a word is a
// run of characters that are not blank, and the moves cross lines.
func (sm *scrollMode) word(v *TerminalView, act keymap.Action, total int) (line, col int) {
	var cells []vt.Cell
	cached := -1
	blank := func(l, c int) bool {
		if l != cached {
			cells, _ = v.term.Line(l, cells)
			cached = l
		}
		if c < 0 || c >= len(cells) {
			return true
		}
		if cells[c].Width == 0 {
			return false // the right half of a wide character
		}
		return cells[c].Rune == ' ' || cells[c].Rune == 0
	}
	width := v.cols()
	step := func(l, c, d int) (int, int, bool) {
		c += d
		if c >= width {
			if l+1 >= total {
				return l, c - d, false
			}
			return l + 1, 0, true
		}
		if c < 0 {
			if l == 0 {
				return l, 0, false
			}
			return l - 1, width - 1, true
		}
		return l, c, true
	}
	l, c := sm.line, sm.col
	ok := true
	switch act {
	case keymap.NextWord: // past this word, then past the blanks
		for ok && !blank(l, c) {
			l, c, ok = step(l, c, 1)
		}
		for ok && blank(l, c) {
			l, c, ok = step(l, c, 1)
		}
	case keymap.WordEnd: // one on, past the blanks, then to the word's last character
		l, c, ok = step(l, c, 1)
		for ok && blank(l, c) {
			l, c, ok = step(l, c, 1)
		}
		for ok {
			nl, nc, more := step(l, c, 1)
			if !more || nl != l || blank(nl, nc) {
				break
			}
			l, c = nl, nc
		}
	default: // PrevWord: one back, back past the blanks, then to the word's first character
		l, c, ok = step(l, c, -1)
		for ok && blank(l, c) {
			l, c, ok = step(l, c, -1)
		}
		for ok {
			nl, nc, more := step(l, c, -1)
			if !more || nl != l || blank(nl, nc) {
				break
			}
			l, c = nl, nc
		}
	}
	if !ok && blank(l, c) {
		return sm.line, sm.col
	}
	return l, c
}

// follow scrolls so that the cursor's line is on screen.
func (sm *scrollMode) follow(v *TerminalView) {
	hlen, rows := v.term.ScrollbackLen(), v.rows()
	sm.scroll = clampInt(sm.scroll, 0, hlen)
	top := hlen - sm.scroll
	switch {
	case sm.line < top:
		sm.scroll = hlen - sm.line
	case sm.line >= top+rows:
		sm.scroll = hlen - (sm.line - rows + 1)
	}
	sm.scroll = clampInt(sm.scroll, 0, hlen)
}

// scrollBy scrolls by n lines (positive: back), keeping the cursor on screen.
func (sm *scrollMode) scrollBy(v *TerminalView, n int) {
	hlen, rows := v.term.ScrollbackLen(), v.rows()
	sm.scroll = clampInt(sm.scroll+n, 0, hlen)
	top := hlen - sm.scroll
	sm.line = clampInt(sm.line, top, top+rows-1)
}

// screenCursor is the cursor's position in the view as last drawn, if it is on screen.
func (sm *scrollMode) screenCursor(v *TerminalView, h int) (x, y int, ok bool) {
	y = sm.line - (v.snap.ScrollbackLen - v.snap.Scroll)
	return sm.col, y, y >= 0 && y < h
}

// decorate styles cell (row, col) of the view for the selection and the current match.
func (sm *scrollMode) decorate(v *TerminalView, row, col int, st tcell.Style) tcell.Style {
	line := v.snap.ScrollbackLen - v.snap.Scroll + row
	if sm.anchor != nil && sm.lines && line >= min(sm.anchor[0], sm.line) && line <= max(sm.anchor[0], sm.line) {
		return v.opts.Theme.Selection
	}
	if sm.anchor != nil && !sm.lines && inSelection(*sm.anchor, [2]int{sm.line, sm.col}, line, col) {
		return v.opts.Theme.Selection
	}
	if m := sm.match; m[2] > 0 && line == m[0] && col >= m[1] && col < m[2] {
		return v.opts.Theme.SearchMatch
	}
	return st
}

// inSelection reports whether (line, col) is between a and b, in reading order, inclusive.
func inSelection(a, b [2]int, line, col int) bool {
	if b[0] < a[0] || b[0] == a[0] && b[1] < a[1] {
		a, b = b, a
	}
	p := [2]int{line, col}
	after := p[0] > a[0] || p[0] == a[0] && p[1] >= a[1]
	before := p[0] < b[0] || p[0] == b[0] && p[1] <= b[1]
	return after && before
}

// drawStatus shows where the view is and, while typing a search, the query.
func (sm *scrollMode) drawStatus(v *TerminalView, screen tcell.Screen, x, y, w, h int) {
	th := v.opts.Theme
	drawBadge(screen, x, y, w, th.StatusAccent, scrollBadge(v.snap.Scroll, v.snap.ScrollbackLen))
	var text string
	switch {
	case sm.searching:
		prompt := "(search up) " // towards older lines, as tmux words it
		if sm.forward {
			prompt = "(search down) "
		}
		text = prompt + string(sm.query)
	case sm.message != "":
		text = sm.message
	default:
		return
	}
	for col := 0; col < w; col++ {
		r := ' '
		if col < len([]rune(text)) {
			r = []rune(text)[col]
		}
		screen.SetContent(x+col, y+h-1, r, nil, th.StatusBar)
	}
}

// lineText is a buffer line as text, with the column of each of its bytes.
func lineText(cells []vt.Cell) (string, []int) {
	var b strings.Builder
	var cols []int
	for x, c := range cells {
		if c.Width == 0 {
			continue
		}
		for _, r := range append([]rune{c.Rune}, c.Comb...) {
			n := b.Len()
			b.WriteRune(r)
			for i := n; i < b.Len(); i++ {
				cols = append(cols, x)
			}
		}
	}
	return b.String(), cols
}

// search moves the cursor to the next match of query, forward or backward from it, wrapping
// around the buffer. An all-lowercase query ignores case. It leaves the remembered search (last,
// lastFwd) alone: N searches the other way without turning the search round.
func (sm *scrollMode) search(v *TerminalView, query string, forward bool) {
	if query == "" {
		return
	}
	fold := strings.IndexFunc(query, unicode.IsUpper) < 0
	if fold {
		query = strings.ToLower(query)
	}
	total := v.term.ScrollbackLen() + v.rows()
	var cells []vt.Cell
	for i := 0; i <= total; i++ {
		line := sm.line + i
		if !forward {
			line = sm.line - i
		}
		line = ((line % total) + total) % total
		cells, _ = v.term.Line(line, cells)
		text, cols := lineText(cells)
		if fold {
			text = strings.ToLower(text)
		}
		// Every match on the line, then the one nearest the cursor in the search's direction.
		best := -1
		for off := 0; ; {
			j := strings.Index(text[off:], query)
			if j < 0 {
				break
			}
			at := off + j
			col := cols[at]
			ok := i > 0 && i < total || i == 0 && (forward && col > sm.col || !forward && col < sm.col) ||
				i == total && (forward && col <= sm.col || !forward && col >= sm.col)
			if ok && (best < 0 || !forward) {
				best = at
				if forward {
					break
				}
			}
			off = at + 1
		}
		if best >= 0 {
			end := cols[min(best+len(query)-1, len(cols)-1)] + 1
			sm.line, sm.col = line, cols[best]
			sm.match = [3]int{line, cols[best], end}
			sm.follow(v)
			return
		}
	}
	sm.match = [3]int{}
	sm.message = "not found: " + query
}

// selectedText is the text from the anchor to the cursor (the cursor's line when nothing is
// selected); lines that wrapped join without a newline.
func (sm *scrollMode) selectedText(v *TerminalView) string {
	a, b := [2]int{sm.line, 0}, [2]int{sm.line, v.cols() - 1}
	switch {
	case sm.anchor != nil && sm.lines: // whole lines
		a, b = [2]int{min(sm.anchor[0], sm.line), 0}, [2]int{max(sm.anchor[0], sm.line), v.cols() - 1}
	case sm.anchor != nil:
		a, b = *sm.anchor, [2]int{sm.line, sm.col}
		if b[0] < a[0] || b[0] == a[0] && b[1] < a[1] {
			a, b = b, a
		}
	}
	var out strings.Builder
	var cells []vt.Cell
	for line := a[0]; line <= b[0]; line++ {
		var wrapped bool
		cells, wrapped = v.term.Line(line, cells)
		from, to := 0, len(cells)-1
		if line == a[0] {
			from = a[1]
		}
		if line == b[0] {
			to = b[1]
		}
		var l strings.Builder
		for x := from; x <= to && x < len(cells); x++ {
			if c := cells[x]; c.Width != 0 {
				l.WriteRune(c.Rune)
				for _, m := range c.Comb {
					l.WriteRune(m)
				}
			}
		}
		text := l.String()
		if !wrapped || line == b[0] {
			text = strings.TrimRight(text, " ")
		}
		out.WriteString(text)
		if line < b[0] && !wrapped {
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// setClipboard puts text on the clipboard: the option's, or the outer terminal's (OSC 52
// through tcell) and the system's when a clipboard tool is installed.
func (v *TerminalView) setClipboard(text string) {
	if text == "" {
		return
	}
	if v.opts.Clipboard != nil {
		v.opts.Clipboard(text)
		return
	}
	if v.screen != nil {
		v.screen.SetClipboard([]byte(text))
	}
	tool := systemClipboard()
	if tool == nil {
		return
	}
	v.wg.Add(1)
	go func() { // owner: v; exits when the tool does, within five seconds, or at Close
		defer v.wg.Done()
		ctx, cancel := context.WithTimeout(v.ctx, 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, tool[0], tool[1:]...)
		cmd.Stdin = strings.NewReader(text)
		_ = cmd.Run()
	}()
}

// programClipboard is what a program asked to put on the clipboard (OSC 52): dropped unless the
// config lets programs do it (clipboard = "on"), so no program writes the desktop's clipboard
// behind the person's back.
func (v *TerminalView) programClipboard(data []byte) {
	if v.opts.ProgramClipboard {
		v.setClipboard(string(data))
	}
}

// systemClipboard is the command that sets the desktop's clipboard, nil when there is none.
func systemClipboard() []string {
	candidates := [][]string{{"pbcopy"}}
	if os.Getenv("WAYLAND_DISPLAY") != "" {
		candidates = append(candidates, []string{"wl-copy"})
	}
	if os.Getenv("DISPLAY") != "" {
		candidates = append(candidates, []string{"xclip", "-selection", "clipboard"}, []string{"xsel", "--clipboard", "--input"})
	}
	for _, c := range candidates {
		if _, err := exec.LookPath(c[0]); err == nil {
			return c
		}
	}
	return nil
}

func clampInt(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}
