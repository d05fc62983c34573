package host

import (
	"runtime"
	"testing"
)

// BenchmarkTickMemory reports the live heap the host holds for one ready, idle Tick (its
// session, instance, state and terminal), averaged over 20 Ticks: B/tick. The time per op is
// meaningless.
func BenchmarkTickMemory(b *testing.B) {
	const n = 20
	var per float64
	for i := 0; i < b.N; i++ {
		h := newTestHost(b, Config{Logf: func(string, ...any) {}})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for j := 0; j < n; j++ {
			openReady(b, h, "good")
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = float64(after.HeapAlloc-before.HeapAlloc) / n
		h.Close()
	}
	b.ReportMetric(per, "B/tick")
}
