// Command floodtick is the flood Tick of scripts/bench-ingest: a Tick that, after the host's
// first tick/read, sends a fixed number of tick/update notifications a second, each about 1 KiB
// with a strictly increasing seq and an RFC 3339 at, for measuring what ingest costs the host.
// It is written in Go, with one reused buffer and no per-update allocation, so that the flood
// programs themselves cost far less CPU than the host they measure.
//
//	floodtick [-rate N] [-batch B] [-size BYTES] [-now]
//
// -batch is how many updates go out in one write (1: one write per update, as the Go SDK's
// Server.Update does). It wakes at most once a millisecond and writes the updates due by then. -now floods at once, without waiting for a host: for running the same
// program under tmux, with stdout sent to /dev/null.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	rate := flag.Int("rate", 1000, "updates a second")
	batch := flag.Int("batch", 1, "updates per write")
	size := flag.Int("size", 1024, "approximate bytes per update line")
	now := flag.Bool("now", false, "flood at once, without waiting for a host's tick/read")
	flag.Parse()
	// One thread: the program is a loop that sleeps and writes. A second processor only added
	// idle threads spinning at each wake-up (about a quarter of its CPU, 10 programs at 3,000 a
	// second measured with GOMAXPROCS 1 and 2).
	runtime.GOMAXPROCS(1)
	if *rate <= 0 || *batch <= 0 || *size <= 0 {
		fmt.Fprintln(os.Stderr, "floodtick: -rate, -batch and -size must be positive")
		os.Exit(2)
	}
	f := &flood{rate: *rate, batch: *batch, pad: strings.Repeat("x", max(1, *size-160))}
	if *now {
		f.run()
		return
	}
	var once sync.Once
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 8<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "tick/describe":
			f.send(req.ID, `{"protocol":3,"kind":"bench.flood","title":"Flood","description":"Sends updates at a set rate.","revision":"1","tools":[]}`)
		case "tick/read":
			f.mu.Lock()
			seq := f.seq
			f.mu.Unlock()
			f.send(req.ID, `{"seq":`+strconv.FormatUint(seq, 10)+`,"data":{"n":`+strconv.FormatUint(seq, 10)+`}}`)
			once.Do(func() { go f.run() }) // owner: the process; runs until stdout fails
		default:
			f.send(req.ID, "")
		}
	}
	os.Exit(0) // stdin closed: the host is done with us
}

type flood struct {
	rate, batch int
	pad         string

	mu  sync.Mutex // one whole line per write; guards seq
	seq uint64
	buf []byte
}

// send answers a request (an empty result is a method-not-found error).
func (f *flood) send(id json.RawMessage, result string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var line string
	if result == "" {
		line = `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32601,"message":"no such method"}}` + "\n"
	} else {
		line = `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + "}\n"
	}
	if _, err := os.Stdout.WriteString(line); err != nil {
		os.Exit(0)
	}
}

// run writes rate updates a second, batch to a write. It wakes once a millisecond at most and
// writes what is due by then (a write per batch still): waking for each update cost the 50
// programs of bench-scale more CPU than the host reading them, past 2,000 updates a second each.
// If it falls behind it catches up at once rather than dropping updates.
func (f *flood) run() {
	tick := max(time.Millisecond, time.Second*time.Duration(f.batch)/time.Duration(f.rate))
	start := time.Now()
	sent := 0
	for {
		due := int(time.Since(start) * time.Duration(f.rate) / time.Second)
		for sent < due {
			f.mu.Lock()
			f.buf = f.buf[:0]
			at := time.Now().UTC()
			for range f.batch {
				f.seq++
				f.buf = append(f.buf, `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":`...)
				f.buf = strconv.AppendUint(f.buf, f.seq, 10)
				f.buf = append(f.buf, `,"data":{"n":`...)
				f.buf = strconv.AppendUint(f.buf, f.seq, 10)
				f.buf = append(f.buf, `,"side":"buy","price":1234.5678,"pad":"`...)
				f.buf = append(f.buf, f.pad...)
				f.buf = append(f.buf, `"},"at":"`...)
				f.buf = at.AppendFormat(f.buf, time.RFC3339Nano)
				f.buf = append(f.buf, "\"}}\n"...)
			}
			_, err := os.Stdout.Write(f.buf)
			f.mu.Unlock()
			if err != nil {
				os.Exit(0)
			}
			sent += f.batch
		}
		time.Sleep(tick)
	}
}
