package agent_test

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tickmux/agent/agenttest"
	"tickmux/host"
)

// A client that pipelines 100,000 screen requests and never reads cannot take the server's
// memory: the server holds at most a bounded number of requests and answers per connection, and
// stops reading from that client past it.
// README "The control socket": a client that never reads holds a bounded amount of memory.
func TestNeverReadingClientIsBounded(t *testing.T) {
	h := agenttest.Start(t)
	in := h.Open(t, host.OpenSpec{Shell: true, Argv: []string{"sh", "-c", "seq 1 2000; sleep 60"}, Cols: 200, Rows: 60})
	nc, err := net.Dial("unix", h.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	runtime.GC()
	rssBefore := rss()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()

	// Write until the server stops reading (or all 100,000 went out); never read.
	req := fmt.Sprintf(`{"id":%%d,"method":"screen","params":{"id":%q}}`+"\n", in.ID())
	var b strings.Builder
	sent := 0
	deadline := time.Now().Add(3 * time.Second)
	for sent < 100_000 {
		b.Reset()
		for i := 0; i < 500; i++ {
			sent++
			fmt.Fprintf(&b, req, sent)
		}
		_ = nc.SetWriteDeadline(deadline)
		if _, err := nc.Write([]byte(b.String())); err != nil {
			break // the server stopped reading: backpressure
		}
	}
	time.Sleep(500 * time.Millisecond) // let the server work through what it took
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapInuse) - int64(before.HeapInuse)
	extra := runtime.NumGoroutine() - goroutines
	t.Logf("requests written before the server stopped reading: %d; heap in use grew %d MiB, RSS %d MiB; %d more goroutines",
		sent, grown>>20, (rss()-rssBefore)>>20, extra)
	if extra > 1000 {
		t.Errorf("%d goroutines for one client's requests, want them bounded", extra)
	}
	if grown > 256<<20 {
		t.Errorf("the heap grew %d MiB for one client that never reads", grown>>20)
	}
}

// rss is this process's resident set size in bytes (the server runs in the test process).
func rss() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
