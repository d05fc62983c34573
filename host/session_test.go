package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tickmux/tick/wire"
)

// receivedLines returns every line the fake read from its stdin.
func receivedLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// spec: H-M1
// spec: H-M2
// spec: H-T2
func TestRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	log := fakeLogPath(t.TempDir())
	h := newTestHost(t, Config{Approver: &autoApprover{}})
	in := openReady(t, h, "good", envFakeLog+"="+log)
	mustCall(t, in, "echo", `{"text":"two\nlines and a \u2028 separator"}`)
	mustCall(t, in, "increment", `{"amount":1}`)
	if _, err := in.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Describe(context.Background()); err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	lines := receivedLines(t, log)
	// describe, read, echo, increment, the describe after a mutating call's answer (the catalog
	// may have moved), read, describe.
	if len(lines) != 7 {
		t.Fatalf("the Tick received %d lines, want 7: %q", len(lines), lines)
	}
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a request is not one JSON line: %q", l)
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			t.Errorf("jsonrpc %s", m["jsonrpc"])
		}
		var id uint64
		if err := json.Unmarshal(m["id"], &id); err != nil {
			t.Errorf("the host sent a line without an unsigned integer id (a notification?): %s", l)
		}
		if seen[id] {
			t.Errorf("id %d reused", id)
		}
		seen[id] = true
		var method string
		json.Unmarshal(m["method"], &method)
		if !strings.HasPrefix(method, "tick/") {
			t.Errorf("method %q", method)
		}
		if p := string(m["params"]); !strings.HasPrefix(p, "{") {
			t.Errorf("params %s is not an object", p)
		}
		if (method == wire.MethodDescribe || method == wire.MethodRead) && string(m["params"]) != "{}" {
			t.Errorf("%s params %s, want {}", method, m["params"])
		}
	}
}

// spec: H-C1
func TestAtMostEightRequestsInFlight(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	const n = 12
	var wg sync.WaitGroup
	results := make(chan int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r struct{ Max int }
			json.Unmarshal(mustCall(t, in, "hold", ""), &r)
			results <- r.Max
		}()
	}
	wg.Wait()
	close(results)
	max := 0
	for m := range results {
		if m > max {
			max = m
		}
	}
	if max != MaxInFlight {
		t.Fatalf("the Tick saw at most %d requests at once, want exactly %d (the rest queued)", max, MaxInFlight)
	}
}

// spec: H-C2
func TestResponsesMatchedByIDInAnyOrder(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	var wg sync.WaitGroup
	for _, ms := range []int{300, 150, 0} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r struct{ Slept int }
			json.Unmarshal(mustCall(t, in, "slow", `{"ms":`+strconv.Itoa(ms)+`}`), &r)
			if r.Slept != ms {
				t.Errorf("the call for %d ms got the answer for %d ms", ms, r.Slept)
			}
		}()
	}
	wg.Wait()
}

// spec: H-C3
func TestUpdateBeforeInitialization(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "updatefirst")
	st := in.State()
	if st.Updates != 1 || in.SessionStats().LastUpdateSeq != 1 {
		t.Fatalf("state %+v: the early update was not received", st)
	}
}

// spec: H-M3
// spec: H-M4
// spec: H-M7
func TestIgnoredLinesKeepTheSession(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	for _, what := range []string{"othernotif", "tickrequest", "unknownid"} {
		if _, err := callJSON(t, in, "misbehave", `{"what":"`+what+`"}`); err != nil {
			t.Fatalf("%s ended the call: %v", what, err)
		}
	}
	st := in.SessionStats()
	if st.IgnoredNotifications != 1 || st.TickRequests != 1 || st.DroppedResponses != 1 {
		t.Fatalf("counters %+v", st)
	}
	if in.Status() != StatusReady {
		t.Fatal("the session ended")
	}
	mustCall(t, in, "echo", `{"text":"still here"}`)
}

// spec: H-M6
// spec: H-V3
func TestMalformedResponseFailsOnlyItsRequest(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	for _, what := range []string{"both", "neither", "errnocode"} {
		_, err := callJSON(t, in, "badreply", `{"what":"`+what+`"}`)
		if !errors.Is(err, ErrMalformedResponse) || EffectOf(err) != wire.EffectUnknown {
			t.Fatalf("%s: %v, want a malformed response with effect unknown", what, err)
		}
	}
	mustCall(t, in, "echo", `{"text":"the session goes on"}`)
}

// spec: H-V1
// spec: H-V2
// spec: H-T3
// spec: H-U1
func TestViolationsEndTheSession(t *testing.T) {
	t.Parallel()
	cases := []struct{ what, rule, says string }{
		{"notjson", "H-V2", "not valid JSON"},
		{"noise", "H-V2", "not valid JSON"}, // H-T3: non-protocol output on stdout
		{"jsonrpc1", "H-V2", `"jsonrpc": "1.0"`},
		{"nojsonrpc", "H-V2", `lacks "jsonrpc"`},
		{"nullid", "H-M5", "neither an integer id nor a method"},
		{"stringid", "H-M5", "neither an integer id nor a method"},
		{"bare", "H-M5", "not a message"},
		{"batch", "H-V2", "batch"},
		{"invalidutf8", "H-V2", "UTF-8"},
		{"longline", "H-V2", "longer than 8388608 bytes"},
		{"nonewline", "H-V2", "without a final newline"},
		{"updatenull", "H-U1", "data null"},
		{"updateregress", "H-U1", "not greater than the previous update"},
		{"updatebadat", "H-U1", "not an RFC 3339 time"},
		{"updatebig", "H-U1", "over the limit of 524288"},
		{"updatenoseq", "H-U1", "has no seq"},
		{"updatenegseq", "H-U1", "not an unsigned integer"},
	}
	h := newTestHost(t, Config{})
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			in := openReady(t, h, "good")
			bystander := openReady(t, h, "good")
			mustCall(t, in, "flood", `{"n":2}`)
			// A call waiting when the violation comes becomes unknown (H-V1).
			held := make(chan error, 1)
			go func() {
				_, err := callJSON(t, in, "slow", `{"ms":5000}`)
				held <- err
			}()
			waitInFlight(t, in, 1)
			_, err := callJSON(t, in, "misbehave", `{"what":"`+c.what+`"}`)
			if EffectOf(err) != wire.EffectUnknown {
				t.Errorf("the misbehaving call: %v, want effect unknown", err)
			}
			if err := <-held; EffectOf(err) != wire.EffectUnknown || !errors.Is(err, ErrSessionEnded) {
				t.Errorf("the call in flight: %v, want unknown (session ended)", err)
			}
			end := waitEnded(t, in)
			if end.Rule != c.rule || !strings.Contains(end.Reason, c.says) {
				t.Fatalf("end %q (rule %s), want %s saying %q", end.Reason, end.Rule, c.rule, c.says)
			}
			if !strings.Contains(end.Reason, "protocol violation") {
				t.Errorf("reason %q does not say it was a violation", end.Reason)
			}
			if processExists(in.Process().Pid()) {
				t.Error("the violating Tick still runs")
			}
			// Another Tick is untouched, and so is the host.
			mustCall(t, bystander, "echo", `{"text":"unharmed"}`)
			bystander.Close()
		})
	}
}

// spec: H-RD1
func TestReadBelowFloorFailsThatRead(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	mustCall(t, in, "flood", `{"n":10}`) // updates up to seq 10
	mustCall(t, in, "setread", `{"seq":4}`)
	_, err := in.Read(context.Background())
	if !errors.Is(err, ErrInvalidResult) || !strings.Contains(err.Error(), "below the read floor 10") {
		t.Fatalf("read: %v", err)
	}
	if RuleOf(err) != "H-RD1" {
		t.Fatalf("rule of %v: %q, want H-RD1", err, RuleOf(err))
	}
	mustCall(t, in, "setread", `{"seq":10}`)
	st, err := in.Read(context.Background())
	if err != nil || st.Seq != 10 {
		t.Fatalf("a read at the floor: %+v %v", st, err)
	}
	// The floor is now 10 from the read too; an older read fails again, the session goes on.
	mustCall(t, in, "setread", `{"seq":9}`)
	if _, err := in.Read(context.Background()); err == nil {
		t.Fatal("a read below the last read's seq was accepted")
	}
	if in.Status() != StatusReady {
		t.Fatal("a bad read ended the session")
	}
}

// spec: H-RD2
func TestReadNotComparedWithLaterUpdates(t *testing.T) {
	t.Parallel()
	// Session level: the read is sent with floor 0; an update with seq 7 overtakes the answer,
	// which carries seq 5. The read stands, and the latest state stays the update's.
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	mustCall(t, in, "setread", `{"seq":5}`)
	st, err := in.Read(context.Background())
	if err != nil || st.Seq != 5 {
		t.Fatalf("read %+v %v", st, err)
	}
	mustCall(t, in, "flood", `{"n":7}`)
	if got := in.State().Seq; got != 7 {
		t.Fatalf("latest seq %d, want 7", got)
	}
	// A read answering with an older state than the update held does not replace it.
	in.sess.mu.Lock()
	in.sess.lastReadSeq, in.sess.lastUpdateSeq = 0, 0 // pretend the read was sent before the updates
	in.sess.mu.Unlock()
	if _, err := in.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := in.State().Seq; got != 7 {
		t.Fatalf("an older read replaced the latest state: seq %d", got)
	}
}

// spec: H-RD3
func TestReadAtAndNullData(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "readnull")
	st := in.State()
	if string(st.Data) != "null" {
		t.Fatalf("data %s, want null (no content yet)", st.Data)
	}
	if _, err := time.Parse(time.RFC3339Nano, st.At); err != nil || st.At == "" {
		t.Fatalf("at %q: the host must use its receipt time", st.At)
	}
	mustCall(t, in, "setread", `{"at":"2026-01-02T03:04:05Z"}`)
	got, err := in.Read(context.Background())
	if err != nil || got.At != "2026-01-02T03:04:05Z" {
		t.Fatalf("read %+v %v", got, err)
	}
	mustCall(t, in, "setread", `{"at":"last tuesday"}`)
	if _, err := in.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "RFC 3339") || RuleOf(err) != "H-RD3" {
		t.Fatalf("a read with a bad at: %v (rule %q)", err, RuleOf(err))
	}
	if in.Status() != StatusReady {
		t.Fatal("a bad read ended the session")
	}
}

// spec: H-RD3 — at is optional, but null is present and not a string; every RFC 3339 §5.6
// date-time is taken, a leap second included.
func TestParseStateAt(t *testing.T) {
	t.Parallel()
	for raw, rule := range map[string]string{
		`{"seq":1,"data":{},"at":null}`:                        "H-RD3",
		`{"seq":1,"data":{},"at":"2026-11-30T10:00:00+24:00"}`: "H-RD3",
		`{"seq":1,"data":{},"at":"2026-11-30T00:00:00,5Z"}`:    "H-RD3",
		`{"seq":1,"data":{},"at":"2016-12-31T23:59:60Z"}`:      "",
		`{"seq":1,"data":{}}`:                                  "",
		`{"seq":-1,"data":{}}`:                                 "H-RD1",
		`{"data":{}}`:                                          "H-RD1",
		`{"seq":1}`:                                            "H-RD3",
		`[1]`:                                                  "H-RD3",
	} {
		_, bad := parseState([]byte(raw), MaxReadBytes)
		got := ""
		if bad != nil {
			got = bad.Rule
		}
		if got != rule {
			t.Errorf("%s: rule %q (%v), want %q", raw, got, bad, rule)
		}
	}
}

// spec: H-V3
func TestOversizedReadFailsThatRead(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	mustCall(t, in, "setread", `{"pad":600000}`)
	_, err := in.Read(context.Background())
	if !errors.Is(err, ErrResultTooLarge) {
		t.Fatalf("read: %v", err)
	}
	mustCall(t, in, "setread", `{"pad":0}`)
	if _, err := in.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A result over 8 MiB cannot arrive: the line holding it would be over 8 MiB first, a
	// violation (TestViolationsEndTheSession/longline); the host re-encodes compactly, so a
	// result is never longer than its line.
}

// spec: H-U1
// spec: H-U2
func TestLatestStateOnlyWithCounts(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	before := in.State().Seq
	mustCall(t, in, "flood", `{"n":50}`)
	st := in.State()
	if st.Seq != before+50 || st.Updates != 50 {
		t.Fatalf("state seq %d updates %d", st.Seq, st.Updates)
	}
	if string(st.Data) != `{"i":49}` {
		t.Fatalf("data %s, want the last update's", st.Data)
	}
	if got := in.MergedSince(before + 20); got != 30 {
		t.Fatalf("merged since seq %d: %d, want 30", before+20, got)
	}
	if got := in.MergedSince(st.Seq); got != 0 {
		t.Fatalf("merged since the latest: %d", got)
	}
	rate := in.UpdateRate(60)
	sum := 0
	for _, r := range rate {
		sum += r
	}
	if sum != 50 {
		t.Fatalf("update rate counts %d updates in the last minute, want 50", sum)
	}
}

// spec: H-R1
func TestDescribeAndReadAnyTime(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "good")
	for i := 0; i < 20; i++ {
		if _, err := in.Describe(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// chunkReader returns its text n bytes a read, cutting lines anywhere.
type chunkReader struct {
	text []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.text) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.text)
	c.text = c.text[k:]
	return k, nil
}

func (c *chunkReader) Close() error { return nil }

// updateAt is the at of update i of updateLines.
func updateAt(i int) string { return fmt.Sprintf("2026-01-02T03:%02d:%02dZ", i/60%60, i%60) }

func updateLines(from, to int) []byte {
	var b bytes.Buffer
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":%d,"data":{"i":%d,"pad":"%s"},"at":"%s"}}`+"\n", i, i, strings.Repeat("x", i%37), updateAt(i))
	}
	return b.Bytes()
}

// Updates that come in one read are each checked, and only the latest is delivered, once, with
// the seqs of all of them: a flooding Tick costs one copy and one event per read, not per line.
// spec: H-U2
func TestUpdatesOfOneReadDeliveredOnce(t *testing.T) {
	t.Parallel()
	var calls int
	var got wire.State
	var seqs []uint64
	s := NewSession(discardCloser{io.Discard}, &chunkReader{text: updateLines(1, 40), n: 1 << 20}, SessionHooks{
		Update: func(st wire.State, merged []uint64, _ time.Time) {
			calls++
			got = st
			seqs = append(seqs, merged...)
		},
	})
	<-s.Done()
	s.Close(nil)
	if calls != 1 || got.Seq != 40 || !strings.HasPrefix(string(got.Data), `{"i":40,`) || got.At != updateAt(40) {
		t.Fatalf("%d deliveries, the last seq %d data %s at %q; want one, of seq 40 at %q", calls, got.Seq, got.Data, got.At, updateAt(40))
	}
	if len(seqs) != 40 || seqs[0] != 1 || seqs[39] != 40 {
		t.Fatalf("merged seqs %v, want 1..40", seqs)
	}
	if st := s.Stats(); st.Updates != 40 {
		t.Fatalf("the session counted %d updates, want 40", st.Updates)
	}
}

// What is delivered is the host's own copy: reads cutting lines anywhere, which make the line
// reader move and overwrite its buffer, never change a state delivered before.
func TestDeliveredStatesOutliveTheReadBuffer(t *testing.T) {
	t.Parallel()
	type delivery struct {
		st   wire.State
		seqs []uint64
	}
	var all []delivery
	s := NewSession(discardCloser{io.Discard}, &chunkReader{text: updateLines(1, 3000), n: 4099}, SessionHooks{
		Update: func(st wire.State, merged []uint64, _ time.Time) {
			all = append(all, delivery{st, append([]uint64(nil), merged...)})
		},
	})
	<-s.Done()
	s.Close(nil)
	next := uint64(1)
	for _, d := range all {
		for _, q := range d.seqs {
			if q != next {
				t.Fatalf("seq %d delivered where %d was due", q, next)
			}
			next++
		}
		want := fmt.Sprintf(`{"i":%d,"pad":"%s"}`, d.st.Seq, strings.Repeat("x", int(d.st.Seq%37)))
		if d.st.At != updateAt(int(d.st.Seq)) {
			t.Fatalf("state of seq %d has at %q, want %q", d.st.Seq, d.st.At, updateAt(int(d.st.Seq)))
		}
		if d.st.Seq != d.seqs[len(d.seqs)-1] || string(d.st.Data) != want {
			t.Fatalf("state of seq %d (last merged %d) holds %s, want %s", d.st.Seq, d.seqs[len(d.seqs)-1], d.st.Data, want)
		}
	}
	if next != 3001 || len(all) >= 3000 {
		t.Fatalf("%d updates in %d deliveries, want 3000 in fewer", next-1, len(all))
	}
}
