package host

import (
	"strings"
	"testing"
)

// floodLine is a line as scripts/floodtick writes it: a ~1 KiB update whose data is mostly one
// long plain string.
func floodLine() []byte {
	return []byte(`{"jsonrpc":"2.0","method":"tick/update","params":{"seq":123456,"data":{"n":123456,"side":"buy","price":1234.5678,"pad":"` +
		strings.Repeat("x", 864) + `"},"at":"2026-12-02T06:44:09.123456789Z"}}`)
}

// BenchmarkScanLine scans one update line: a long plain string (flood) or many short members
// (records, as BenchmarkIngestUpdates sends).
func BenchmarkScanLine(b *testing.B) {
	rec := newUpdateStream(1).template
	for _, c := range []struct {
		name string
		line []byte
	}{{"flood", floodLine()}, {"records", rec[:len(rec)-1]}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := scanLine(c.line); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
