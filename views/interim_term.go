package views

// A stand-in terminal widget, used until views/terminal.go (the terminal pane issue) provides
// the real one: it draws the emulated screen and types keys, with no mouse and no scroll mode.

import (
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/themes"
	"tickmux/vt"
)

type interimTerm struct {
	*tview.Box
	proc         *host.Process
	snap         vt.Screen
	done         chan struct{}
	wg           sync.WaitGroup
	closeOnce    sync.Once
	lastW, lastH int
}

func newPaneTerm(proc *host.Process, th *themes.Theme, requestDraw func()) paneTerm {
	t := &interimTerm{Box: tview.NewBox(), proc: proc, done: make(chan struct{})}
	t.wg.Add(1)
	go func() { // owner: t; exits at Close
		defer t.wg.Done()
		for {
			select {
			case <-t.done:
				return
			case <-proc.Terminal().Changed():
				requestDraw()
			}
		}
	}()
	return t
}

func (t *interimTerm) Draw(screen tcell.Screen) {
	x, y, w, h := t.GetRect()
	if w <= 0 || h <= 0 {
		return
	}
	if w != t.lastW || h != t.lastH {
		t.lastW, t.lastH = w, h
		_ = t.proc.Resize(w, h)
	}
	t.proc.Terminal().Snapshot(&t.snap)
	for row := 0; row < h && row < t.snap.Rows; row++ {
		cells := t.snap.Row(row)
		for col := 0; col < w && col < t.snap.Cols; col++ {
			c := cells[col]
			if c.Width == 0 {
				continue
			}
			screen.SetContent(x+col, y+row, c.Rune, c.Comb, tcellStyle(c.Style))
		}
	}
}

func tcellStyle(s vt.Style) tcell.Style {
	st := tcell.StyleDefault.Foreground(tcellColor(s.FG)).Background(tcellColor(s.BG))
	st = st.Bold(s.Attrs&vt.AttrBold != 0).Dim(s.Attrs&vt.AttrDim != 0).Italic(s.Attrs&vt.AttrItalic != 0).
		Underline(s.Attrs&vt.AttrAnyUnderline != 0).Reverse(s.Attrs&vt.AttrReverse != 0).Blink(s.Attrs&vt.AttrBlink != 0).
		StrikeThrough(s.Attrs&vt.AttrStrike != 0)
	return st
}

func tcellColor(c vt.Color) tcell.Color {
	if i, ok := c.Palette(); ok {
		return tcell.PaletteColor(int(i))
	}
	if r, g, b, ok := c.RGB(); ok {
		return tcell.NewRGBColor(int32(r), int32(g), int32(b))
	}
	return tcell.ColorDefault
}

func (t *interimTerm) PlaceCursor(screen tcell.Screen) {
	x, y, _, _ := t.GetRect()
	c := t.proc.Terminal().Cursor()
	if c.Visible {
		screen.ShowCursor(x+c.X, y+c.Y)
	} else {
		screen.HideCursor()
	}
}

func (t *interimTerm) Key(ev *tcell.EventKey) {
	var b []byte
	switch ev.Key() {
	case tcell.KeyRune:
		if ev.Modifiers()&tcell.ModAlt != 0 {
			b = append(b, 0x1b)
		}
		b = append(b, string(ev.Rune())...)
	case tcell.KeyEnter:
		b = []byte{'\r'}
	case tcell.KeyTab:
		b = []byte{'\t'}
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		b = []byte{0x7f}
	case tcell.KeyEscape:
		b = []byte{0x1b}
	case tcell.KeyUp:
		b = []byte("\x1b[A")
	case tcell.KeyDown:
		b = []byte("\x1b[B")
	case tcell.KeyRight:
		b = []byte("\x1b[C")
	case tcell.KeyLeft:
		b = []byte("\x1b[D")
	default:
		if k := ev.Key(); k >= tcell.KeyCtrlA && k <= tcell.KeyCtrlZ {
			b = []byte{byte(k-tcell.KeyCtrlA) + 1}
		}
	}
	_ = t.proc.Input(b)
}

func (t *interimTerm) Paste(text string)                          { _ = t.proc.Input([]byte(text)) }
func (t *interimTerm) Mouse(tview.MouseAction, *tcell.EventMouse) {}
func (t *interimTerm) StartScroll()                               {}
func (t *interimTerm) StopScroll()                                {}
func (t *interimTerm) Scrolling() bool                            { return false }
func (t *interimTerm) ScrollKey(*tcell.EventKey)                  {}
func (t *interimTerm) ScrollAction(keymap.Action)                 {}

func (t *interimTerm) Close() {
	t.closeOnce.Do(func() { close(t.done) })
	t.wg.Wait()
}
