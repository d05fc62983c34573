package views

import (
	"fmt"
	"testing"

	"tickmux/server/mirror"
)

// A pane's draw after one key's echo, the key path's draw: a 200x60 pane full of coloured text,
// one character printed per draw. go test -run XXX -bench PaneEchoDraw ./views
func BenchmarkPaneEchoDraw(b *testing.B) {
	f := newFakeBackend(200, 60)
	for i := 0; i < 59; i++ {
		fmt.Fprintf(f.term, "\x1b[3%dm%-199d\x1b[m\r\n", i%8, i*12345)
	}
	v := NewTerminalView(f, TerminalOptions{RequestDraw: func() {}})
	defer v.Close()
	m := mirror.NewSized(200, 60)
	if err := m.Init(); err != nil {
		b.Fatal(err)
	}
	defer m.Fini()
	v.SetRect(0, 0, 200, 60)
	v.Draw(m)
	i := 0
	for b.Loop() {
		f.term.Write([]byte{'a' + byte(i%26)})
		i++
		v.Draw(m)
	}
}
