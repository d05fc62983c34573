// Package vt emulates the terminal a program draws on. It is the only package that knows the
// emulator behind it (hinshun/vt10x); everyone else sees Terminal and the Screen it copies out.
//
// Program output goes through a guard (guard*.go) before vt10x: it parses every byte itself,
// keeps what vt10x lacks (wide characters, marks, full styles, modes, tab stops, scrollback,
// replies), places characters as tmux 3.3a does, and hands vt10x only what vt10x handles
// correctly. Text that scrolls the whole screen takes a fast path (linemode.go) that vt10x
// catches up with when the screen is read. No byte sequence can make it panic or loop; if the
// guard or vt10x still fails, while output is written or when a screen is read (vt10x parses
// the guard's queued bytes then), the terminal resets itself, says so on its screen and in
// Fault, and goes on: no panic leaves the package.
//
//	PTY reader ──Write──▶ parser ──▶ guard ──sanitised bytes──▶ vt10x (the grid)
//	                                  │  ├──rows of scrolling text──▶ line mode ──▶ vt10x on read
//	                                  │  └──lines scrolled off──▶ scrollback
//	                                  └──answers──▶ replier goroutine ──▶ PTY
//	views ◀──OnChange, or Changed() (capacity 1)    views ──Snapshot──▶ cells copied under the lock
package vt

import (
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Options configure a Terminal beyond its size.
type Options struct {
	// Scrollback is how many lines that scroll off the top are kept: 0 means
	// DefaultScrollback, a negative number none.
	Scrollback int
	// Reply receives the terminal's answers to the program's queries (cursor position, device
	// attributes), normally the PTY master; nil discards them. Writes happen on a goroutine of
	// the terminal's own, never on the caller of Write.
	Reply io.Writer
	// Foreground and Background answer OSC 10 and 11 queries when they are RGB colours; with
	// the default, queries get no answer (as tmux does when it does not know).
	Foreground, Background Color
}

// Terminal is one emulated screen with its scrollback.
//
// Write is called by one goroutine (the PTY reader); every other method may be called from any
// goroutine at any time, including while Write runs.
type Terminal struct {
	mu       sync.Mutex
	g        *guard
	rep      *replier
	changed  chan struct{}
	onChange atomic.Pointer[func()]
	fault    error
	resets   uint64 // resets after a fault: the ids' meanings start again (SnapshotChanged)
	enc      []byte // SnapshotChanged's scratch
	hashed   int    // rows SnapshotChanged hashed, for tests
	overRead int    // snapshots that read the overlay over vt10x instead of draining it, for tests
}

// New returns a terminal of cols x rows with the default scrollback. Answers to the program's
// queries go to reply, normally the PTY master; nil discards them.
func New(cols, rows int, reply io.Writer) *Terminal {
	return NewWithOptions(cols, rows, Options{Reply: reply})
}

// NewWithOptions returns a terminal of cols x rows configured by opts.
func NewWithOptions(cols, rows int, opts Options) *Terminal {
	cols, rows = max(cols, 1), max(rows, 1)
	switch {
	case opts.Scrollback == 0:
		opts.Scrollback = DefaultScrollback
	case opts.Scrollback < 0:
		opts.Scrollback = 0
	}
	return &Terminal{
		g:       newGuard(cols, rows, opts),
		rep:     newReplier(opts.Reply),
		changed: make(chan struct{}, 1),
	}
}

// Write feeds program output to the terminal. It never fails, never blocks on the program and
// never panics: output that breaks the emulator resets the terminal (see Fault).
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.feed(p)
	replies := t.g.replies
	t.g.replies = nil
	t.mu.Unlock()
	t.rep.send(replies)
	t.notify()
	return len(p), nil
}

func (t *Terminal) feed(p []byte) { t.try(func() { t.g.write(p) }) }

// recovered resets the emulator after a panic and writes a notice on the fresh screen.
func (t *Terminal) recovered(r any) {
	t.fault = fmt.Errorf("the terminal emulator failed on this program's output and was reset: %v\n%s", r, debug.Stack())
	t.resets++
	g := t.g
	g.init(g.cols, g.rows)
	defer func() {
		if recover() != nil {
			g.init(g.cols, g.rows)
		}
	}()
	g.write([]byte("\x1b[7m[tickmux: this terminal was reset after an internal error]\x1b[m\r\n"))
}

// guarded runs read under the terminal's lock (the caller holds it). Reading a screen runs the
// guard and vt10x too (the guard's writes wait in the engine until a reader needs them, and
// vt10x parses them then): a panic there resets the terminal as one in Write does, and read
// runs once more on the fresh screen, so the reader sees the notice. If that fails too, the
// reader gets what read left and the terminal is reset again.
func (t *Terminal) guarded(read func()) {
	if !t.try(read) {
		t.try(read)
	}
}

// try runs f and reports whether it returned; a panic resets the terminal (recovered).
func (t *Terminal) try(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			t.recovered(r)
		}
	}()
	f()
	return true
}

// notify wakes a view waiting on Changed, without ever blocking, and calls the OnChange function.
func (t *Terminal) notify() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
	if f := t.onChange.Load(); f != nil {
		(*f)()
	}
}

// OnChange sets the function called after each change of the screen (nil: none), instead of a
// goroutine waiting on Changed: it runs on the goroutine that changed the screen (the PTY reader,
// or the caller of Resize), after the terminal's lock is released, so it must return at once and
// may run on two goroutines at the same time. A pane's watcher goroutine cost a stack in every
// pane, for a wake-up that the reader can post itself.
func (t *Terminal) OnChange(f func()) {
	if f == nil {
		t.onChange.Store(nil)
		return
	}
	t.onChange.Store(&f)
}

// Changed has a value after the screen may have changed since it was last received. Its
// capacity is 1: any number of changes between two draws make one wake-up.
func (t *Terminal) Changed() <-chan struct{} { return t.changed }

// Fault is the last internal error the terminal recovered from, nil if none.
func (t *Terminal) Fault() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fault
}

// Resize changes the screen size; rows that no longer fit above the cursor go to the scrollback.
func (t *Terminal) Resize(cols, rows int) {
	t.mu.Lock()
	t.try(func() { t.g.resize(cols, rows) })
	t.mu.Unlock()
	t.notify()
}

// Size returns the screen size.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.g.cols, t.g.rows
}

// Reset puts the terminal in its power-on state (RIS), keeping the scrollback.
func (t *Terminal) Reset() {
	t.Write([]byte("\x1bc"))
}

// Snapshot copies the live screen into s, reusing its storage.
func (t *Terminal) Snapshot(s *Screen) { t.SnapshotScrolled(s, 0) }

// SnapshotScrolled copies into s the screen as seen scrolled back by scroll lines (clamped to
// the scrollback): the newest scroll lines of the scrollback on top, then the top of the screen.
func (t *Terminal) SnapshotScrolled(s *Screen, scroll int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.guarded(func() { t.snapshotScrolled(s, scroll) })
}

func (t *Terminal) snapshotScrolled(s *Screen, scroll int) {
	g := t.g
	g.settle()
	s.setSize(g.cols, g.rows)
	hlen := g.hist.len()
	scroll = clamp(scroll, 0, hlen)
	for y := 0; y < g.rows; y++ {
		row := s.Row(y)
		if y < scroll {
			l := g.hist.line(hlen - scroll + y)
			l.cells(row)
			s.Wrapped[y] = l.wrapped
			continue
		}
		s.Wrapped[y] = g.readRow(y-scroll, row)
	}
	g.sync()
	s.Cursor = Cursor{X: g.cx, Y: g.cy + scroll, Visible: g.cursorVisible && g.cy+scroll < g.rows, Shape: g.shape}
	s.Modes = g.modes
	s.Title = g.title
	s.Scroll = scroll
	s.ScrollbackLen = hlen
}

// RowHashes is what a reader of SnapshotChanged keeps of the rows it copied: a hash of each and
// how far the terminal's changes had gone. Its zero value, and one after Forget, makes the next
// SnapshotChanged copy every row. It follows one Terminal; several readers of one terminal keep
// one each.
type RowHashes struct {
	t    *Terminal
	h    []uint64
	seen uint64    // the guard's touched.ver at the last snapshot
	gen  [3]uint64 // what the ids meant then (see rowHash)
}

// Forget makes the next SnapshotChanged copy every row, as when the rows it copied before are
// no longer on screen.
func (r *RowHashes) Forget() { r.h = r.h[:0] }

// SnapshotChanged copies into s the rows of the live screen that differ from what r says the
// caller last copied, updates r and marks the rows copied in changed, which it returns (reusing
// its storage); after a resize, or with r new or forgotten, it copies every row. A row not
// copied is left in s as it was. Only the rows the terminal touched since r's last snapshot
// are hashed (see touched.go), each hash read from the emulator's cells without making Cells
// of them, and a row is copied only if its hash changed: a key's echo hashes and copies the
// row it changed, not the screen. Scrolled back by 0.
func (t *Terminal) SnapshotChanged(s *Screen, r *RowHashes, changed []bool) []bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.guarded(func() { changed = t.snapshotChanged(s, r, changed) })
	return changed
}

func (t *Terminal) snapshotChanged(s *Screen, r *RowHashes, changed []bool) []bool {
	g := t.g
	if g.onlyCells() {
		if g.ov.n > 0 {
			t.overRead++ // the overlay's cells are read over vt10x's, not drained into it
		}
	} else {
		g.settle()
	}
	s.setSize(g.cols, g.rows)
	all := r.t != t || len(r.h) != g.rows
	if all {
		r.t = t
		if cap(r.h) < g.rows {
			r.h = make([]uint64, g.rows)
		}
		r.h = r.h[:g.rows]
	}
	if cap(changed) < g.rows {
		changed = make([]bool, g.rows)
	}
	changed = changed[:g.rows]
	gen := [3]uint64{t.resets, g.styles.reused, g.clusters.reused}
	seen := r.seen
	if all || gen != r.gen {
		seen = 0 // every row was touched after version 0
	}
	for y := 0; y < g.rows; y++ {
		changed[y] = false
		if !g.touched.since(y, seen) {
			continue
		}
		var h uint64
		h, t.enc = g.rowHash(y, gen, t.enc)
		t.hashed++
		if all || h != r.h[y] {
			changed[y] = true
			r.h[y] = h
			s.Wrapped[y] = g.readRow(y, s.Row(y))
		}
	}
	// Before sync: what it queues for vt10x comes after this snapshot.
	r.seen, r.gen = g.touched.ver, gen
	g.sync()
	s.Cursor = Cursor{X: g.cx, Y: g.cy, Visible: g.cursorVisible, Shape: g.shape}
	s.Modes = g.modes
	s.Title = g.title
	s.Scroll = 0
	s.ScrollbackLen = g.hist.len()
	return changed
}

// Text returns the visible screen as plain text: one line per row, trailing spaces trimmed,
// trailing empty rows dropped, each wide character once.
func (t *Terminal) Text() string {
	var s Screen
	t.Snapshot(&s)
	return s.Text()
}

// Modes returns the modes the program has set.
func (t *Terminal) Modes() Modes {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.g.modes
}

// Cursor returns the cursor of the live screen.
func (t *Terminal) Cursor() Cursor {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.guarded(func() {
		t.g.settle()
		t.g.sync()
	})
	return Cursor{X: t.g.cx, Y: t.g.cy, Visible: t.g.cursorVisible, Shape: t.g.shape}
}

// Title returns the window title the program set (OSC 0 or 2), stripped of control characters.
func (t *Terminal) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.g.title
}

// TakeClipboard returns what the program last asked to put on the clipboard (OSC 52), once.
func (t *Terminal) TakeClipboard() ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.g.clip, t.g.clipSet
	t.g.clip, t.g.clipSet = nil, false
	return b, ok
}

// ScrollbackLen is how many lines the scrollback holds.
func (t *Terminal) ScrollbackLen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.g.hist.len()
}

// Lines returns lines from..to-1 of the whole buffer as text, the scrollback (oldest first)
// followed by the screen; out-of-range indexes are clamped. A line's wrapped flag tells that it
// continues on the next.
func (t *Terminal) Lines(from, to int) (text []string, wrapped []bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.guarded(func() { text, wrapped = t.lines(from, to) })
	return text, wrapped
}

func (t *Terminal) lines(from, to int) (text []string, wrapped []bool) {
	g := t.g
	g.settle()
	hlen := g.hist.len()
	from, to = clamp(from, 0, hlen+g.rows), clamp(to, 0, hlen+g.rows)
	row := make([]Cell, g.cols)
	for i := from; i < to; i++ {
		var w bool
		if i < hlen {
			l := g.hist.line(i)
			l.cells(row)
			w = l.wrapped
		} else {
			w = g.readRow(i-hlen, row)
		}
		text = append(text, rowText(row))
		wrapped = append(wrapped, w)
	}
	return text, wrapped
}

// Line returns line i of the whole buffer (the scrollback, oldest first, then the screen) as
// cells, reusing dst, and whether it continues on the next line; i is clamped.
func (t *Terminal) Line(i int, dst []Cell) (line []Cell, wrapped bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.guarded(func() { line, wrapped = t.line(i, dst) })
	return line, wrapped
}

func (t *Terminal) line(i int, dst []Cell) ([]Cell, bool) {
	g := t.g
	g.settle()
	hlen := g.hist.len()
	i = clamp(i, 0, hlen+g.rows-1)
	if cap(dst) < g.cols {
		dst = make([]Cell, g.cols)
	}
	dst = dst[:g.cols]
	if i < hlen {
		l := g.hist.line(i)
		l.cells(dst)
		return dst, l.wrapped
	}
	return dst, g.readRow(i-hlen, dst)
}

// waitReplies returns once every queued answer has been written; for tests.
func (t *Terminal) waitReplies() { t.rep.wait() }
