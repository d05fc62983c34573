package views

import (
	"context"
	"strconv"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"tickmux/themes"
	"tickmux/vt"
)

// TerminalBackend is what a TerminalView drives: a program on a PTY. *host.Process satisfies
// it. Input must not block; Resize sets the PTY size (TIOCSWINSZ) and the emulator's.
type TerminalBackend interface {
	Terminal() *vt.Terminal
	Input(b []byte) error
	Resize(cols, rows int) error
}

// TerminalOptions configure a TerminalView.
type TerminalOptions struct {
	Theme *themes.Theme
	// RequestDraw asks the application for a redraw; it is called whenever the program's screen
	// changed, on the goroutine that changed it (the PTY reader's, or the UI's for a resize, so
	// possibly two at once; vt.Terminal.OnChange), and must return at once and coalesce (the app
	// draws at most once per frame). Required.
	RequestDraw func()
	// Clipboard receives text to put on the clipboard (copy mode, or a program's OSC 52); it
	// runs on the UI goroutine. Nil means the outer terminal's clipboard through tcell (OSC 52)
	// and the system clipboard tool when there is one.
	Clipboard func(text string)
	// ProgramClipboard lets the program set the clipboard (OSC 52); copy mode copies either way.
	ProgramClipboard bool
}

// TerminalView is a tview widget showing a program's terminal: it draws the emulated screen
// (colours, attributes, wide characters, the cursor), sizes the PTY to its rectangle, encodes
// keys, pastes and mouse events as xterm would, and offers a scroll mode over the scrollback
// with search, selection and copy.
//
//	vt.Terminal ──OnChange (the PTY reader's goroutine)──RequestDraw──▶ app (one draw per frame)
//	app (UI goroutine) ──Draw──▶ Snapshot (cells copied under the terminal's lock) ──▶ screen
//	tcell events (UI goroutine) ──Key/Paste/Mouse──▶ encoded bytes ──▶ backend.Input
//
// Goroutines: none of its own but a clipboard tool's while it runs (scroll mode's copy), waited
// for by Close. RequestDraw runs where the terminal changed; every other method runs on the UI
// goroutine only.
type TerminalView struct {
	*tview.Box
	backend TerminalBackend
	term    *vt.Terminal
	opts    TerminalOptions

	snap         vt.Screen
	lastW, lastH int
	screen       tcell.Screen // the last screen drawn on, for the clipboard
	held         int          // mouse button held, -1 when none
	scroll       int          // lines scrolled back when not in scroll mode (mouse wheel)
	sm           *scrollMode  // nil unless in scroll mode

	// The rows the last draw put on screen, at drawnAt, so that a draw skips rows that did not
	// change (an echo redraws one row, not the pane); drawnOK is cleared when something may
	// have drawn over the pane (Invalidate) and after a draw in scroll mode or scrolled back.
	// The rows are kept as the terminal's hashes of them and how far its changes had gone
	// (vt.RowHashes), not as a copy: 8 bytes a row rather than 48 a cell in every pane, and a
	// draw hashes only the rows the terminal touched since; changed: the rows the snapshot copied.
	drawnRows vt.RowHashes
	drawnAt   [6]int
	drawnOK   bool
	changed   []bool

	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// NewTerminalView returns a view of backend's terminal.
func NewTerminalView(backend TerminalBackend, opts TerminalOptions) *TerminalView {
	if opts.Theme == nil {
		opts.Theme = themes.Dark()
	}
	v := &TerminalView{
		Box:     tview.NewBox(),
		backend: backend,
		term:    backend.Terminal(),
		opts:    opts,
		held:    -1,
	}
	v.ctx, v.cancel = context.WithCancel(context.Background())
	if opts.RequestDraw != nil {
		v.term.OnChange(opts.RequestDraw)
	}
	return v
}

// Close stops the draw requests and waits for the clipboard tool, if one runs; it is idempotent.
// A request already under way when Close is called may still arrive.
func (v *TerminalView) Close() {
	v.closeOnce.Do(func() {
		v.term.OnChange(nil)
		v.cancel()
	})
	v.wg.Wait()
}

// Draw draws the terminal in the view's inner rectangle and sizes the PTY to it.
func (v *TerminalView) Draw(screen tcell.Screen) {
	// No Box background: every cell of the rectangle is set below.
	v.screen = screen
	x, y, w, h := v.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	if w != v.lastW || h != v.lastH {
		v.lastW, v.lastH = w, h
		_ = v.backend.Resize(w, h)
	}
	if data, ok := v.term.TakeClipboard(); ok {
		v.programClipboard(data)
	}
	scroll := v.scroll
	if v.sm != nil {
		scroll = v.sm.scroll
	}
	// The cells are the draw's alone: between draws a view keeps the snapshot's cursor and
	// sizes, and the cells go back to the views' common buffer.
	sb := &drawBuf
	sb.mu.Lock()
	v.snap.Cells, v.snap.Wrapped = sb.cells, sb.wrapped
	defer func() {
		sb.cells, sb.wrapped = v.snap.Cells, v.snap.Wrapped
		v.snap.Cells, v.snap.Wrapped = nil, nil
		sb.fit()
		sb.mu.Unlock()
	}()
	s := &v.snap
	live := v.sm == nil && scroll == 0
	inc := false
	if live {
		// Only the rows that changed since the last draw are copied (an echo's row, not the
		// screen), unless something drew over the pane or it moved.
		kept := v.drawnOK && [4]int(v.drawnAt[:4]) == [4]int{x, y, w, h}
		if !kept {
			v.drawnRows.Forget()
		}
		v.changed = v.term.SnapshotChanged(s, &v.drawnRows, v.changed)
		inc = kept && v.drawnAt == [6]int{x, y, w, h, s.Cols, s.Rows}
		if !inc && kept { // the terminal's size changed: every row is drawn
			v.drawnRows.Forget()
			v.changed = v.term.SnapshotChanged(s, &v.drawnRows, v.changed)
		}
	} else {
		v.term.SnapshotScrolled(s, scroll)
	}
	v.scroll = min(v.scroll, s.ScrollbackLen)
	v.drawnOK, v.drawnAt = live, [6]int{x, y, w, h, s.Cols, s.Rows}
	// Runs of cells share a style: convert each style once per run, not once per cell.
	var lastStyle vt.Style
	lastTcell := cellStyle(lastStyle)
	for row := 0; row < h; row++ {
		if row >= s.Rows {
			if inc {
				continue
			}
			for col := 0; col < w; col++ {
				screen.SetContent(x+col, y+row, ' ', nil, tcell.StyleDefault)
			}
			continue
		}
		if inc && !v.changed[row] {
			continue // on screen already
		}
		cells := s.Row(row)
		covered := false // the cell drawn before covers this one
		for col := 0; col < w; col++ {
			wasCovered := covered
			covered = false
			if col >= s.Cols {
				screen.SetContent(x+col, y+row, ' ', nil, tcell.StyleDefault)
				continue
			}
			c := cells[col]
			if c.Style != lastStyle {
				lastStyle, lastTcell = c.Style, cellStyle(c.Style)
			}
			st := lastTcell
			if v.sm != nil {
				st = v.sm.decorate(v, row, col, st)
			}
			switch {
			case wasCovered:
				continue // the right half of the wide character drawn before
			case c.Width == 0 || c.Style.Attrs&vt.AttrInvisible != 0:
				screen.SetContent(x+col, y+row, ' ', nil, st)
			case c.Width == 2 && col == w-1:
				screen.SetContent(x+col, y+row, ' ', nil, st) // cut by the view's edge
			case isRegional(c.Rune) && c.Comb == nil && col+1 < min(w, s.Cols) && isRegional(cells[col+1].Rune) &&
				cells[col+1].Comb == nil && cells[col+1].Style == c.Style:
				// Two regional indicators are one cell each in vt and tmux, and one flag two
				// cells wide in tcell: drawn as the flag over both cells.
				screen.SetContent(x+col, y+row, c.Rune, []rune{cells[col+1].Rune}, st)
				covered = true
			case c.Width == 2 && c.Comb == nil && col+2 < min(w, s.Cols) && isModifier(cells[col+2].Rune) &&
				cells[col+2].Comb == nil && uniseg.StringWidth(string([]rune{c.Rune, cells[col+2].Rune})) == 2:
				// An emoji and a skin tone are two wide cells each in vt and tmux, one two-cell
				// grapheme in tcell: the emoji is drawn with its tone, the tone's cells blank.
				screen.SetContent(x+col, y+row, c.Rune, []rune{cells[col+2].Rune}, st)
				covered = true
			default:
				r, comb, drawn := cellText(c)
				screen.SetContent(x+col, y+row, r, comb, st)
				covered = drawn == 2
			}
		}
	}
	if v.sm != nil {
		v.sm.drawStatus(v, screen, x, y, w, h)
	} else if scroll > 0 {
		drawBadge(screen, x, y, w, v.opts.Theme.StatusAccent, scrollBadge(scroll, s.ScrollbackLen))
	}
}

// Invalidate makes the next draw draw every row: something drew over the pane.
func (v *TerminalView) Invalidate() { v.drawnOK = false }

// drawBuf is the snapshot's cells, lent to one draw at a time (a view kept a whole screen of
// them, 48 bytes a cell, between draws, for every pane). It is kept between draws (a fresh one
// costs page faults on the key echo's path) at the size of the largest pane drawn of late.
var drawBuf snapBuf

type snapBuf struct {
	mu      sync.Mutex
	cells   []vt.Cell
	wrapped []bool
	draws   int // draws since the last fit
	need    int // most cells a draw used since the last fit
}

// fitDraws is how many draws pass between two looks at drawBuf's size.
const fitDraws = 256

// fit counts a draw, and every fitDraws draws drops a buffer more than twice as large as the
// largest of them used (panes were split, or the terminal shrank). Called with mu held.
func (b *snapBuf) fit() {
	b.draws++
	b.need = max(b.need, len(b.cells))
	if b.draws < fitDraws {
		return
	}
	if cap(b.cells) > 2*b.need {
		b.cells, b.wrapped = nil, nil
	}
	b.draws, b.need = 0, 0
}

// PlaceCursor shows the program's cursor (or the scroll-mode cursor) when the view has the focus.
func (v *TerminalView) PlaceCursor(screen tcell.Screen) {
	x, y, w, h := v.GetInnerRect()
	if v.sm != nil {
		if cx, cy, ok := v.sm.screenCursor(v, h); ok && cx < w {
			screen.SetCursorStyle(tcell.CursorStyleDefault)
			screen.ShowCursor(x+cx, y+cy)
			return
		}
		screen.HideCursor()
		return
	}
	c := v.snap.Cursor
	if !c.Visible || c.X >= w || c.Y >= h || v.scroll > 0 {
		screen.HideCursor()
		return
	}
	screen.SetCursorStyle(cursorStyle(c.Shape))
	screen.ShowCursor(x+c.X, y+c.Y)
}

// Key sends a key press to the program, as xterm encodes it in the program's modes. Any key
// brings a view scrolled with the wheel back to the live screen.
func (v *TerminalView) Key(ev *tcell.EventKey) {
	v.scroll = 0
	if b := encodeKey(ev, v.term.Modes()); b != nil {
		_ = v.backend.Input(b)
	}
}

// Paste sends pasted text, in bracketed paste when the program turned it on.
func (v *TerminalView) Paste(text string) {
	v.scroll = 0
	_ = v.backend.Input(encodePaste(text, v.term.Modes()))
}

// Mouse forwards a mouse event when the program asked for mouse reports; otherwise the wheel
// scrolls back through the scrollback (or, on the alternate screen, sends cursor keys, as
// xterm's alternate scroll does).
func (v *TerminalView) Mouse(action tview.MouseAction, ev *tcell.EventMouse) {
	x0, y0, w, h := v.GetInnerRect()
	mx, my := ev.Position()
	x, y := mx-x0, my-y0
	m := v.term.Modes()
	held := v.held
	switch action {
	case tview.MouseLeftDown:
		v.held = 0
	case tview.MouseMiddleDown:
		v.held = 1
	case tview.MouseRightDown:
		v.held = 2
	case tview.MouseLeftUp, tview.MouseMiddleUp, tview.MouseRightUp:
		v.held = -1
	}
	if m.Mouse != vt.MouseNone && v.sm == nil {
		if x < 0 || y < 0 || x >= w || y >= h {
			return
		}
		if b := encodeMouse(action, ev, x, y, held, m); b != nil {
			v.scroll = 0
			_ = v.backend.Input(b)
		}
		return
	}
	up := action == tview.MouseScrollUp
	if !up && action != tview.MouseScrollDown {
		return
	}
	const wheelLines = 3
	switch {
	case v.sm != nil:
		n := wheelLines
		if !up {
			n = -n
		}
		v.sm.scrollBy(v, n)
	case m.AltScreen:
		key := "\x1b[B"
		if up {
			key = "\x1b[A"
		}
		if m.AppCursor {
			key = "\x1bO" + key[2:]
		}
		for i := 0; i < wheelLines; i++ {
			_ = v.backend.Input([]byte(key))
		}
	case up:
		v.scroll = min(v.scroll+wheelLines, v.term.ScrollbackLen())
	default:
		v.scroll = max(v.scroll-wheelLines, 0)
	}
}

// FocusChanged tells the program that the view gained or lost the focus, when it asked for
// focus events (DEC 1004).
func (v *TerminalView) FocusChanged(focused bool) {
	if !v.term.Modes().FocusEvents {
		return
	}
	if focused {
		_ = v.backend.Input([]byte("\x1b[I"))
	} else {
		_ = v.backend.Input([]byte("\x1b[O"))
	}
}

// cellStyle is the tcell style of a cell.
// cellText is what a cell is drawn as, and the width it is drawn at. vt gives every cell its
// width (the width tmux 3.3a gives it); tcell, and the terminal it draws on, measure a grapheme
// themselves and may find another (☺ with VS16 is one cell in tmux, two in tcell; a space that
// a zero-width joiner joined to 日 is one cell in tmux, and a terminal may draw the 日). A cell
// is drawn with its marks only when they make one grapheme of vt's width; otherwise its
// character alone, and when even that has another width, U+FFFD. Nothing drawn ever covers the
// next cell, and a wide cell always covers its right half.
func cellText(c vt.Cell) (r rune, comb []rune, width int) {
	want := int(c.Width)
	if c.Rune < 0x7f && c.Comb == nil {
		return c.Rune, nil, 1
	}
	if c.Comb != nil {
		s := string(c.Rune) + string(c.Comb)
		if _, rest, w, _ := uniseg.FirstGraphemeClusterInString(s, -1); rest == "" && w == want {
			return c.Rune, c.Comb, want
		}
	}
	if isModifier(c.Rune) {
		return ' ', nil, 1 // drawn with the emoji before it, when there is one
	}
	switch uniseg.StringWidth(string(c.Rune)) {
	case want:
		return c.Rune, nil, want
	case 1:
		return c.Rune, nil, 1 // a wide cell drawn narrow: its right half is drawn blank
	}
	return '\uFFFD', nil, 1
}

func isRegional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

func isModifier(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF } // skin tones

func cellStyle(s vt.Style) tcell.Style {
	st := tcell.StyleDefault.Foreground(cellColor(s.FG)).Background(cellColor(s.BG)).
		Bold(s.Attrs&vt.AttrBold != 0).Dim(s.Attrs&vt.AttrDim != 0).Italic(s.Attrs&vt.AttrItalic != 0).
		Blink(s.Attrs&vt.AttrBlink != 0).Reverse(s.Attrs&vt.AttrReverse != 0).
		StrikeThrough(s.Attrs&vt.AttrStrike != 0)
	if s.Attrs&vt.AttrAnyUnderline != 0 {
		ul := tcell.UnderlineStyleSolid
		switch {
		case s.Attrs&vt.AttrDoubleUnderline != 0:
			ul = tcell.UnderlineStyleDouble
		case s.Attrs&vt.AttrCurlyUnderline != 0:
			ul = tcell.UnderlineStyleCurly
		case s.Attrs&vt.AttrDottedUnderline != 0:
			ul = tcell.UnderlineStyleDotted
		case s.Attrs&vt.AttrDashedUnderline != 0:
			ul = tcell.UnderlineStyleDashed
		}
		if s.UL.IsDefault() {
			st = st.Underline(ul)
		} else {
			st = st.Underline(ul, cellColor(s.UL))
		}
	}
	return st
}

func cellColor(c vt.Color) tcell.Color {
	if i, ok := c.Palette(); ok {
		return tcell.PaletteColor(int(i))
	}
	if r, g, b, ok := c.RGB(); ok {
		return tcell.NewRGBColor(int32(r), int32(g), int32(b))
	}
	return tcell.ColorDefault
}

func cursorStyle(s vt.CursorShape) tcell.CursorStyle {
	switch s {
	case vt.CursorBlinkingBlock:
		return tcell.CursorStyleBlinkingBlock
	case vt.CursorBlock:
		return tcell.CursorStyleSteadyBlock
	case vt.CursorBlinkingUnderline:
		return tcell.CursorStyleBlinkingUnderline
	case vt.CursorUnderline:
		return tcell.CursorStyleSteadyUnderline
	case vt.CursorBlinkingBar:
		return tcell.CursorStyleBlinkingBar
	case vt.CursorBar:
		return tcell.CursorStyleSteadyBar
	}
	return tcell.CursorStyleDefault
}

// drawBadge writes text at the top right of the view.
func drawBadge(screen tcell.Screen, x, y, w int, st tcell.Style, text string) {
	start := x + w - len(text)
	if start < x {
		return
	}
	for i, r := range text {
		screen.SetContent(start+i, y, r, nil, st)
	}
}

func scrollBadge(scroll, total int) string {
	return "[" + strconv.Itoa(scroll) + "/" + strconv.Itoa(total) + "]"
}

// TerminalView is what a pane needs.
var _ paneTerm = (*TerminalView)(nil)
