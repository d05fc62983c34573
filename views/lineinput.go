package views

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// lineInput is a one-line question on the status line (rename a tab or a pane): Enter answers,
// Esc cancels. It owns the keyboard while open.
type lineInput struct {
	field *tview.InputField
	done  func(string)
}

// ask1 asks for one line of text, starting from initial.
func (a *App) ask1(label, initial string, done func(string)) {
	f := tview.NewInputField().SetLabel(label).SetText(initial)
	f.SetFieldStyle(a.theme.Prompt.Underline(true)).SetLabelStyle(a.theme.Badge)
	f.SetBackgroundColor(tcell.ColorDefault)
	f.Focus(nil)
	a.input = &lineInput{field: f, done: done}
}

// inputKey edits the question's line.
func (a *App) inputKey(ev *tcell.EventKey) {
	in := a.input
	switch ev.Key() {
	case tcell.KeyEscape:
		a.input = nil
	case tcell.KeyEnter:
		a.input = nil
		in.done(in.field.GetText())
	default:
		in.field.InputHandler()(ev, func(tview.Primitive) {})
	}
	a.full = true
	a.rebuild()
}

// drawInput draws the question over the status line.
func (a *App) drawInput(screen tcell.Screen, w, h int) {
	if a.input == nil {
		return
	}
	a.input.field.SetRect(0, h-1, w, 1)
	a.input.field.Draw(screen)
}

// inputPaste puts a paste into the question's line, on one line.
func (a *App) inputPaste(text string) {
	a.input.field.PasteHandler()(strings.ReplaceAll(text, "\n", " "), func(tview.Primitive) {})
}
