package views

// One view over several hosts (issue 40): the tabs and panes of the tickmux servers on other
// hosts (package remote, [[hosts]]) are shown here as tabs of their own, named HOST:NAME, each
// pane side by side in the order its host lists them. A pane of another host is a local
// instance (host.OpenSpec.Remote) whose terminal is fed with the host's frames and whose input
// and sizes go to the host, so that every pane feature works on it as on a local pane: keys,
// pastes and mouse as its terminal's modes encode them, scroll mode over the scrollback the
// frames brought, zoom, layout. Its id and title say the host ("b:shell:1", "bash · on b").
//
// The panes follow the hosts: when a host comes up (or tells of a change), its panes are shown
// and watched; while it is unreachable they stay, saying since when; when it is back they are
// watched again, and those it no longer lists close. A pane closed here (prefix x) is only
// hidden: its program goes on running there, and it is not shown again in this run.
//
// Everything runs on the UI goroutine but the frames, which the links' readers write into the
// panes' terminals. The sync is started by the status bar's tab list (tabItems), which every
// rebuild reads: a host's change wakes the App's event loop, which rebuilds.

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"tickmux/host"
	"tickmux/internal/remotewire"
	"tickmux/remote"
)

// remoteWatchWait bounds the start of a watch (its round trip).
const remoteWatchWait = 15 * time.Second

// TabInfo is one tab as a proxy lists it to another host (issue 40): its name as the status
// bar shows it and its panes in reading order.
type TabInfo struct {
	Index int // its place among this host's tabs
	Name  string
	Panes []PaneInfo
}

// PaneInfo is one pane of a TabInfo.
type PaneInfo struct {
	ID, Title string
}

// TabList lists the tabs and their panes for a proxy, from any goroutine (it waits for the UI
// goroutine, as TakeSnapshot does); false once the App is stopping. Panes of other hosts shown
// here are left out: a host that shows this one's panes must not get its own back.
func (a *App) TabList() ([]TabInfo, bool) {
	got := make(chan []TabInfo, 1)
	select {
	case <-a.done:
		return nil, false
	default:
	}
	go a.app.QueueUpdate(func() { got <- a.tabList() }) // owner: tview's queue; the send never blocks
	select {
	case l := <-got:
		return l, true
	case <-a.done:
		return nil, false
	}
}

func (a *App) tabList() []TabInfo {
	out := make([]TabInfo, 0, len(a.tabs))
	for i, t := range a.tabs {
		ti := TabInfo{Index: i, Name: a.tabName(i)}
		ids := t.layout.IDs()
		if t.floatID != "" {
			ids = append(ids, t.floatID)
		}
		for _, id := range ids {
			p := a.panes[id]
			if p == nil || p.inst.Remote() != nil || p.inst.Status() == host.StatusEnded {
				continue
			}
			ti.Panes = append(ti.Panes, PaneInfo{ID: id, Title: a.paneTitle(p.inst)})
		}
		if len(ti.Panes) > 0 {
			out = append(out, ti)
		}
	}
	return out
}

// remoteLinks is what the App needs of a remote.Manager for panes.
type remoteLinks interface {
	Link(name string) *remote.Link
}

// remotePanes is an App's panes of other hosts (UI goroutine).
type remotePanes struct {
	panes     map[string]*rpane   // by local id
	tabs      map[*tab]string     // the tabs made for other hosts' tabs: their host
	seen      map[string]hostSeen // by host: what the last sync saw
	dismissed map[string]bool     // panes closed here: not shown again
	focus     string              // a pane opened from here: focused once it shows
	due       bool                // a sync is queued
}

type hostSeen struct {
	state remote.State
	fresh bool
	list  remotewire.PanesResult
}

// rpane is one pane of another host shown here.
type rpane struct {
	host, pane, id string
	in             *host.Instance
	io             *remoteIO
	gen            int  // the watch's generation: what an older watch says is ignored
	watching       bool // a watch runs or is starting
	down           bool // its host is unreachable: the title says since when
}

// remoteIO is a pane's host.RemoteIO: the current watch, and the title it is shown with.
type remoteIO struct {
	mu    sync.Mutex
	w     *remote.Watch
	title string // the pane's title as its host listed it
}

func (r *remoteIO) watch() *remote.Watch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w
}

func (r *remoteIO) Input(b []byte) {
	if w := r.watch(); w != nil {
		_ = w.Input(b) // a host that takes no input drops what is beyond the bound
	}
}

func (r *remoteIO) Resize(cols, rows int) {
	if w := r.watch(); w != nil {
		w.Resize(cols, rows)
	}
}

// remoteState keeps each App's remotePanes (the App's own fields are app.go's).
var remoteState sync.Map // *App → *remotePanes

func (a *App) rpanes() *remotePanes {
	v, _ := remoteState.LoadOrStore(a, &remotePanes{panes: map[string]*rpane{}, tabs: map[*tab]string{},
		seen: map[string]hostSeen{}, dismissed: map[string]bool{}})
	return v.(*remotePanes)
}

func (a *App) links() remoteLinks {
	l, _ := a.remote.q.(remoteLinks)
	return l
}

// remotePanesDue queues a sync of the other hosts' panes when a host, its panes or a pane shown
// here changed since the last. Called by every rebuild (through tabItems); cheap when nothing
// changed. UI goroutine.
func (a *App) remotePanesDue() {
	links := a.links()
	if links == nil {
		return
	}
	rp := a.rpanes()
	if rp.due {
		return
	}
	changed := false
	for _, st := range a.remote.q.States() {
		l := links.Link(st.Name)
		if l == nil {
			continue
		}
		list, fresh := l.Panes()
		if s, ok := rp.seen[st.Name]; !ok || s.state != st.State || s.fresh != fresh || !reflect.DeepEqual(s.list, list) {
			changed = true
			break
		}
	}
	for id := range rp.panes {
		if a.panes[id] == nil {
			changed = true // closed here
		}
	}
	if changed {
		rp.due = true
		a.handOver(func() {
			rp.due = false
			a.syncRemotePanes()
			a.rebuild()
		}, true, false)
	}
}

// syncRemotePanes shows every host's panes as the host lists them now. UI goroutine.
func (a *App) syncRemotePanes() {
	links := a.links()
	if links == nil {
		return
	}
	rp := a.rpanes()
	for t := range rp.tabs {
		if !slices.Contains(a.tabs, t) { // closed with its last pane
			delete(rp.tabs, t)
		}
	}
	for id, p := range rp.panes {
		if a.panes[id] == nil { // the person closed it: its program goes on there
			delete(rp.panes, id)
			rp.dismissed[id] = true
			p.gen++
			if w := p.io.watch(); w != nil {
				w.Close()
			}
			p.io.mu.Lock()
			p.io.w = nil
			p.io.mu.Unlock()
		}
	}
	for _, st := range a.remote.q.States() {
		l := links.Link(st.Name)
		if l == nil {
			continue
		}
		list, fresh := l.Panes()
		rp.seen[st.Name] = hostSeen{st.State, fresh, list}
		switch {
		case st.State == remote.Up && fresh:
			a.showHost(rp, l, list)
		case st.State != remote.Up:
			a.hostDown(rp, st)
		}
	}
}

// showHost shows the panes host l lists, in a tab per tab of it, watches those not watched, and
// closes those it no longer lists.
func (a *App) showHost(rp *remotePanes, l *remote.Link, list remotewire.PanesResult) {
	name := l.Name()
	listed := map[string]bool{}
	for _, t := range list.Tabs {
		// The tab here is the one that shows a pane of it already, if one does.
		var lt *tab
		for _, p := range t.Panes {
			if at := a.tabOf(name + ":" + p.ID); at != nil && rp.tabs[at] == name {
				lt = at
				break
			}
		}
		var added []*rpane
		for _, p := range t.Panes {
			id := name + ":" + p.ID
			listed[id] = true
			if rp.dismissed[id] {
				continue
			}
			rpn := rp.panes[id]
			if rpn == nil {
				if rpn = a.newRemotePane(rp, name, p); rpn == nil {
					continue
				}
				added = append(added, rpn)
			}
			rpn.io.mu.Lock()
			rpn.io.title = capText(host.Printable(p.Title, false), 200)
			rpn.io.mu.Unlock()
			rpn.down = false
			if a.tabOf(id) != nil {
				continue // where it is (the person may have moved it)
			}
			if lt == nil {
				lt = &tab{}
				a.tabs = append(a.tabs, lt)
				rp.tabs[lt] = name
			}
			target := ""
			if ids := lt.layout.IDs(); len(ids) > 0 {
				target = ids[len(ids)-1]
			}
			lt.layout.Add(target, id, SideBySide)
			if lt.focus == "" {
				lt.focus = id
			}
		}
		if lt != nil {
			lt.name = name + ":" + capText(host.Printable(t.Name, false), 40)
		}
		// The new panes start at the size their tab gives them: the first frame fits.
		if lt != nil && len(added) > 0 {
			rects := lt.layout.Arrange(a.workspaceRect(a.screenSize()))
			for _, p := range added {
				if r, ok := rects[p.id]; ok {
					_ = p.in.Process().Resize(max(1, r.W-2), max(1, r.H-2))
				}
			}
		}
	}
	for id, p := range rp.panes {
		if p.host != name {
			continue
		}
		if !listed[id] { // gone there
			delete(rp.panes, id)
			p.gen++
			if w := p.io.watch(); w != nil {
				w.Close()
			}
			a.closePane(id)
			continue
		}
		if !p.watching {
			a.watchRemote(l, p)
		}
	}
	if id := rp.focus; id != "" && a.panes[id] != nil {
		rp.focus = ""
		a.setFocus(id)
	}
}

// newRemotePane opens the local instance that shows pane p of host name.
func (a *App) newRemotePane(rp *remotePanes, name string, p remotewire.Pane) *rpane {
	io := &remoteIO{}
	id := name + ":" + p.ID
	in, err := a.host.Open(host.OpenSpec{Remote: io, ID: id, Cols: max(10, p.Cols), Rows: max(3, p.Rows)})
	if err != nil {
		a.say(fmt.Sprintf("cannot show %s: %v", id, err))
		return nil
	}
	a.makePane(in)
	rpn := &rpane{host: name, pane: p.ID, id: id, in: in, io: io}
	rp.panes[id] = rpn
	return rpn
}

// watchRemote starts watching pane p at its size, in the background.
func (a *App) watchRemote(l *remote.Link, p *rpane) {
	p.watching = true
	p.gen++
	gen := p.gen
	cols, rows := p.in.Process().Size()
	mine := func(f func()) func() { // f, if the watch is still the pane's
		return func() {
			if p.gen == gen && a.rpanes().panes[p.id] == p {
				f()
			}
		}
	}
	ended := func(why string) {
		a.handOver(mine(func() {
			p.watching = false
			p.io.mu.Lock()
			p.io.w = nil
			p.io.mu.Unlock()
			if strings.HasPrefix(why, "ended on ") { // the pane ended there: it closes here
				delete(a.rpanes().panes, p.id)
				a.closePane(p.id)
				a.say(p.id + " " + why)
			} else {
				delete(a.rpanes().seen, p.host) // the next rebuild syncs: watched again if it is up
			}
			a.rebuild()
		}), true, false)
	}
	go func() { // owner: watchRemote; ends with the watch's answer (remoteWatchWait at most)
		ctx, cancel := context.WithTimeout(context.Background(), remoteWatchWait)
		defer cancel()
		w, err := l.Watch(ctx, p.pane, cols, rows, func(f remotewire.FrameParams) { a.remoteFrame(p, f) }, ended)
		a.handOver(func() {
			if p.gen != gen || a.rpanes().panes[p.id] != p {
				if w != nil {
					w.Close() // closed or watched again meanwhile
				}
				return
			}
			if err != nil {
				p.watching = false
				a.say(fmt.Sprintf("%s: %v", p.id, err))
				return
			}
			p.io.mu.Lock()
			p.io.w = w
			p.io.mu.Unlock()
			w.Resize(p.in.Process().Size()) // the view may have resized it meanwhile
		}, false, false)
	}()
}

// remoteFrame writes a frame into pane p's terminal: on the link's reader goroutine. A frame
// made for another size than the terminal's (a resize under way) is dropped: the one made after
// the resize is whole.
func (a *App) remoteFrame(p *rpane, f remotewire.FrameParams) {
	term := p.in.Terminal()
	if c, r := term.Size(); c != f.Cols || r != f.Rows {
		return
	}
	_, _ = term.Write([]byte(f.Data))
	suffix := " · on " + p.host
	t := term.Title()
	if strings.HasSuffix(t, suffix) {
		return
	}
	if t == "" {
		p.io.mu.Lock()
		t = p.io.title
		p.io.mu.Unlock()
	}
	setTitle(p, capText(t, 200)+suffix)
}

// setTitle sets pane p's terminal's title (what its frame and the status bar show).
func setTitle(p *rpane, title string) {
	_, _ = p.in.Terminal().Write([]byte("\x1b]2;" + strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return -1
		}
		return r
	}, title) + "\a"))
}

// hostDown says on each pane of a host that is not up since when it is unreachable.
func (a *App) hostDown(rp *remotePanes, st remote.HostState) {
	for _, p := range rp.panes {
		if p.host != st.Name || p.down {
			continue
		}
		p.down = true
		since := a.now()
		if st.State == remote.Unreachable {
			since = st.Since
		}
		p.io.mu.Lock()
		base := p.io.title
		p.io.mu.Unlock()
		if t := strings.TrimSuffix(p.in.Terminal().Title(), " · on "+p.host); t != "" {
			base = t
		}
		setTitle(p, fmt.Sprintf("%s · %s unreachable since %s", capText(base, 200), p.host, since.Local().Format("15:04")))
	}
}

// openRemote opens a pane on another host (the prompt's open-remote HOST [CMD...]) and focuses
// it once that host lists it.
func (a *App) openRemote(args []string) error {
	links := a.links()
	if len(args) == 0 {
		return fmt.Errorf("open-remote HOST [COMMAND...]: which host?")
	}
	var l *remote.Link
	if links != nil {
		l = links.Link(args[0])
	}
	if l == nil {
		return fmt.Errorf("no host %q in the config's [[hosts]]", args[0])
	}
	p := remotewire.OpenParams{Argv: args[1:], Plain: true}
	go func() { // owner: openRemote; ends with the host's answer (remoteWatchWait at most)
		ctx, cancel := context.WithTimeout(context.Background(), remoteWatchWait)
		defer cancel()
		pane, err := l.Open(ctx, p)
		a.handOver(func() {
			if err != nil {
				a.say(err.Error())
				return
			}
			id := l.Name() + ":" + pane
			if a.panes[id] != nil {
				a.setFocus(id)
				return
			}
			a.rpanes().focus = id // shown, and focused, when the host lists it
			a.say(fmt.Sprintf("opened %s on %s", pane, l.Name()))
		}, true, false)
	}()
	return nil
}
