package viewterm

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// Whenever the shadow calls tcell's input processor idle, printable ASCII given to it comes out
// as that plain key at once: the lane's bytes are what the processor would have made of them.
// Random streams of the bytes that matter to the processor's states, each prefix checked on a
// processor of its own.
func TestShadowIdleMeansPlainKeys(t *testing.T) {
	pieces := []string{"\x1b", "\x1b", "[", "]", "O", "N", "X", "^", "_", "\\", "\x07", "\t", "\r",
		"\x7f", "\x01", "0", "1", "5", ";", "<", "?", " ", "!", "A", "B", "M", "m", "u", "~", "a",
		"é", "P"}
	rng := rand.New(rand.NewSource(29))
	checked, afterEsc := 0, 0
	for range 20000 {
		var stream []byte
		for range 1 + rng.Intn(10) {
			stream = append(stream, pieces[rng.Intn(len(pieces))]...)
		}
		var sh shadow
		for i := 0; i <= len(stream); i++ {
			if i > 0 {
				sh.scan(stream[i-1 : i])
			}
			if !sh.idle() || !completeRunes(stream[:i]) {
				continue
			}
			checked++
			if strings.Contains(string(stream[:i]), "\x1b") {
				afterEsc++
			}
			if ev := plainAfter(stream[:i]); ev != "" {
				t.Fatalf("after %q the shadow says idle, but 'a' came out as %s", stream[:i], ev)
			}
		}
	}
	if checked < 3000 || afterEsc < 1000 {
		t.Fatalf("too few idle prefixes checked: %d, %d after an ESC", checked, afterEsc)
	}
}

// completeRunes reports whether b does not end inside a UTF-8 sequence (the reader gives the
// processor whole sequences only).
func completeRunes(b []byte) bool { return completeUTF8(b) == len(b) }

// plainAfter gives a fresh processor prefix, then "a"; it returns "" when what came out of the
// "a" was exactly the plain key, else a description of what came.
func plainAfter(prefix []byte) string {
	ch := make(chan tcell.Event, 64)
	ip := tcell.NewInputProcessor(ch)
	ip.ScanUTF8(prefix)
	for len(ch) > 0 {
		<-ch
	}
	ip.ScanUTF8([]byte("a"))
	if len(ch) != 1 {
		return "no key or several"
	}
	k, ok := (<-ch).(*tcell.EventKey)
	if !ok || k.Key() != tcell.KeyRune || k.Rune() != 'a' || k.Modifiers() != tcell.ModNone {
		return "another event"
	}
	return ""
}

// The shadow calls the processor idle again after the sequences a terminal sends as a person
// types, so the lane opens again after them.
func TestShadowIdleAfterKeys(t *testing.T) {
	for _, seq := range []string{"abc", "\x1b[A", "\x1bOB", "\x1b[1;5C", "\x1b[15~", "\x1bx",
		"\x1b[<0;10;5M", "\x1b[I", "\x1b[200~x", "\x1b]52;c;eA==\x07", "\x1b]11;?\x1b\\", "\x1b\x1bx",
		"é", "\x1b[[A"} {
		var sh shadow
		sh.scan([]byte(seq))
		if !sh.idle() {
			t.Errorf("after %q the shadow says the processor is busy", seq)
		}
	}
	for _, seq := range []string{"\x1b", "\x1b[", "\x1b[1;", "\x1bO", "\x1bN", "\x1b[[", "\x1b]52;c;", "\x1b]52;c;\x1bx",
		"\x1b\x1b", "\x1b\x1b[Q"} {
		var sh shadow
		sh.scan([]byte(seq))
		if sh.idle() {
			t.Errorf("after %q the shadow says the processor is idle", seq)
		}
	}
}
