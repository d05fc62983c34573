package vt

import (
	"sync/atomic"
	"testing"
)

// OnChange's function runs after each write and resize, on the goroutine that made it, and no
// more once it is cleared; Changed still wakes a waiter.
func TestOnChange(t *testing.T) {
	t.Parallel()
	term := New(20, 3, nil)
	var calls atomic.Int32
	term.OnChange(func() { calls.Add(1) })
	term.Write([]byte("one"))
	term.Write([]byte("two"))
	term.Resize(30, 4)
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls after two writes and a resize, want 3", n)
	}
	select {
	case <-term.Changed():
	default:
		t.Fatal("Changed has nothing after the writes")
	}
	term.OnChange(nil)
	term.Write([]byte("three"))
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls after OnChange(nil) and a write, want still 3", n)
	}
}
