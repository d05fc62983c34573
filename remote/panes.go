package remote

// Panes of other hosts (issue 40, "one view", internal/remotewire feature panes): a link lists
// its host's tabs and panes when it comes up and keeps the list as the host tells it of changes
// (Panes); Watch shows one pane here: its frames go to the watcher's function on the link's
// reader goroutine, each acked once that function has returned (the host sends the next only
// then), and the input and sizes given to the Watch go to the host in order, from a goroutine
// of the watch's own, never blocking the caller.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"tickmux/internal/remotewire"
)

// maxWatchInput bounds the input waiting for a host that does not take it (a hung link).
const maxWatchInput = 1 << 20

// inputPiece bounds one input notification (the host takes lines up to 1 MB).
const inputPiece = 64 << 10

// paneCallWait bounds a watch's resize and unwatch.
const paneCallWait = 10 * time.Second

// paneState is a link's panes side.
type paneState struct {
	mu      sync.Mutex
	list    remotewire.PanesResult
	from    *conn  // the connection the list came on
	notes   uint64 // panes notifications read
	watches map[string]*Watch
}

// Panes is the host's tabs and panes as last listed, and whether the list is current (the link
// is up and the host listed them on this connection).
func (l *Link) Panes() (remotewire.PanesResult, bool) {
	l.mu.Lock()
	cur := l.conn
	l.mu.Unlock()
	l.pn.mu.Lock()
	defer l.pn.mu.Unlock()
	return l.pn.list, cur != nil && l.pn.from == cur
}

// fetchPanes lists the panes once the connection is up; notifications keep the list since.
func (l *Link) fetchPanes(c *conn) {
	l.pn.mu.Lock()
	seen := l.pn.notes
	l.pn.mu.Unlock()
	ctx, cancel := context.WithTimeout(l.ctx, l.tm.helloTimeout)
	defer cancel()
	var pr remotewire.PanesResult
	if err := c.call(ctx, remotewire.MethodPanes, struct{}{}, &pr); err != nil {
		if !c.failed() {
			l.log("remote: %s: listing its panes: %v", l.host.Name, err)
		}
		return
	}
	l.pn.mu.Lock()
	if l.pn.notes == seen {
		l.pn.list, l.pn.from = pr, c
	}
	l.pn.mu.Unlock()
	l.notify()
}

// paneNote takes a notification of feature panes from connection c (the reader's goroutine).
func (l *Link) paneNote(c *conn, m message) {
	switch m.Method {
	case remotewire.NotifyPanes:
		var pr remotewire.PanesResult
		if json.Unmarshal(m.Params, &pr) != nil {
			return
		}
		l.pn.mu.Lock()
		l.pn.list, l.pn.from = pr, c
		l.pn.notes++
		l.pn.mu.Unlock()
		l.notify()
	case remotewire.NotifyFrame:
		var f remotewire.FrameParams
		if json.Unmarshal(m.Params, &f) != nil {
			return
		}
		w := l.watchOf(f.Pane, c)
		if w == nil {
			return // a watch closed here: the host ends it at the unwatch
		}
		w.onFrame(f)
		c.notify(remotewire.MethodAck, remotewire.AckParams{Pane: f.Pane, Seq: f.Seq})
	case remotewire.NotifyPaneEnded:
		var p remotewire.PaneEndedParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if w := l.watchOf(p.Pane, c); w != nil {
			w.end("ended on " + l.host.Name + ": " + clean(p.Reason))
		}
	}
}

func (l *Link) watchOf(pane string, c *conn) *Watch {
	l.pn.mu.Lock()
	defer l.pn.mu.Unlock()
	if w := l.pn.watches[pane]; w != nil && w.c == c {
		return w
	}
	return nil
}

// panesEnded ends the watches of connection c, which ended: why says why.
func (l *Link) panesEnded(c *conn, why error) {
	l.pn.mu.Lock()
	var ws []*Watch
	for _, w := range l.pn.watches {
		if w.c == c {
			ws = append(ws, w)
		}
	}
	l.pn.mu.Unlock()
	for _, w := range ws {
		w.end(fmt.Sprintf("%s unreachable: %v", l.host.Name, why))
	}
}

// Watch is one pane of the host shown here.
type Watch struct {
	l       *Link
	c       *conn
	pane    string
	onFrame func(remotewire.FrameParams)
	onEnd   func(reason string)

	mu      sync.Mutex
	in      []byte
	cols    int
	rows    int
	resize  bool // cols x rows is to be sent
	closing bool
	kick    chan struct{} // 1 slot: the pump has work
	ended   chan struct{}
	once    sync.Once
}

// Watch starts showing pane at cols x rows: onFrame gets each frame, in order, on the link's
// reader goroutine (it must not wait on the network; the next frame is asked for once it
// returns); onEnd is told once, on any goroutine, why the watch ended when it was not Close
// (the pane ended there, the link went down). The host sizes the pane's terminal to cols x
// rows while watched.
func (l *Link) Watch(ctx context.Context, pane string, cols, rows int, onFrame func(remotewire.FrameParams), onEnd func(reason string)) (*Watch, error) {
	l.mu.Lock()
	c, st, shared := l.conn, l.state, l.shared
	l.mu.Unlock()
	if c == nil {
		return nil, &UnreachableError{Host: l.host.Name, State: st.State, Reason: st.Reason, NextTry: st.NextTry}
	}
	if !slices.Contains(shared, remotewire.FeaturePanes) {
		return nil, &RemoteError{Host: l.host.Name, Method: remotewire.MethodWatch, Effect: "none",
			Message: fmt.Sprintf("the tickmux on %s does not offer %q: update it", l.host.SSH, remotewire.FeaturePanes)}
	}
	w := &Watch{l: l, c: c, pane: pane, onFrame: onFrame, onEnd: onEnd, cols: cols, rows: rows,
		kick: make(chan struct{}, 1), ended: make(chan struct{})}
	l.pn.mu.Lock()
	if l.pn.watches == nil {
		l.pn.watches = map[string]*Watch{}
	}
	old := l.pn.watches[pane]
	l.pn.watches[pane] = w // before the call: the first frame may come before its answer
	l.pn.mu.Unlock()
	if old != nil {
		old.end("watched again")
	}
	if err := c.call(ctx, remotewire.MethodWatch, remotewire.WatchParams{Pane: pane, Cols: cols, Rows: rows}, nil); err != nil {
		w.once.Do(func() { close(w.ended) })
		l.pn.mu.Lock()
		if l.pn.watches[pane] == w {
			delete(l.pn.watches, pane)
		}
		l.pn.mu.Unlock()
		return nil, err
	}
	l.wg.Add(1)
	go func() { // owner: Watch; ends at Close, the watch's end or the connection's
		defer l.wg.Done()
		w.pump()
	}()
	return w, nil
}

// Input sends b (copied) to the pane's terminal, after what was given before; it never waits.
// What a host that does not take it leaves waiting is bounded: beyond it, input is dropped.
func (w *Watch) Input(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing {
		return nil
	}
	if len(w.in)+len(b) > maxWatchInput {
		return errors.New("the host is not taking input; input dropped")
	}
	w.in = append(w.in, b...)
	w.poke()
	return nil
}

// Resize asks the host to size the pane cols x rows; only the latest size asked goes.
func (w *Watch) Resize(cols, rows int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cols == w.cols && rows == w.rows || w.closing {
		return
	}
	w.cols, w.rows, w.resize = cols, rows, true
	w.poke()
}

// Close ends the watch: the host is told (in the background), and no more frames come.
func (w *Watch) Close() {
	w.mu.Lock()
	w.closing = true
	w.poke()
	w.mu.Unlock()
}

func (w *Watch) poke() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// end ends the watch, telling onEnd why unless it was closed here.
func (w *Watch) end(why string) {
	w.once.Do(func() {
		close(w.ended)
		l := w.l
		l.pn.mu.Lock()
		if l.pn.watches[w.pane] == w {
			delete(l.pn.watches, w.pane)
		}
		l.pn.mu.Unlock()
		w.mu.Lock()
		closing := w.closing
		w.mu.Unlock()
		if !closing && w.onEnd != nil {
			w.onEnd(why)
		}
	})
}

// pump sends the input and sizes given to the watch, then the unwatch at Close.
func (w *Watch) pump() {
	c := w.c
	for {
		select {
		case <-w.kick:
		case <-w.ended:
			return
		case <-c.done:
			return
		}
		w.mu.Lock()
		in, cols, rows, resize, closing := w.in, w.cols, w.rows, w.resize, w.closing
		w.in, w.resize = nil, false
		w.mu.Unlock()
		if closing {
			w.end("")
			ctx, cancel := context.WithTimeout(w.l.ctx, paneCallWait)
			_ = c.call(ctx, remotewire.MethodUnwatch, remotewire.PaneParams{Pane: w.pane}, nil)
			cancel()
			return
		}
		if resize {
			ctx, cancel := context.WithTimeout(w.l.ctx, paneCallWait)
			if err := c.call(ctx, remotewire.MethodResize, remotewire.WatchParams{Pane: w.pane, Cols: cols, Rows: rows}, nil); err != nil && !c.failed() {
				w.l.log("remote: %s: resizing %s: %v", w.l.host.Name, w.pane, err)
			}
			cancel()
		}
		for len(in) > 0 {
			n := min(len(in), inputPiece)
			if !c.notify(remotewire.MethodInput, remotewire.InputParams{Pane: w.pane, Data: in[:n]}) {
				return
			}
			in = in[n:]
		}
	}
}

// Open opens a pane on the host, as the person does from a view there, and returns its id.
func (l *Link) Open(ctx context.Context, p remotewire.OpenParams) (string, error) {
	var r remotewire.OpenResult
	if err := l.Call(ctx, remotewire.MethodOpen, p, &r); err != nil {
		return "", err
	}
	return r.Pane, nil
}

// notify sends a notification (no answer comes); false when the connection ended first.
func (c *conn) notify(method string, params any) bool {
	p, err := json.Marshal(params)
	if err != nil {
		return false
	}
	line, err := json.Marshal(request{Method: method, Params: p})
	if err != nil {
		return false
	}
	select {
	case c.out <- append(line, '\n'):
		return true
	case <-c.done:
		return false
	}
}
