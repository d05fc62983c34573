package views

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// BenchmarkKeyLatencyUnderFlood measures how long a key typed into one pane takes to reach the
// screen while the other pane floods output (yes): each op types a marker and Enter into `cat`
// and waits until the marker is drawn. It reports the median and 90th percentile; compare them
// with BenchmarkKeyLatencyIdle.
func BenchmarkKeyLatencyUnderFlood(b *testing.B) { benchKeyLatency(b, true) }

// BenchmarkKeyLatencyIdle is the same round trip with a quiet neighbour.
func BenchmarkKeyLatencyIdle(b *testing.B) { benchKeyLatency(b, false) }

func benchKeyLatency(b *testing.B, flood bool) {
	t := &testing.T{}
	_ = t
	sc := tcell.NewSimulationScreen("UTF-8")
	q := host.NewApprovalQueue(nil)
	h := host.New(host.Config{Approver: q})
	defer h.Close()
	a := New(Options{Host: h, Approvals: q, Screen: sc})
	sc.SetSize(200, 50)
	quiet, err := a.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"cat"}}, "", SideBySide)
	if err != nil {
		b.Fatal(err)
	}
	if flood {
		if _, err := a.OpenBeside(host.OpenSpec{Shell: true, Argv: []string{"yes", "flood 42 flood"}}, quiet.ID(), SideBySide); err != nil {
			b.Fatal(err)
		}
	}
	a.Focus(quiet.ID())
	done := make(chan error, 1)
	go func() { done <- a.Run() }()
	defer func() { a.Stop(); <-done }()
	time.Sleep(500 * time.Millisecond)

	shows := func(marker string) bool {
		var found bool
		a.app.QueueUpdate(func() {
			cells, w, _ := sc.GetContents()
			for y := 0; y < 48 && !found; y++ {
				var row strings.Builder
				for x := 0; x < 100 && x < w; x++ {
					if r := cells[y*w+x].Runes; len(r) > 0 {
						row.WriteRune(r[0])
					}
				}
				found = strings.Contains(row.String(), marker)
			}
		})
		return found
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		marker := fmt.Sprintf("mk%dq", i)
		start := time.Now()
		for _, r := range marker {
			sc.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		}
		sc.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		for !shows(marker) {
			time.Sleep(200 * time.Microsecond)
			if time.Since(start) > 10*time.Second {
				b.Fatalf("marker %s never drawn", marker)
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
}
