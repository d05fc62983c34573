// Package vt emulates the terminal a program draws on. It is the only package that knows the
// emulator (hinshun/vt10x); everyone else sees Terminal.
//
// This is the first cut: the host core needs a screen it can feed and read as text. The terminal
// pane issue replaces the internals (guard, wide characters, scrollback) behind the same API.
package vt

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Terminal is one emulated screen. Write may be called from one goroutine (the PTY reader) while
// others read the screen; all methods are safe for concurrent use.
type Terminal struct {
	mu   sync.Mutex // serialises Write; the emulator has its own lock for readers
	emu  vt10x.Terminal
	tail []byte // an incomplete UTF-8 sequence held back until the next Write
}

// New returns a terminal of cols x rows. Replies the program asks for (cursor position reports,
// device attributes) are written to reply, normally the PTY master; nil discards them.
func New(cols, rows int, reply io.Writer) *Terminal {
	if reply == nil {
		reply = io.Discard
	}
	return &Terminal{emu: vt10x.New(vt10x.WithSize(cols, rows), vt10x.WithWriter(reply))}
}

// Write feeds program output to the emulator. It never fails.
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buf := p
	if len(t.tail) > 0 {
		buf = append(t.tail, p...)
		t.tail = nil
	}
	// Hold back a UTF-8 sequence cut by the end of this chunk.
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	t.tail = append([]byte(nil), buf[cut:]...)
	_, _ = t.emu.Write(buf[:cut])
	return len(p), nil
}

// Resize changes the screen size.
func (t *Terminal) Resize(cols, rows int) {
	t.emu.Resize(cols, rows)
}

// Size returns the screen size.
func (t *Terminal) Size() (cols, rows int) {
	return t.emu.Size()
}

// Text returns the visible screen as plain text: one line per row, trailing spaces trimmed,
// trailing empty rows dropped.
func (t *Terminal) Text() string {
	t.emu.Lock()
	cols, rows := t.emu.Size()
	lines := make([]string, rows)
	var b strings.Builder
	for y := 0; y < rows; y++ {
		b.Reset()
		for x := 0; x < cols; x++ {
			c := t.emu.Cell(x, y).Char
			if c == 0 {
				c = ' '
			}
			b.WriteRune(c)
		}
		lines[y] = strings.TrimRight(b.String(), " ")
	}
	t.emu.Unlock()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
