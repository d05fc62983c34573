package host

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"tickmux/tick/wire"
)

// updateStream serves n tick/update lines of about 1 KiB, with strictly increasing seqs, without
// holding them all in memory: the seq is a fixed-width field rewritten in place.
type updateStream struct {
	template []byte
	seqAt    int // offset of the 12-digit seq in template
	left     int
	seq      uint64
	pending  []byte
}

func newUpdateStream(n int) *updateStream {
	payload := strings.Repeat(`{"t":"2026-11-30T09:00:00Z","price":1234.5678,"qty":42,"side":"buy"},`, 14)
	line := `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":100000000000,"data":{"recent":[` +
		strings.TrimSuffix(payload, ",") + `],"last":"EURUSD"},"at":"2026-11-30T09:00:00.123Z"}}` + "\n"
	return &updateStream{template: []byte(line), seqAt: strings.Index(line, "100000000000"), left: n, seq: 100000000000}
}

func (u *updateStream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(u.pending) == 0 {
			if u.left == 0 {
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
			u.left--
			u.seq++
			s := u.seq
			for i := u.seqAt + 11; i >= u.seqAt; i-- {
				u.template[i] = byte('0' + s%10)
				s /= 10
			}
			u.pending = u.template
		}
		c := copy(p[n:], u.pending)
		u.pending = u.pending[c:]
		n += c
	}
	return n, nil
}

func (u *updateStream) Close() error { return nil }

type discardCloser struct{ io.Writer }

func (discardCloser) Close() error { return nil }

// processCPU is the CPU time (user and system) the test process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIngestUpdates pushes a flood of ~1 KiB tick/update lines through the real session
// code: line reader, classification, the H-U1 checks, seq order, and the state store.
// Compare its MB/s with BenchmarkIngestBaseline's. cpu-ns/op is the process's CPU time (the
// garbage collector's included) per update: what scripts/bench-ingest sets live ingest beside.
func BenchmarkIngestUpdates(b *testing.B) {
	line := newUpdateStream(1).template
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	var got atomic.Int64
	var latest wire.State
	s := NewSession(discardCloser{io.Discard}, newUpdateStream(b.N), SessionHooks{
		Update: func(st wire.State, seqs []uint64, _ time.Time) {
			latest = st // what Instance.onUpdate keeps
			got.Add(int64(len(seqs)))
		},
	})
	b.ResetTimer()
	cpu0 := processCPU()
	<-s.Done()
	cpu := processCPU() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if got.Load() != int64(b.N) {
		b.Fatalf("ingested %d of %d updates; session ended: %v", got.Load(), b.N, s.Err())
	}
	if !json.Valid(latest.Data) {
		b.Fatal("kept invalid data")
	}
	s.Close(nil)
}

// BenchmarkIngestBaseline reads the same lines and only runs json.Valid on each.
func BenchmarkIngestBaseline(b *testing.B) {
	line := newUpdateStream(1).template
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	lr := newLineReader(newUpdateStream(b.N), MaxLineBytes)
	b.ResetTimer()
	n := 0
	for {
		l, err := lr.next()
		if err != nil {
			break
		}
		if !json.Valid(l) {
			b.Fatal("invalid")
		}
		n++
	}
	b.StopTimer()
	if n != b.N {
		b.Fatalf("%d lines", n)
	}
}

func TestUpdateStreamIsValid(t *testing.T) {
	t.Parallel()
	data, _ := io.ReadAll(newUpdateStream(3))
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		m, err := classify(l)
		if err != nil || m.kind != msgUpdate || m.update.Seq != uint64(100000000001+i) {
			t.Fatalf("line %d: %+v %v", i, m.update, err)
		}
	}
	if n := len(lines[0]); n < 900 || n > 1200 {
		t.Fatalf("line of %d bytes, want about 1 KiB", n)
	}
}

// A flood of updates through a real session keeps only the latest state: the heap after 200,000
// updates (about 200 MB of input) is where it was after 1,000.
func TestFloodKeepsMemoryBounded(t *testing.T) {
	heapAfter := func(n int) uint64 {
		var latest wire.State
		var got atomic.Int64
		s := NewSession(discardCloser{io.Discard}, newUpdateStream(n), SessionHooks{
			Update: func(st wire.State, seqs []uint64, _ time.Time) { latest = st; got.Add(int64(len(seqs))) },
		})
		<-s.Done()
		s.Close(nil)
		if got.Load() != int64(n) {
			t.Fatalf("ingested %d of %d", got.Load(), n)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		runtime.KeepAlive(latest)
		return ms.HeapAlloc
	}
	small := heapAfter(1000)
	big := heapAfter(200_000)
	if big > small+4<<20 {
		t.Fatalf("heap grew from %d to %d bytes over the flood", small, big)
	}
}
