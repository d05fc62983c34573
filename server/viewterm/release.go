package viewterm

// ReleaseSequences is what puts the terminal back as it was before the view, without ending
// the view: the cursor shown in its default shape, the colours and attributes reset, keypad,
// mouse, bracketed paste and focus reporting off, the normal screen back (as Fini writes).
// The server writes it when the view is suspended (prefix C-z); the next frame, drawn with Sync,
// sets everything again. Any goroutine.
func (t *Terminal) ReleaseSequences() []byte {
	c := t.c
	b := append([]byte(nil), c.showCursor...)
	if c.cursorStyles {
		b = append(b, "\x1b[0 q"...)
	}
	b = appendSeqs(b, c.resetFgBg, c.attrOff, c.exitKeypad, c.enableAM, c.keysOff, c.restoreTitle, c.clear, c.exitCA)
	b = appendMouse(b, c, 0)
	return appendSeqs(b, c.pasteOff, c.focusOff)
}
