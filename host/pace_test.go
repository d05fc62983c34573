package host

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"tickmux/tick/wire"
)

// shortReader returns at most n bytes per read, from an endless supply.
type shortReader struct {
	n     int
	reads int
}

func (r *shortReader) Read(b []byte) (int, error) {
	r.reads++
	return copy(b, bytes.Repeat([]byte("x"), min(r.n, len(b)))), nil
}

// The pacing rule, on a fake clock: after a short read, the next read in the same step of the
// grid waits for the next step; a full read, or a read in a later step, goes at once.
func TestPacedReaderWaitsForTheNextStep(t *testing.T) {
	const pace = 4 * time.Millisecond
	clock := time.Unix(1000, 0).Add(pace/2 + time.Microsecond) // mid-step
	var waits []time.Duration
	src := &shortReader{n: 10}
	p := newPacedReader(src, pace, nil)
	p.now = func() time.Time { return clock }
	p.sleep = func(d time.Duration, _ <-chan struct{}) { waits = append(waits, d); clock = clock.Add(d) }
	buf := make([]byte, 100)

	p.Read(buf) // the first read goes at once
	if len(waits) != 0 {
		t.Fatalf("first read waited %v", waits)
	}
	clock = clock.Add(time.Millisecond) // same step
	p.Read(buf)
	if want := pace/2 - time.Millisecond - time.Microsecond; len(waits) != 1 || waits[0] != want {
		t.Fatalf("second short read in the step waited %v, want [%v]", waits, want)
	}
	// Now on a step boundary, having read in this step: the next read waits a whole step.
	p.Read(buf)
	if len(waits) != 2 || waits[1] != pace {
		t.Fatalf("waits %v, want a whole step last", waits)
	}
	// A quiet Tick: the next read is in a later step and goes at once.
	clock = clock.Add(10 * pace)
	p.Read(buf)
	if len(waits) != 2 {
		t.Fatalf("a read after a quiet spell waited: %v", waits)
	}
	// A full read is followed at once, whatever the step.
	src.n = len(buf)
	p.Read(buf) // waits: the read before was short, in this step
	p.Read(buf) // the read before filled buf: no wait
	p.Read(buf)
	if len(waits) != 3 {
		t.Fatalf("reads after full reads waited: %v", waits)
	}
	// Short reads in the step of a full one go at once too: the Tick is draining a backlog.
	src.n = 10
	p.Read(buf)
	p.Read(buf)
	if len(waits) != 3 {
		t.Fatalf("short reads in the step of a full read waited: %v", waits)
	}
	clock = clock.Add(pace) // the next step is paced again
	p.Read(buf)
	p.Read(buf)
	if len(waits) != 4 {
		t.Fatalf("a short read after a short read in a new step did not wait: %v", waits)
	}
	if src.reads != 11 {
		t.Fatalf("%d reads reached the source, want 11", src.reads)
	}
}

// A wait ends when the session stops, well before a long pace would end it.
func TestPacedReaderStopEndsTheWait(t *testing.T) {
	stop := make(chan struct{})
	p := newPacedReader(&shortReader{n: 1}, time.Hour, stop)
	buf := make([]byte, 8)
	p.Read(buf)
	done := make(chan struct{})
	go func() { // owner: the test; returns once the paced read does
		defer close(done)
		p.Read(buf)
	}()
	close(stop)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the paced read did not return after stop")
	}
}

// readCounter counts the reads that reach a real pipe.
type readCounter struct {
	r           io.Reader
	short, full int
}

func (c *readCounter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n < len(b) {
		c.short++
	} else {
		c.full++
	}
	return n, err
}

// A Tick writing one line per write, faster than the pace, is read about once per step of the
// grid, not once per line: every line arrives, in order, in far fewer reads.
func TestSessionReadsAFloodInFewReads(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	const lines = 400
	go func() { // owner: the test; returns after writing every line and closing the pipe
		defer w.Close()
		st := newUpdateStream(lines)
		line := make([]byte, len(st.template))
		for range lines {
			io.ReadFull(st, line)
			if _, err := w.Write(line); err != nil {
				return
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	counter := &readCounter{r: r}
	var got []uint64
	start := time.Now()
	s := NewSession(discardCloser{io.Discard}, struct {
		io.Reader
		io.Closer
	}{counter, r}, SessionHooks{Update: func(st wire.State, seqs []uint64, _ time.Time) { got = append(got, seqs...) }})
	<-s.Done()
	elapsed := time.Since(start)
	if len(got) != lines {
		t.Fatalf("%d of %d updates arrived (%v)", len(got), lines, s.Err())
	}
	for i, seq := range got {
		if seq != uint64(100000000001+i) {
			t.Fatalf("update %d has seq %d", i, seq)
		}
	}
	// Short reads are one per step of the grid (only a backlog, which a full read shows, is
	// read without waiting): far fewer than one read per line.
	if reads := counter.short + counter.full; reads >= lines/2 {
		t.Fatalf("%d reads (%d short) for %d lines in %v (%d steps of the grid)", reads, counter.short, lines, elapsed, elapsed/ReadPace)
	}
	t.Logf("%d lines in %d short and %d full reads over %v", lines, counter.short, counter.full, elapsed)
}

// Keys first: sessions share ingestSlots. A read that brought bytes holds a slot until the next
// read (its lines are handled in between); a second session with bytes waits for the slot; a
// reader waiting for its Tick holds none, so it never keeps another session waiting.
func TestPacedReadersShareTheIngestSlots(t *testing.T) {
	slots := make(chan struct{}, 1)
	pipe := func() (*pacedReader, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		p := newPacedReader(r, time.Nanosecond, nil)
		p.slots = slots
		return p, w
	}
	a, aw := pipe()
	b, bw := pipe()
	buf := make([]byte, 64)
	aw.Write([]byte("a line\n"))
	if n, _ := a.Read(buf); n == 0 || len(slots) != 1 || !a.held {
		t.Fatalf("a read of %d bytes holds %d slots (held %v), want 1", n, len(slots), a.held)
	}
	bw.Write([]byte("b line\n"))
	bRead := make(chan int, 1)
	go func() { // owner: the test; returns once b has a slot
		n, _ := b.Read(make([]byte, 64))
		bRead <- n
	}()
	aRead := make(chan int, 1)
	go func() { // owner: the test; returns at a's next line, written below
		n, _ := a.Read(buf) // a's bytes are handled: its slot goes, and it waits for its Tick
		aRead <- n
	}()
	select {
	case n := <-bRead:
		if n == 0 {
			t.Fatal("b read nothing")
		}
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatal("b never got a slot: a, waiting for its Tick, kept the one it had")
	}
	select {
	case n := <-aRead:
		t.Fatalf("a read %d bytes from an empty pipe", n)
	default:
	}
	if len(slots) != 1 || !b.held {
		t.Fatalf("%d slots held once b read (b holds one: %v), want b's alone", len(slots), b.held)
	}
	b.release()
	if len(slots) != 0 {
		t.Fatalf("%d slots held after b released its own", len(slots))
	}
	aw.Write([]byte("another\n"))
	if n := <-aRead; n == 0 || len(slots) != 1 {
		t.Fatalf("a's next read: %d bytes, %d slots held", n, len(slots))
	}
	a.release()
}
