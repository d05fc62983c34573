package views

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// picture draws the arranged panes as boxes labelled with the first letter of their ids.
func picture(rects map[string]Rect, w, h int) string {
	grid := make([][]byte, h)
	for y := range grid {
		grid[y] = []byte(strings.Repeat(".", w))
	}
	for id, r := range rects {
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				grid[y][x] = id[0]
			}
		}
	}
	lines := make([]string, h)
	for y := range grid {
		lines[y] = string(grid[y])
	}
	return strings.Join(lines, "\n")
}

func TestSplitsLikeTmux(t *testing.T) {
	var l Layout
	l.Add("", "a", SideBySide)
	l.Add("a", "b", SideBySide)
	l.Add("b", "c", Stacked)
	got := picture(l.Arrange(Rect{0, 0, 12, 6}), 12, 6)
	want := strings.Join([]string{
		"aaaaaabbbbbb",
		"aaaaaabbbbbb",
		"aaaaaabbbbbb",
		"aaaaaacccccc",
		"aaaaaacccccc",
		"aaaaaacccccc",
	}, "\n")
	if got != want {
		t.Fatalf("layout\n%s\nwant\n%s", got, want)
	}
	if ids := strings.Join(l.IDs(), ""); ids != "abc" {
		t.Fatalf("order %s", ids)
	}
}

func TestNeighbors(t *testing.T) {
	var l Layout
	l.Add("", "a", SideBySide)
	l.Add("a", "b", SideBySide)
	l.Add("b", "c", Stacked)
	rects := l.Arrange(Rect{0, 0, 12, 6})
	cases := []struct {
		from string
		d    Direction
		want string
	}{
		{"a", Right, "b"}, {"b", Left, "a"}, {"c", Left, "a"}, {"b", Down, "c"}, {"c", Up, "b"},
		{"a", Left, ""}, {"a", Up, ""}, {"c", Down, ""},
	}
	for _, c := range cases {
		if got := l.Neighbor(c.from, c.d, rects); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.from, c.d, got, c.want)
		}
	}
}

func TestResizeRemoveSwapZoom(t *testing.T) {
	var l Layout
	l.Add("", "a", SideBySide)
	l.Add("a", "b", SideBySide)
	l.Arrange(Rect{0, 0, 20, 4})
	if !l.Resize("a", Right, 4) {
		t.Fatal("resize did nothing")
	}
	r := l.Arrange(Rect{0, 0, 20, 4})
	if r["a"].W != 14 || r["b"].W != 6 {
		t.Fatalf("after resize a=%d b=%d", r["a"].W, r["b"].W)
	}
	// Borders never squeeze a pane below its frame.
	for i := 0; i < 20; i++ {
		l.Resize("a", Right, 4)
	}
	r = l.Arrange(Rect{0, 0, 20, 4})
	if r["b"].W < minPane {
		t.Fatalf("b squeezed to %d", r["b"].W)
	}
	l.Swap("a", "b")
	if ids := strings.Join(l.IDs(), ""); ids != "ba" {
		t.Fatalf("after swap %s", ids)
	}
	l.Zoom("a")
	if r := l.Arrange(Rect{0, 0, 20, 4}); len(r) != 1 || r["a"].W != 20 {
		t.Fatalf("zoomed %v", r)
	}
	l.Zoom("a")
	l.Remove("b")
	if r := l.Arrange(Rect{0, 0, 20, 4}); len(r) != 1 || r["a"] != (Rect{0, 0, 20, 4}) {
		t.Fatalf("after remove %v", r)
	}
	l.Remove("a")
	if !l.Empty() {
		t.Fatal("not empty")
	}
}

func TestDragBorder(t *testing.T) {
	var l Layout
	l.Add("", "a", SideBySide)
	l.Add("a", "b", Stacked)
	l.Arrange(Rect{0, 0, 10, 10})
	b := l.BorderAt(3, 5)
	if b == nil || b.Axis != Stacked || b.At != 5 {
		t.Fatalf("border %+v", b)
	}
	l.Drag(b, 3, 7)
	if r := l.Arrange(Rect{0, 0, 10, 10}); r["a"].H != 7 || r["b"].H != 3 {
		t.Fatalf("after drag %v", r)
	}
	if l.BorderAt(3, 2) != nil {
		t.Fatal("a border inside a pane")
	}
}

// The tiled preset puts 51 panes opened by splitting the newest each time (most of them squeezed to
// nothing) in an 8 x 7 grid, every pane at least a frame and a cell, in reading order.
func TestTileMakesEveryPaneVisible(t *testing.T) {
	var l Layout
	prev := ""
	for i := range 51 {
		id := fmt.Sprintf("p%02d", i)
		l.Add(prev, id, Axis(i%2))
		prev = id
	}
	ids := l.IDs()
	l.ApplyPreset(Tiled)
	if got := l.IDs(); !slices.Equal(got, ids) {
		t.Fatalf("tiled order %v, want %v", got, ids)
	}
	area := Rect{0, 0, 120, 44}
	r := l.Arrange(area)
	if len(r) != 51 {
		t.Fatalf("%d panes arranged", len(r))
	}
	cells := 0
	for id, p := range r {
		if p.W < 17 || p.H < 5 || p.H > 6 || (id < "p49" && p.W > 18) {
			t.Errorf("%s is %dx%d, want about 17x5 (the last row's two wider)", id, p.W, p.H)
		}
		cells += p.W * p.H
	}
	if cells != area.W*area.H {
		t.Errorf("the panes cover %d cells of %d", cells, area.W*area.H)
	}
	if a, b := r["p00"], r["p07"]; b.Y <= a.Y || b.X != a.X {
		t.Errorf("p07 at %v does not start the second row below p00 at %v", b, a)
	}
	l.Add("p50", "p51", SideBySide) // splitting keeps working on a tiled layout
	if r := l.Arrange(area); r["p51"].W == 0 || r["p50"].W == 0 {
		t.Errorf("split of a tiled pane: %v %v", r["p50"], r["p51"])
	}
}
