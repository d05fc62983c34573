package viewterm_test

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/server/viewterm"
)

// typedLane records what a lane typed; refuse makes it closed.
type typedLane struct {
	mu     sync.Mutex
	typed  []string
	refuse bool
}

func (l *typedLane) Type(b []byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refuse {
		return false
	}
	l.typed = append(l.typed, string(b))
	return true
}

func (l *typedLane) got() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.typed, "|")
}

// spec: issue 29 (quiet key echo). The reader types a read through the lane only when the lane
// was opened after its last read given to the input processor, the read is printable ASCII, and
// nothing waits in the processor or the paste's splitter; every other read comes as events,
// followed by its FeedDone.
func TestReaderTakesTheLaneOnlyWhenNothingWaits(t *testing.T) {
	ti := lookup(t, "xterm-256color")
	tty := newFakeTty(40, 10)
	sc := viewterm.New(tty, ti, viewterm.Charset(os.Getenv))
	sc.EnableLanes()
	if err := sc.Init(); err != nil {
		t.Fatal(err)
	}
	defer sc.Fini()
	evs := make(chan string, 64)
	go func() {
		for {
			ev := sc.PollEvent()
			if ev == nil {
				close(evs)
				return
			}
			switch e := ev.(type) {
			case *tcell.EventResize:
			case *viewterm.FeedDone:
				evs <- "fed " + string(rune('0'+e.Seq))
			default:
				evs <- describe(ev)
			}
		}
	}()
	next := func() string {
		select {
		case e := <-evs:
			return e
		case <-time.After(20 * time.Second): // a hang guard
			t.Fatal("no event")
			return ""
		}
	}
	expect := func(want ...string) {
		t.Helper()
		for _, w := range want {
			if got := next(); got != w {
				t.Fatalf("event %q, want %q", got, w)
			}
		}
	}
	key := func(r rune) string { return describe(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone)) }
	write := func(s string) {
		t.Helper()
		if _, err := tty.inW.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	l := &typedLane{}
	write("ab")
	expect(key('a'), key('b'), "fed 1")
	sc.SetLane(l, 1)
	write("cd")
	write("\x1b[A") // not printable: the usual way, after what the lane typed
	expect(describe(tcell.NewEventKey(tcell.KeyUp, 0, tcell.ModNone)), "fed 2")
	if got := l.got(); got != "cd" {
		t.Fatalf("the lane typed %q, want cd", got)
	}
	write("ef") // the lane was opened after read 1: read 2 may still be on its way
	expect(key('e'), key('f'), "fed 3")
	sc.SetLane(l, 3)
	write("\x1b") // an Esc alone: the processor waits for what follows
	expect("fed 4", describe(tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone)))
	sc.SetLane(l, 4)
	write("gh") // the processor's state is not known: the usual way
	expect(key('g'), key('h'), "fed 5")
	sc.SetLane(l, 5)
	write("\x1b[200~") // a paste begins
	expect("paste true", "fed 6")
	sc.SetLane(l, 6)
	write("ij") // inside the paste: its text, as sent
	write("\x1b[201~")
	expect("*viewterm.EventPasteText", "fed 7", "paste false", "fed 8")
	sc.SetLane(l, 8)
	write("kl")
	l.mu.Lock()
	l.refuse = true
	l.mu.Unlock()
	write("mn") // the App closed it: the usual way
	expect(key('m'), key('n'), "fed 9")
	if got := l.got(); got != "cd|kl" {
		t.Fatalf("the lane typed %q, want cd|kl", got)
	}
}
