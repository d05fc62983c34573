package freelist

import "testing"

// A list gives back what was put, newest first, and keeps no more than its bound.
func TestList(t *testing.T) {
	t.Parallel()
	l := New[int](2)
	if v := l.Get(); v != nil {
		t.Fatalf("an empty list gave %v", *v)
	}
	a, b, c := new(int), new(int), new(int)
	l.Put(a)
	l.Put(b)
	l.Put(c) // past the bound: let go
	if n := l.Len(); n != 2 {
		t.Fatalf("%d spare values, want 2", n)
	}
	if v := l.Get(); v != b {
		t.Fatal("Get did not give the last value put")
	}
}
