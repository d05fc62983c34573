package vt

import (
	"os"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A snapshot's new cells come with their pages mapped, before anything is written to them: the
// first draw after a quiet spell takes one system call, not a page fault per 4 KB.
func TestNewScreenCellsAreMapped(t *testing.T) {
	t.Parallel()
	var s Screen
	s.setSize(1000, 200) // 9.6 MB: fresh pages from the system
	cells := s.Cells
	page := uintptr(os.Getpagesize())
	size := uintptr(len(cells)) * unsafe.Sizeof(cells[0])
	start := (uintptr(unsafe.Pointer(&cells[0])) + page - 1) &^ (page - 1)
	end := (uintptr(unsafe.Pointer(&cells[0])) + size) &^ (page - 1)
	vec := make([]byte, (end-start)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, start, end-start, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	missing := 0
	for _, b := range vec {
		if b&1 == 0 {
			missing++
		}
	}
	if missing > 0 {
		if populate(unsafe.Pointer(&cells[0]), size) != nil {
			t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14)")
		}
		t.Fatalf("%d of the %d pages of a new snapshot's cells are not mapped", missing, len(vec))
	}
	runtime.KeepAlive(cells)
}
