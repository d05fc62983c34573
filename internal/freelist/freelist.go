// Package freelist keeps a few spare values between uses, for buffers that are costly to make
// again on a hot path (a fresh one is page-faulted in) but are held only while in use. Unlike a
// sync.Pool it is not emptied at each collection.
package freelist

import "sync"

// List holds at most max spare values. Any goroutine.
type List[T any] struct {
	mu   sync.Mutex
	free []*T
	max  int
}

// New makes a list that keeps at most max spare values.
func New[T any](max int) *List[T] { return &List[T]{max: max} }

// Get takes a spare value, nil when there is none.
func (l *List[T]) Get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.free)
	if n == 0 {
		return nil
	}
	v := l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	return v
}

// Put keeps v as a spare value, unless the list holds max already.
func (l *List[T]) Put(v *T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) < l.max {
		l.free = append(l.free, v)
	}
}

// Len is how many spare values the list holds.
func (l *List[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.free)
}
