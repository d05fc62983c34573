package mirror

// Typing lanes (viewterm's lane.go): a view's terminal that can take typed text straight to a
// pane asks, after each read it parsed, whether it may; the App answers on its own goroutine,
// once it has taken everything that read made, in the view's order of events (a mark).

// Lane types printable ASCII into the program a view's keys go to; false: closed, nothing sent.
type Lane = interface {
	Type(b []byte) bool
}

// laneScreen is a view's screen that can take lanes (viewterm.Terminal).
type laneScreen interface {
	EnableLanes()
	SetLane(l Lane, seq uint64)
}

// feedDone is the event a laneScreen posts after the events of each read (viewterm.FeedDone).
type feedDone interface {
	FeedSeq() uint64
}

// OnLane sets the App's function that opens a lane for view id, or gives nil when a key typed
// now would not go to a pane as it is. It runs on the UI goroutine, after everything the view
// sent before. Views attached from now on take lanes.
func (m *Mirror) OnLane(f func(id string) Lane) {
	m.mu.Lock()
	m.laneFor = f
	m.mu.Unlock()
}

// startLanes turns lanes on for a view being attached, when the App opens them.
func (m *Mirror) startLanes(sc ViewScreen) {
	m.mu.Lock()
	on := m.laneFor != nil
	m.mu.Unlock()
	if ls, ok := sc.(laneScreen); ok && on {
		ls.EnableLanes()
	}
}

// askLane posts, in the view's order of events, the App's answer for the read numbered seq.
// The view's reader goroutine.
func (v *mirrorView) askLane(seq uint64) {
	ls, ok := v.sc.(laneScreen)
	if !ok {
		return
	}
	m := v.m
	m.postMark(v.id, func() {
		m.mu.Lock()
		f := m.laneFor
		m.mu.Unlock()
		var l Lane
		if f != nil {
			if open := f(v.id); open != nil {
				l = &viewLane{v: v, l: open}
			}
		}
		ls.SetLane(l, seq)
	})
}

// viewLane is the App's lane for one view: typing through it makes the view the latest, as a
// key does, or leaves the read to the usual way when another view is the latest (the logical
// screen takes this view's size first).
type viewLane struct {
	v *mirrorView
	l Lane
}

func (vl *viewLane) Type(b []byte) bool {
	m := vl.v.m
	m.mu.Lock()
	latest := m.latest == vl.v.id
	m.mu.Unlock()
	return latest && vl.l.Type(b)
}
