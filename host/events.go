package host

import "sync"

// EventKind says what changed. Events carry no data: a subscriber reads the current value from
// the host, so a burst of changes collapses into one event per (kind, instance).
type EventKind int

const (
	EventAdded     EventKind = iota // an instance was opened
	EventStatus                     // starting -> ready -> ended
	EventState                      // a new state arrived (tick/update or tick/read)
	EventCatalog                    // a describe brought a new catalog
	EventCalls                      // the instance's recent calls changed
	EventApprovals                  // an approval was requested, answered, withdrawn or voided
	EventRemoved                    // an ended instance left the registry
	EventAgent                      // an agent session in the instance's pane changed state (agents.go)
)

func (k EventKind) String() string {
	switch k {
	case EventAdded:
		return "added"
	case EventStatus:
		return "status"
	case EventState:
		return "state"
	case EventCatalog:
		return "catalog"
	case EventCalls:
		return "calls"
	case EventApprovals:
		return "approvals"
	case EventRemoved:
		return "removed"
	case EventAgent:
		return "agent"
	}
	return "unknown"
}

// Event names a change to one instance ("" for host-wide approvals).
type Event struct {
	Kind EventKind
	ID   string
}

// Subscription is a mailbox of events for one listener (the UI, an agent server). Posting never
// blocks the host: pending events are a set, so a listener that falls behind sees each
// (kind, instance) once, in the order it first changed.
type Subscription struct {
	bus    *bus
	wake   chan struct{} // capacity 1: "there is something to drain"
	mu     sync.Mutex
	queue  []Event
	queued map[Event]bool
	closed bool
}

// C is signalled when events are waiting; call Drain then.
func (s *Subscription) C() <-chan struct{} { return s.wake }

// Drain returns the waiting events and empties the mailbox.
func (s *Subscription) Drain() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue
	s.queue = nil
	clear(s.queued)
	return q
}

// Close stops delivery to this subscription.
func (s *Subscription) Close() {
	s.bus.remove(s)
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

func (s *Subscription) post(e Event) {
	s.mu.Lock()
	if s.closed || s.queued[e] {
		s.mu.Unlock()
		return
	}
	s.queued[e] = true
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// bus fans events out to subscriptions.
type bus struct {
	mu   sync.RWMutex
	subs []*Subscription
}

func (b *bus) subscribe() *Subscription {
	s := &Subscription{bus: b, wake: make(chan struct{}, 1), queued: map[Event]bool{}}
	b.mu.Lock()
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	return s
}

func (b *bus) remove(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.subs {
		if x == s {
			b.subs = append(b.subs[:i], b.subs[i+1:]...)
			return
		}
	}
}

func (b *bus) post(kind EventKind, id string) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, s := range b.subs {
		s.post(Event{Kind: kind, ID: id})
	}
}
