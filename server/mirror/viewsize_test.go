package mirror

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// sizedScreen is a view's terminal that reports any size (as a terminal set with `stty rows N
// cols N` does) while its cells are a small simulation screen: what is drawn beyond it is
// counted, not kept.
type sizedScreen struct {
	*framesScreen
	w, h    atomic.Int64
	outside atomic.Int64 // cells drawn beyond the simulation screen
	note    atomic.Value // the text drawn on the cells past the cap's columns or rows, row 0 / col 0
}

func (s *sizedScreen) Size() (int, int) { return int(s.w.Load()), int(s.h.Load()) }
func (s *sizedScreen) PutCell(x, y int, text string, st tcell.Style, width int) {
	sw, sh := s.framesScreen.Size()
	if x >= sw || y >= sh {
		s.outside.Add(1)
		if x >= MaxViewCols && y == 0 || y >= MaxViewRows && x < 80 {
			n, _ := s.note.Load().(string)
			s.note.Store(n + text)
		}
		return
	}
	s.framesScreen.PutCell(x, y, text, st, width)
}

// A view's size is capped before anything is allocated: a terminal of 65535x65535 makes a layout
// of MaxViewCols x MaxViewRows, drawn with a note saying so; a frame draws no cell past the cap
// but the note's; a terminal that reports no size gets 80x24.
// Issue 24 item 1.
func TestViewSizeCapped(t *testing.T) {
	m := NewSized(65535, 65535)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	defer m.Fini()
	if w, h := m.Size(); w != MaxViewCols || h != MaxViewRows {
		t.Fatalf("a server started for a 65535x65535 terminal lays out %dx%d, want the cap %dx%d", w, h, MaxViewCols, MaxViewRows)
	}
	huge := &sizedScreen{framesScreen: newFramesScreen(t, 40, 5)}
	huge.w.Store(65535)
	huge.h.Store(65535)
	if err := m.Attach("huge", huge, nil); err != nil {
		t.Fatal(err)
	}
	draw(m, "HUGE-VIEW")
	if f := huge.WaitFrame(t); !strings.Contains(f, "HUGE-VIEW") {
		t.Fatalf("the huge view shows %q", f)
	}
	if w, h := m.Size(); w != MaxViewCols || h != MaxViewRows {
		t.Fatalf("a 65535x65535 view lays out %dx%d, want %dx%d", w, h, MaxViewCols, MaxViewRows)
	}
	if n, _ := huge.note.Load().(string); !strings.Contains(n, "too large: drawn at 1000x500") {
		t.Fatalf("the huge view's note past the cap reads %q", n)
	}
	if n := huge.outside.Load(); n > MaxViewCols*MaxViewRows {
		t.Fatalf("a frame drew %d cells beyond the simulation screen: more than the cap's", n)
	}

	// Only taller than the cap: the note goes below the layout.
	huge.note.Store("")
	huge.w.Store(120)
	huge.h.Store(100000)
	m.resized("huge")
	if w, h := m.Size(); w != 120 || h != MaxViewRows {
		t.Fatalf("a 120x100000 view lays out %dx%d, want 120x%d", w, h, MaxViewRows)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		draw(m, "TALL-VIEW")
		huge.WaitFrame(t)
		n, _ := huge.note.Load().(string)
		if strings.Contains(n, "too large: drawn at 120x500") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tall view's note below the cap reads %q", n)
		}
	}

	for _, size := range [][2]int{{0, 0}, {-5, -1}, {0, 30}} {
		huge.w.Store(int64(size[0]))
		huge.h.Store(int64(size[1]))
		m.resized("huge")
		w, h := m.Size()
		wantW, wantH := clampViewSize(size[0], size[1])
		if w != wantW || h != wantH || w <= 0 || h <= 0 {
			t.Fatalf("a view of %dx%d lays out %dx%d, want %dx%d", size[0], size[1], w, h, wantW, wantH)
		}
	}
}
