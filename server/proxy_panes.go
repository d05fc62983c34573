package server

// The remote host's side of issue 40's "one view": a proxy (proxy.go) lists this host's tabs
// and panes, watches panes and types into them, for the person's local tickmux to show them as
// panes of its own (internal/remotewire, feature panes).
//
// A watch is one goroutine (paneWatch.run) that sends a pane's screen as frames (vt.Framer):
// the first whole, then what changed, one frame in flight: the next is made only once the
// local side acked the last, from the screen as it is then, so a pane that floods costs one
// screen's changes per round trip, whatever it writes. It wakes on the pane's terminal's
// changes (one hub per terminal hands them to every watch of it), the ack, its end, or the
// connection's. While watched, the pane's terminal has the watcher's size (the latest watch's,
// when several watch it): this host's views show it cropped or padded, as tmux shows a window
// sized for another client; the size goes back when the last watch of it ends.
//
// A connection that listed the panes is told when they change (a pane opened or removed), at
// most every panesDebounce.

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"tickmux/agent"
	"tickmux/host"
	"tickmux/internal/remotewire"
	"tickmux/vt"
)

// firstHistory is how many scrollback lines a watch's first frame carries.
const firstHistory = 1000

// frameGap is the least time between two frames of a watch (a view's frame pacing): a frame is
// made from the screen at once after the last was acked, but no sooner than this after the
// last was made, so that a program that floods without changing what shows (`yes`) does not
// make one for each read of its output.
const frameGap = 8 * time.Millisecond

// panesDebounce is how long a change of the panes waits before the list goes out: a pane
// opened is in its tab by then, and a burst of changes makes one list.
const panesDebounce = 150 * time.Millisecond

// paneConn is the panes side of one proxy connection.
type paneConn struct {
	s *srv
	c *proxyConn

	mu      sync.Mutex
	watches map[string]*paneWatch // by pane id
	listing bool                  // the panes' notifier runs
	done    chan struct{}         // closed when the connection ends
	wg      sync.WaitGroup
}

// paneConns are the proxy connections' panes sides.
var paneConns sync.Map // *proxyConn → *paneConn

func (s *srv) panesOf(c *proxyConn) *paneConn {
	pc, _ := paneConns.LoadOrStore(c, &paneConn{s: s, c: c, watches: map[string]*paneWatch{}, done: make(chan struct{})})
	return pc.(*paneConn)
}

// endPanes ends every watch of connection c (their sizes go back) and its notifier.
func (s *srv) endPanes(c *proxyConn) {
	v, ok := paneConns.LoadAndDelete(c)
	if !ok {
		return
	}
	pc := v.(*paneConn)
	pc.mu.Lock()
	close(pc.done)
	ws := pc.watches
	pc.watches = map[string]*paneWatch{}
	pc.mu.Unlock()
	for _, w := range ws {
		w.end()
	}
	pc.wg.Wait()
}

// proxyPanes answers the requests of feature panes.
func (s *srv) proxyPanes(c *proxyConn, req agent.Request) (any, *agent.Error) {
	pc := s.panesOf(c)
	bad := func(err error) *agent.Error {
		return proxyErr(agent.ReasonBadRequest, "bad %s params: %v", req.Method, err)
	}
	switch req.Method {
	case remotewire.MethodPanes:
		pc.listed()
		return s.paneList(), nil
	case remotewire.MethodWatch, remotewire.MethodResize:
		var p remotewire.WatchParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, bad(err)
		}
		if p.Cols < 1 || p.Rows < 1 || p.Cols > remotewire.MaxPaneCols || p.Rows > remotewire.MaxPaneRows {
			return nil, proxyErr(agent.ReasonBadRequest, "a pane of %dx%d: from 1x1 to %dx%d", p.Cols, p.Rows, remotewire.MaxPaneCols, remotewire.MaxPaneRows)
		}
		in, e := s.watchable(p.Pane)
		if e != nil {
			return nil, e
		}
		if req.Method == remotewire.MethodResize {
			pc.mu.Lock()
			w := pc.watches[p.Pane]
			pc.mu.Unlock()
			if w == nil {
				return nil, proxyErr(agent.ReasonNotFound, "%s is not watched", p.Pane)
			}
			sizes.set(in.Process(), w, p.Cols, p.Rows)
			return struct{}{}, nil
		}
		pc.watch(in, p.Cols, p.Rows)
		s.logf("%s: watches %s at %dx%d", c.name, p.Pane, p.Cols, p.Rows)
		return struct{}{}, nil
	case remotewire.MethodUnwatch:
		var p remotewire.PaneParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, bad(err)
		}
		pc.mu.Lock()
		w := pc.watches[p.Pane]
		delete(pc.watches, p.Pane)
		pc.mu.Unlock()
		if w != nil {
			w.end()
		}
		return struct{}{}, nil
	case remotewire.MethodOpen:
		var p remotewire.OpenParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, bad(err)
		}
		if s.host == nil {
			return nil, proxyErr(agent.ReasonFailed, "this tickmux opens no pane")
		}
		// As the person opens one from a view here: the App shows it beside the focused pane.
		in, err := s.host.Open(host.OpenSpec{Argv: p.Argv, Dir: p.Dir, Shell: p.Plain || len(p.Argv) == 0, Cols: 80, Rows: 24})
		if err != nil {
			return nil, proxyErr(agent.ReasonFailed, "%v", err)
		}
		s.logf("%s: opened %s: %q in %q", c.name, in.ID(), in.Argv(), p.Dir)
		return remotewire.OpenResult{Pane: in.ID()}, nil
	}
	return nil, proxyErr(agent.ReasonBadRequest, "unknown method %s", req.Method)
}

// proxyPaneNote takes a notification of feature panes: input for a pane, the ack of a frame.
// Anything else, or either without the feature, is dropped.
func (s *srv) proxyPaneNote(c *proxyConn, req agent.Request) {
	if !c.features[remotewire.FeaturePanes] {
		return
	}
	switch req.Method {
	case remotewire.MethodInput:
		var p remotewire.InputParams
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		if in, e := s.watchable(p.Pane); e == nil {
			_ = in.Process().Input(p.Data) // never waits; a program that reads nothing drops it
		}
	case remotewire.MethodAck:
		var p remotewire.AckParams
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		pc := s.panesOf(c)
		pc.mu.Lock()
		w := pc.watches[p.Pane]
		pc.mu.Unlock()
		if w != nil {
			for { // the latest ack waits, in place of one not yet taken
				select {
				case w.ack <- p.Seq:
					return
				default:
				}
				select {
				case <-w.ack:
				default:
				}
			}
		}
	}
}

// watchable is the running pane id (not another host's, shown here).
func (s *srv) watchable(id string) (*host.Instance, *agent.Error) {
	var in *host.Instance
	if s.host != nil {
		in = s.host.Get(id)
	}
	if in == nil || !in.Visible() || in.Remote() != nil || in.Status() == host.StatusEnded {
		return nil, proxyErr(agent.ReasonNotFound, "no running pane %s", id)
	}
	return in, nil
}

// paneList is this host's tabs and panes: the App's, else (no App: a test) every pane in one tab.
func (s *srv) paneList() remotewire.PanesResult {
	out := remotewire.PanesResult{Tabs: []remotewire.Tab{}}
	if s.host == nil {
		return out
	}
	pane := func(id, title string) (remotewire.Pane, bool) {
		in, e := s.watchable(id)
		if e != nil {
			return remotewire.Pane{}, false
		}
		p := remotewire.Pane{ID: id, Title: title, Kind: remotewire.KindPlain}
		if in.IsTick() {
			p.Kind = remotewire.KindTick
		}
		if title == "" {
			p.Title = in.Title()
		}
		p.Cols, p.Rows = in.Process().Size()
		return p, true
	}
	if s.a != nil {
		tabs, _ := s.a.TabList()
		for _, t := range tabs {
			wt := remotewire.Tab{Index: t.Index, Name: t.Name, Panes: []remotewire.Pane{}}
			for _, p := range t.Panes {
				if wp, ok := pane(p.ID, p.Title); ok {
					wt.Panes = append(wt.Panes, wp)
				}
			}
			out.Tabs = append(out.Tabs, wt)
		}
		return out
	}
	t := remotewire.Tab{Name: "0", Panes: []remotewire.Pane{}}
	for _, in := range s.host.Instances() {
		if wp, ok := pane(in.ID(), ""); ok {
			t.Panes = append(t.Panes, wp)
		}
	}
	out.Tabs = append(out.Tabs, t)
	return out
}

// listed starts the notifier of the panes' changes, once: the connection listed them.
func (pc *paneConn) listed() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.listing || pc.s.host == nil {
		return
	}
	pc.listing = true
	sub := pc.s.host.Subscribe()
	last, _ := json.Marshal(pc.s.paneList())
	pc.wg.Add(1)
	go func() { // owner: paneConn; ends with the connection (endPanes)
		defer pc.wg.Done()
		defer sub.Close()
		for {
			select {
			case <-pc.done:
				return
			case <-sub.C():
			}
			changed := false
			for _, e := range sub.Drain() {
				changed = changed || e.Kind == host.EventAdded || e.Kind == host.EventRemoved || e.Kind == host.EventStatus
			}
			if !changed {
				continue
			}
			select {
			case <-pc.done:
				return
			case <-time.After(panesDebounce):
			}
			sub.Drain()
			raw, _ := json.Marshal(pc.s.paneList())
			if string(raw) == string(last) {
				continue
			}
			last = raw
			if !proxySend(pc.c.nc, agent.Message{Method: remotewire.NotifyPanes, Params: raw}) {
				return
			}
		}
	}()
}

// watch starts a watch of in at cols x rows, ending the connection's earlier watch of it.
func (pc *paneConn) watch(in *host.Instance, cols, rows int) {
	w := &paneWatch{pc: pc, in: in, ack: make(chan uint64, 1), stop: make(chan struct{}), done: make(chan struct{})}
	pc.mu.Lock()
	old := pc.watches[in.ID()]
	pc.watches[in.ID()] = w
	pc.mu.Unlock()
	if old != nil {
		old.end()
	}
	sizes.set(in.Process(), w, cols, rows)
	go func() { // owner: paneWatch; ends at unwatch, the pane's end or the connection's (end)
		defer close(w.done)
		w.run()
	}()
}

// paneWatch is one watched pane of one connection.
type paneWatch struct {
	pc       *paneConn
	in       *host.Instance
	ack      chan uint64 // the acks of frames (1 slot)
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// end stops the watch, waits for its goroutine and gives the pane its size back.
func (w *paneWatch) end() {
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
	sizes.drop(w.in.Process(), w)
}

// run sends the frames until the watch ends.
func (w *paneWatch) run() {
	term := w.in.Terminal()
	wake, cancel := changes.subscribe(term)
	defer cancel()
	f := vt.Framer{FirstHistory: firstHistory}
	var buf []byte
	var seq uint64
	inFlight, dirty := false, true
	var last time.Time        // when a frame was last made
	var pace <-chan time.Time // fires when the next may be made
	send := func() bool {
		buf = f.Frame(term, buf[:0])
		dirty, last = false, time.Now()
		if len(buf) == 0 {
			return true
		}
		seq++
		cols, rows := f.Size()
		raw, _ := json.Marshal(remotewire.FrameParams{Pane: w.in.ID(), Seq: seq, Cols: cols, Rows: rows, Data: string(buf)})
		inFlight = true
		if cap(buf) > 1<<20 {
			buf = nil
		}
		return proxySend(w.pc.c.nc, agent.Message{Method: remotewire.NotifyFrame, Params: raw})
	}
	for {
		if dirty && !inFlight && pace == nil {
			if wait := frameGap - time.Since(last); wait > 0 {
				pace = time.After(wait)
			} else if !send() {
				return
			}
		}
		select {
		case <-pace:
			pace = nil
		case <-w.stop:
			return
		case <-w.pc.done:
			return
		case <-wake:
			dirty = true
		case n := <-w.ack:
			if n == seq {
				inFlight = false
				dirty = dirty || f.Pending() // lines that scrolled off go on, in order
			}
		case <-w.in.Ended():
			send() // its last screen, in flight or not
			reason := "ended"
			if e := w.in.EndInfo(); e != nil {
				reason = e.Reason
			}
			raw, _ := json.Marshal(remotewire.PaneEndedParams{Pane: w.in.ID(), Reason: reason})
			proxySend(w.pc.c.nc, agent.Message{Method: remotewire.NotifyPaneEnded, Params: raw})
			w.pc.mu.Lock()
			if w.pc.watches[w.in.ID()] == w {
				delete(w.pc.watches, w.in.ID())
			}
			w.pc.mu.Unlock()
			return
		}
	}
}

// sizes are the watchers' sizes of each pane: the latest watch's wins, and the pane gets the
// size its views ask for back when the last ends.
var sizes = &sizeTable{m: map[*host.Process][]sizeOf{}}

type sizeTable struct {
	mu sync.Mutex
	m  map[*host.Process][]sizeOf
}

type sizeOf struct {
	w          *paneWatch
	cols, rows int
}

func (t *sizeTable) set(p *host.Process, w *paneWatch, cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := slices.DeleteFunc(t.m[p], func(s sizeOf) bool { return s.w == w })
	t.m[p] = append(l, sizeOf{w, cols, rows})
	_ = p.SetSizeOverride(cols, rows)
}

func (t *sizeTable) drop(p *host.Process, w *paneWatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := slices.DeleteFunc(t.m[p], func(s sizeOf) bool { return s.w == w })
	if len(l) == 0 {
		delete(t.m, p)
		p.ClearSizeOverride()
		return
	}
	t.m[p] = l
	last := l[len(l)-1]
	_ = p.SetSizeOverride(last.cols, last.rows)
}

// changes hands each watched terminal's changes to every watch of it: a terminal has one
// Changed channel, which one goroutine per watched terminal reads.
var changes = &changeHubs{m: map[*vt.Terminal]*changeHub{}}

type changeHubs struct {
	mu sync.Mutex
	m  map[*vt.Terminal]*changeHub
}

type changeHub struct {
	subs map[chan struct{}]bool
	stop chan struct{}
}

// subscribe returns a 1-slot channel that gets a value after term changed, and its cancel.
func (hs *changeHubs) subscribe(term *vt.Terminal) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h := hs.m[term]
	if h == nil {
		h = &changeHub{subs: map[chan struct{}]bool{}, stop: make(chan struct{})}
		hs.m[term] = h
		go hs.run(term, h) // owner: changeHubs; ends when the last watch of term cancels
	}
	h.subs[ch] = true
	return ch, func() {
		hs.mu.Lock()
		defer hs.mu.Unlock()
		delete(h.subs, ch)
		if len(h.subs) == 0 {
			close(h.stop)
			delete(hs.m, term)
		}
	}
}

func (hs *changeHubs) run(term *vt.Terminal, h *changeHub) {
	for {
		select {
		case <-h.stop:
			return
		case <-term.Changed():
		}
		// To the hub of term now: a watch that ended and one that began may have swapped hubs
		// while this one read the change.
		hs.mu.Lock()
		if cur := hs.m[term]; cur != nil {
			for ch := range cur.subs {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
		}
		hs.mu.Unlock()
	}
}
