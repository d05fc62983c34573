package tick

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// TestOutboxKeepsNewestWhileBlocked: with the writer stuck on a pipe nobody reads, posting
// never blocks; what finally comes out is a strictly increasing run ending at the newest update,
// and every update not written is counted as coalesced.
func TestOutboxKeepsNewestWhileBlocked(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe() // every write blocks until read: the slowest stdout there is
	o := newOutbox()
	o.w = pw
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); o.pump(stop) }() // ends when stop closes
	const n = 1000
	for i := 1; i <= n; i++ {
		o.post([]byte(fmt.Sprintf("u%d\n", i)))
	}
	// A response sent now comes after whatever update is pending: it is the last line out.
	sent := make(chan error, 1)
	go func() { sent <- o.send([]byte("response\n")) }() // ends when its line is written

	br := bufio.NewReader(pr)
	last, written := 0, 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "response" {
			break
		}
		i, err := strconv.Atoi(strings.TrimPrefix(line, "u"))
		if err != nil || i <= last {
			t.Fatalf("update %q after u%d", line, last)
		}
		last = i
		written++
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if last != n {
		t.Fatalf("the newest update u%d was lost; the last written is u%d", n, last)
	}
	if got := o.coalesced(); got != uint64(n-written) {
		t.Fatalf("coalesced %d, want %d (%d written)", got, n-written, written)
	}
	close(stop)
	<-done
	pr.Close()
}

// TestOutboxWriteErrorIsSticky: after the host stops reading, every write fails fast and the
// failure is signalled once.
func TestOutboxWriteErrorIsSticky(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	pr.Close()
	o := newOutbox()
	o.w = pw
	o.post([]byte("u1\n"))
	if err := o.send([]byte("r\n")); err == nil {
		t.Fatal("send to a closed pipe succeeded")
	}
	select {
	case <-o.failed:
	default:
		t.Fatal("failed is not closed after a write error")
	}
	if err := o.send([]byte("r\n")); err == nil {
		t.Fatal("the second send succeeded")
	}
}
