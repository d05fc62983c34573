// Package viewterm is a view's terminal as the server draws on it and reads from it: the
// Mirror (server/mirror) hands it the cells that changed since the view's last frame, and it
// writes them with the terminal's own sequences (from its terminfo description), one write a
// frame; what the person types there comes back as tcell events, parsed by tcell's own input
// processor, but for a bracketed paste's text, which comes as it was sent (paste.go).
//
// It keeps no copy of the screen. The Mirror knows what each view shows already; a cell buffer
// per view (tcell's screen keeps about 190 bytes a cell: 2.3 MB for a 200x60 terminal, made
// anew at each attach, and walked whole at each frame) would only repeat it. What it keeps is
// what the terminal is in: the cursor's place, the last style sent, the modes set.
//
// One goroutine at a time draws (PutCell, Clear, the cursor, Show, ShowNow, Sync, Fini): the
// view's copier, or the App's goroutine writing a small frame itself (ShowNow). Modes
// and the clipboard may be set from any goroutine: they never write, they go out with the next
// frame (so a terminal that stopped reading holds up nobody but its copier, which its Tty's
// write deadline bounds).
package viewterm

import (
	"encoding/base64"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
)

// Terminal is one view's terminal.
type Terminal struct {
	tty tcell.Tty
	c   *caps

	size atomic.Uint64 // width<<32 | height, as the Tty last reported it

	mu      sync.Mutex // pre and the modes
	pre     []byte     // modes and the clipboard, written ahead of the next frame
	mouse   tcell.MouseFlags
	paste   bool
	focus   bool
	started bool
	ended   bool

	// The copier's (see the package comment).
	body         []byte // the frame drawn since the last Show
	out          []byte
	cx, cy       int // where the terminal's cursor is; -1: not known
	cur          tcell.Style
	styled       bool // cur is what the terminal has
	seen         uint64
	showX, showY int // where the cursor is to be shown, -1 when hidden
	cursorStyle  tcell.CursorStyle
	sentStyle    tcell.CursorStyle
	styleKnown   bool // sentStyle is the terminal's
	shapeSet     bool // a shape other than the default was sent: Fini sets the default back
	visible      bool // the terminal shows its cursor
	// The cell left of the bottom right one, for terminals drawn with lastCellTrick.
	beforeLast   string
	beforeLastSt tcell.Style
	seqs         map[seqKey]string // colour sequences made by the terminfo interpreter

	unsent []byte // what ShowNow could not write: the next write's start

	ip       tcell.InputProcessor
	ln       lanes // lane.go
	evs      chan tcell.Event
	quit     chan struct{}
	readDone chan struct{}
	finiOnce sync.Once
	lastW    int // the size PollEvent reported last (its goroutine's)
	lastH    int
}

type seqKey struct {
	cap  *string
	a, b int
}

// New makes the terminal for a view's tty, described by ti, whose locale's character set is
// charset (Charset). Init starts it.
func New(tty tcell.Tty, ti *terminfo.Terminfo, charset string) *Terminal {
	t := &Terminal{tty: tty, c: newCaps(ti, charset), cx: -1, cy: -1, showX: -1, showY: -1,
		evs: make(chan tcell.Event, 256), quit: make(chan struct{}), readDone: make(chan struct{}),
		beforeLast: " "}
	return t
}

// Init puts the terminal in raw mode and on its alternate screen, cleared with the cursor
// hidden, and starts reading from it.
func (t *Terminal) Init() error {
	w, h := t.c.ti.Columns, t.c.ti.Lines
	if ws, err := t.tty.WindowSize(); err == nil && ws.Width > 0 && ws.Height > 0 {
		w, h = ws.Width, ws.Height
	}
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	t.size.Store(packSize(w, h))
	t.seen = t.size.Load()
	t.lastW, t.lastH = w, h
	if err := t.tty.Start(); err != nil {
		return err
	}
	c := t.c
	b := appendMouse(nil, c, 0)
	b = appendSeqs(b, c.pasteOff, c.enterCA, c.saveTitle, c.enterKeypad, c.hideCursor, c.enableAcs, c.disableAM, c.clear, c.keysOn)
	if _, err := t.tty.Write(b); err != nil {
		_ = t.tty.Stop()
		return err
	}
	t.ip = tcell.NewInputProcessor(t.evs)
	t.ip.SetSize(w, h) // for the mouse's bounds; PollEvent drops the resize it reports
	t.tty.NotifyResize(t.resized)
	t.mu.Lock()
	t.started = true
	t.mu.Unlock()
	go t.read() // owner: the Terminal; ends when Fini drains the tty, or the tty fails
	return nil
}

// appendSeqs appends the sequences in order (a capability the terminal lacks is empty).
func appendSeqs(b []byte, seqs ...string) []byte {
	for _, s := range seqs {
		b = append(b, s...)
	}
	return b
}

func packSize(w, h int) uint64 { return uint64(uint32(w))<<32 | uint64(uint32(h)) }

// Size is the terminal's size.
func (t *Terminal) Size() (int, int) {
	s := t.size.Load()
	return int(s >> 32), int(uint32(s))
}

// Colors is the number of colours the terminal shows: 1<<24 with true colour.
func (t *Terminal) Colors() int { return t.c.colorsReported }

// Tty is the terminal's tty.
func (t *Terminal) Tty() (tcell.Tty, bool) { return t.tty, true }

// resized is the tty's resize notification.
func (t *Terminal) resized() {
	ws, err := t.tty.WindowSize()
	if err != nil || ws.Width <= 0 || ws.Height <= 0 {
		return
	}
	s := packSize(ws.Width, ws.Height)
	if t.size.Swap(s) != s {
		t.ip.SetSize(ws.Width, ws.Height) // reports the resize
	}
}

// PollEvent waits for what the person did: a key, a mouse event, a paste's ends, a focus
// change, a resize, or an error reading. nil once the terminal is finalized.
func (t *Terminal) PollEvent() tcell.Event {
	for {
		select {
		case <-t.quit:
			return nil
		case ev := <-t.evs:
			if _, ok := ev.(*tcell.EventResize); ok {
				// The input processor posts each size from a goroutine of its own, so they may
				// come out of order: the size reported is the terminal's now.
				w, h := t.Size()
				if w == t.lastW && h == t.lastH {
					continue // the size at Init, or a resize reported already
				}
				t.lastW, t.lastH = w, h
				ev = tcell.NewEventResize(w, h)
			}
			return ev
		}
	}
}

// read feeds what the terminal sends to the input processor, whole UTF-8 sequences at a time,
// and a bracketed paste's text around it (paste.go).
func (t *Terminal) read() {
	defer close(t.readDone)
	buf := make([]byte, 4096)
	in := inputSplit{t: t}
	for {
		n, err := t.tty.Read(buf)
		if n > 0 && !t.byLane(&in, buf[:n]) {
			in.feed(buf[:n])
			t.fedDone(&in)
		}
		if err != nil {
			select {
			case <-t.quit:
			case t.evs <- tcell.NewEventError(err):
			}
			return
		}
	}
}

// completeUTF8 is the length of b's prefix that holds no sequence cut short at its end (bytes
// that can never start a sequence count as whole: the input processor takes them as they are).
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if c := b[i]; c < 0x80 {
			return len(b)
		} else if c >= 0xC0 { // a sequence starts here
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// EnableMouse reports the mouse: button presses, drags and motion as flags says (all three when
// none is given).
func (t *Terminal) EnableMouse(flags ...tcell.MouseFlags) {
	var f tcell.MouseFlags
	for _, fl := range flags {
		f |= fl
	}
	if len(flags) == 0 {
		f = tcell.MouseMotionEvents | tcell.MouseDragEvents | tcell.MouseButtonEvents
	}
	t.setModes(func() { t.mouse = f; t.pre = appendMouse(t.pre, t.c, f) })
}

// DisableMouse stops the mouse reports.
func (t *Terminal) DisableMouse() {
	t.setModes(func() { t.mouse = 0; t.pre = appendMouse(t.pre, t.c, 0) })
}

// EnablePaste asks for bracketed paste.
func (t *Terminal) EnablePaste() {
	t.setModes(func() { t.paste = true; t.pre = append(t.pre, t.c.pasteOn...) })
}

// DisablePaste stops bracketed paste.
func (t *Terminal) DisablePaste() {
	t.setModes(func() { t.paste = false; t.pre = append(t.pre, t.c.pasteOff...) })
}

// EnableFocus asks for focus reports.
func (t *Terminal) EnableFocus() {
	t.setModes(func() { t.focus = true; t.pre = append(t.pre, t.c.focusOn...) })
}

// DisableFocus stops focus reports.
func (t *Terminal) DisableFocus() {
	t.setModes(func() { t.focus = false; t.pre = append(t.pre, t.c.focusOff...) })
}

// SetClipboard puts data on the terminal's clipboard (OSC 52) with the next frame.
func (t *Terminal) SetClipboard(data []byte) {
	if !t.c.clipboard {
		return
	}
	t.setModes(func() {
		t.pre = append(t.pre, "\x1b]52;c;"...)
		t.pre = base64.StdEncoding.AppendEncode(t.pre, data)
		t.pre = append(t.pre, "\x1b\\"...)
	})
}

// Alert writes seq (a bell, OSC 9 or OSC 777) with the next frame.
func (t *Terminal) Alert(seq []byte) {
	t.setModes(func() { t.pre = append(t.pre, seq...) })
}

func (t *Terminal) setModes(f func()) {
	t.mu.Lock()
	if !t.ended {
		f()
	}
	t.mu.Unlock()
}

func appendMouse(b []byte, c *caps, f tcell.MouseFlags) []byte {
	if !c.mouse {
		return b
	}
	b = append(b, "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l"...)
	if f&tcell.MouseButtonEvents != 0 {
		b = append(b, "\x1b[?1000h"...)
	}
	if f&tcell.MouseDragEvents != 0 {
		b = append(b, "\x1b[?1002h"...)
	}
	if f&tcell.MouseMotionEvents != 0 {
		b = append(b, "\x1b[?1003h"...)
	}
	if f&(tcell.MouseButtonEvents|tcell.MouseDragEvents|tcell.MouseMotionEvents) != 0 {
		b = append(b, "\x1b[?1006h"...)
	}
	return b
}

// ShowCursor shows the cursor at x, y once the frame is shown.
func (t *Terminal) ShowCursor(x, y int) { t.showX, t.showY = x, y }

// HideCursor hides the cursor once the frame is shown.
func (t *Terminal) HideCursor() { t.showX, t.showY = -1, -1 }

// SetCursorStyle sets the cursor's shape (the colour is not set).
func (t *Terminal) SetCursorStyle(cs tcell.CursorStyle, _ ...tcell.Color) { t.cursorStyle = cs }

// Clear blanks the terminal.
func (t *Terminal) Clear() {
	t.body = append(t.body, t.c.attrOff...)
	t.body = append(t.body, t.c.clear...)
	t.styled = false
	t.cx, t.cy = -1, -1
	t.beforeLast, t.beforeLastSt = " ", tcell.StyleDefault
}

// PutCell draws text, one grapheme of width columns (1 or 2), in style st at column x, row y.
// A control character in text is drawn as '?': nothing a cell holds can reach the terminal as a
// command.
func (t *Terminal) PutCell(x, y int, text string, st tcell.Style, width int) {
	size := t.size.Load()
	if size != t.seen { // the terminal resized: where its cursor went is not known
		t.seen = size
		t.cx, t.cy = -1, -1
	}
	w, h := int(size>>32), int(uint32(size))
	if x < 0 || y < 0 || x >= w || y >= h {
		return
	}
	if width < 1 {
		width = 1
	}
	if x > w-width { // a wide character in the last column: it does not fit
		text, width = " ", 1
	}
	if t.c.lastCellTrick && y == h-1 {
		if x == w-2 && width == 1 {
			t.beforeLast, t.beforeLastSt = text, st
		} else if x == w-1 && x > 0 {
			// Written one to the left and shifted right by an inserted character, and the cell
			// to its left written again: writing the last cell itself would scroll the terminal.
			t.draw(x-1, y, text, st, 1)
			t.body = t.c.appendGoto(t.body, x-1, y)
			t.body = append(t.body, t.c.insertChar...)
			t.cx, t.cy = x-1, y
			t.draw(x-1, y, t.beforeLast, t.beforeLastSt, 1)
			return
		}
	}
	t.draw(x, y, text, st, width)
}

func (t *Terminal) draw(x, y int, text string, st tcell.Style, width int) {
	b := t.body
	if t.cx != x || t.cy != y {
		b = t.c.appendGoto(b, x, y)
	}
	if !t.styled || st != t.cur {
		b = t.appendStyle(b, st)
		t.cur, t.styled = st, true
	}
	t.body = t.appendText(b, text, width)
	t.cx, t.cy = x+width, y
	if width > 1 {
		t.cx = -1 // terminals disagree on some characters' widths: the next cell is addressed
	}
}

// appendText writes a cell's text: control characters become '?', and a terminal whose
// character set is not UTF-8 gets ASCII, its line-drawing set, or a fallback.
func (t *Terminal) appendText(b []byte, text string, width int) []byte {
	if len(text) == 1 && text[0] >= 0x20 && text[0] < 0x7f {
		return append(b, text...)
	}
	if text == "" {
		return append(b, ' ')
	}
	if !t.c.utf8 {
		if r, _ := utf8.DecodeRuneInString(text); r < 0x80 {
			if r < 0x20 || r == 0x7f {
				r = '?'
			}
			return append(b, byte(r))
		} else if s, ok := t.c.acs[r]; ok {
			return append(b, s...)
		} else if s, ok := t.c.fallback[r]; ok {
			return append(b, s...)
		}
		if width > 1 {
			return append(b, "? "...)
		}
		return append(b, '?')
	}
	for _, r := range text {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			r = '?'
		}
		b = utf8.AppendRune(b, r)
	}
	return b
}

// appendStyle sets style st: attributes off, then its colours and attributes.
func (t *Terminal) appendStyle(b []byte, st tcell.Style) []byte {
	c := t.c
	fg, bg, attrs := st.Decompose()
	b = append(b, c.attrOff...)
	b, attrs = t.appendColours(b, fg, bg, attrs)
	if attrs&tcell.AttrBold != 0 {
		b = append(b, c.bold...)
	}
	if us := st.GetUnderlineStyle(); us != tcell.UnderlineStyleNone {
		if c.underExt {
			uc := st.GetUnderlineColor()
			switch {
			case uc == tcell.ColorReset:
				b = append(b, "\x1b[59m"...)
			case uc.IsRGB():
				r, g, bl := uc.RGB()
				b = append(b, "\x1b[58:2::"...)
				b = append(appendRGB(b, r, g, bl, ':'), 'm')
			case uc.Valid():
				b = append(b, "\x1b[58:5:"...)
				b = strconv.AppendInt(b, int64(uc&0xff), 10)
				b = append(b, 'm')
			}
		}
		b = append(b, c.underline...)
		if int(us) > 0 && int(us) < len(c.underStyles) {
			b = append(b, c.underStyles[us]...)
		}
	}
	if attrs&tcell.AttrReverse != 0 {
		b = append(b, c.rev...)
	}
	if attrs&tcell.AttrBlink != 0 {
		b = append(b, c.blink...)
	}
	if attrs&tcell.AttrDim != 0 {
		b = append(b, c.dim...)
	}
	if attrs&tcell.AttrItalic != 0 {
		b = append(b, c.italic...)
	}
	if attrs&tcell.AttrStrikeThrough != 0 {
		b = append(b, c.strike...)
	}
	return b
}

// mono is a monochrome terminal's palette.
var mono = []tcell.Color{tcell.ColorBlack, tcell.ColorWhite}

// appendColours sets the foreground and background: RGB as they are on a true-colour terminal,
// otherwise the palette's nearest. A monochrome terminal shows a dark foreground reversed.
func (t *Terminal) appendColours(b []byte, fg, bg tcell.Color, attrs tcell.AttrMask) ([]byte, tcell.AttrMask) {
	c := t.c
	if c.colors == 0 {
		if fg.Valid() && tcell.FindColor(fg, mono) == tcell.ColorBlack {
			attrs ^= tcell.AttrReverse
		}
		return b, attrs
	}
	if fg == tcell.ColorReset || bg == tcell.ColorReset {
		b = append(b, c.resetFgBg...)
	}
	if c.truecolor {
		if c.setFgBgRGB != "" && !c.rgbANSI && fg.IsRGB() && bg.IsRGB() {
			r1, g1, b1 := fg.RGB()
			r2, g2, b2 := bg.RGB()
			return append(b, c.ti.TParm(c.setFgBgRGB, int(r1), int(g1), int(b1), int(r2), int(g2), int(b2))...), attrs
		}
		if fg.IsRGB() && c.setFgRGB != "" {
			b = c.appendRGB(b, "38", fg)
			fg = tcell.ColorDefault
		}
		if bg.IsRGB() && c.setBgRGB != "" {
			b = c.appendRGB(b, "48", bg)
			bg = tcell.ColorDefault
		}
	}
	if fg.Valid() {
		fg = t.fit(fg)
	}
	if bg.Valid() {
		bg = t.fit(bg)
	}
	if fg.Valid() && bg.Valid() && c.setFgBg != "" {
		return append(b, t.seq(&c.setFgBg, int(fg&0xff), int(bg&0xff))...), attrs
	}
	if fg.Valid() && c.setFg != "" {
		b = append(b, t.seq(&c.setFg, int(fg&0xff), 0)...)
	}
	if bg.Valid() && c.setBg != "" {
		b = append(b, t.seq(&c.setBg, int(bg&0xff), 0)...)
	}
	return b, attrs
}

// fit is the colour of the palette nearest to col; a palette colour is itself.
func (t *Terminal) fit(col tcell.Color) tcell.Color {
	if !col.IsRGB() && col&^(tcell.ColorValid|0xff) == 0 && int(col&0xff) < t.c.colors {
		return col
	}
	return fitColor(col, t.c.colors)
}

// seq is a colour capability with its parameters, made once.
func (t *Terminal) seq(cap *string, a, b int) string {
	k := seqKey{cap, a, b}
	if s, ok := t.seqs[k]; ok {
		return s
	}
	if t.seqs == nil || len(t.seqs) >= 1024 { // bounded: 256 x 256 pairs could be asked for
		t.seqs = map[seqKey]string{}
	}
	s := t.c.ti.TParm(*cap, a, b)
	t.seqs[k] = s
	return s
}

// Show writes what was drawn since the last Show, the modes set meanwhile and the cursor, in
// one write.
func (t *Terminal) Show() { t.write(t.frame(false)) }

// Sync shows the frame and sets the terminal's modes, the cursor's visibility and its shape
// again, whatever the terminal is thought to have (after the view's process was stopped and
// continued, say). The frame is to be whole: Clear, then every cell.
func (t *Terminal) Sync() { t.write(t.frame(true)) }

// NowWriter is a tty that can write without waiting: the server's view terminal.
type NowWriter interface {
	// WriteNow writes what the terminal takes of b at once, and how much that was; it never
	// waits, for room or for another write.
	WriteNow(b []byte) (int, error)
}

// ShowNow is Show for a goroutine that must not wait on the terminal (the server's UI
// goroutine, which so writes a key's echo without waking the view's copier): it writes what
// the terminal takes at once and reports whether that was all. What is left goes first in the
// next Show's write; false with nothing written when the tty cannot write without waiting.
func (t *Terminal) ShowNow() bool {
	out := t.frame(false)
	n := 0
	if w, ok := t.tty.(NowWriter); ok && len(out) > 0 {
		n, _ = w.WriteNow(out) // an error: Show's write meets it too, and marks the tty broken
	}
	if n >= len(out) {
		t.out = keep(out)
		return true
	}
	t.unsent = append(t.unsent, out[max(n, 0):]...)
	t.out = keep(out)
	return false
}

func (t *Terminal) write(out []byte) {
	if len(out) > 0 {
		_, _ = t.tty.Write(out) // a failed write marks the tty broken; the Mirror drops the view
	}
	t.out = keep(out)
}

// frame is what shows the frame drawn since the last one: what ShowNow left unwritten, the
// modes, the cells, the cursor.
func (t *Terminal) frame(sync bool) []byte {
	c := t.c
	out := append(t.out[:0], t.unsent...)
	t.unsent = keep(t.unsent)
	t.mu.Lock()
	out = append(out, t.pre...)
	t.pre = t.pre[:0]
	if sync {
		// The terminal may have been reset meanwhile (the view's process was stopped, and its
		// shell had the terminal): every mode is set again, and the frame is drawn whole.
		out = appendSeqs(out, c.enterCA, c.enterKeypad, c.enableAcs, c.disableAM, c.keysOn)
		out = appendMouse(out, c, t.mouse)
		if t.paste {
			out = append(out, c.pasteOn...)
		}
		if t.focus {
			out = append(out, c.focusOn...)
		}
		t.styleKnown = false
	}
	t.mu.Unlock()
	w, h := t.Size()
	x, y := t.showX, t.showY
	show := x >= 0 && y >= 0 && x < w && y < h
	body := len(t.body) > 0
	if body {
		out = append(out, c.syncStart...)
		if t.visible || sync {
			out = append(out, c.hideCursor...)
			t.visible = false
		}
		out = append(out, t.body...)
	}
	if show {
		if t.cx != x || t.cy != y || !t.visible || sync {
			out = c.appendGoto(out, x, y)
			t.cx, t.cy = x, y
		}
		if !t.visible || sync {
			out = append(out, c.showCursor...)
			t.visible = true
		}
		if c.cursorStyles && (!t.styleKnown || t.sentStyle != t.cursorStyle) {
			out = append(out, "\x1b["...)
			out = strconv.AppendInt(out, int64(t.cursorStyle), 10)
			out = append(out, " q"...)
			t.sentStyle, t.styleKnown = t.cursorStyle, true
			t.shapeSet = t.shapeSet || t.cursorStyle != tcell.CursorStyleDefault
		}
	} else if t.visible || sync {
		out = append(out, c.hideCursor...)
		t.visible = false
	}
	if body {
		out = append(out, c.syncEnd...)
	}
	t.body = keep(t.body)
	return out
}

// keep empties a buffer for the next frame. One grown past 64 KB (a whole frame: an attach, a
// resize) is let go: an idle view keeps what typing needs, not its largest frame.
func keep(b []byte) []byte {
	if cap(b) > 64<<10 {
		return nil
	}
	return b[:0]
}

// Fini stops reading and gives the terminal back as the view found it: the modes reset, the
// main screen back, the cursor shown, the tty out of raw mode and closed. PollEvent returns nil
// after it.
func (t *Terminal) Fini() {
	t.finiOnce.Do(t.fini)
}

func (t *Terminal) fini() {
	t.mu.Lock()
	started := t.started
	t.ended = true
	pre := t.pre
	t.pre = nil
	t.mu.Unlock()
	close(t.quit)
	if !started {
		_ = t.tty.Close()
		return
	}
	_ = t.tty.Drain()
	t.tty.NotifyResize(nil)
	for done := false; !done; {
		select {
		case <-t.readDone:
			done = true
		case <-t.evs: // the reader may be waiting to hand an event nobody takes now
		}
	}
	c := t.c
	b := append(t.unsent, pre...) // a frame's rest first: its end leaves synchronized output
	b = append(b, c.showCursor...)
	if c.cursorStyles && t.shapeSet {
		b = append(b, "\x1b[0 q"...)
	}
	b = appendSeqs(b, c.resetFgBg, c.attrOff, c.exitKeypad, c.enableAM, c.keysOff, c.restoreTitle, c.clear, c.exitCA)
	b = appendMouse(b, c, 0)
	b = appendSeqs(b, c.pasteOff, c.focusOff)
	_, _ = t.tty.Write(b)
	_ = t.tty.Stop()
	_ = t.tty.Close()
}
