package vt

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Terminals borrow vt10x's parse reader for a flush only, many at once, and keep a bounded
// number of spare ones.
func TestParseReadersAreLent(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			term := New(40, 5, nil)
			for j := 0; j < 200; j++ {
				term.Write(fmt.Appendf(nil, "\x1b[2J\x1b[Hhello %d\x1b[1;1H\x1b[3%dmworld\x1b[m", j, j%8))
				if got := term.Text(); !strings.HasPrefix(got, "world") {
					t.Errorf("the screen reads %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := parseReaders.Len(); n == 0 || n > maxFreeParseReaders {
		t.Errorf("%d spare parse readers after the flushes, want 1 to %d", n, maxFreeParseReaders)
	}
}
