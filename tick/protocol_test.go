package tick_test

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"tickmux/tick/wire"
)

// TestRequests sends one request at a time to a real child Tick and checks its one answer.
func TestRequests(t *testing.T) {
	c := startChild(t, "plain")
	rev := c.revision()
	type want struct {
		code   int64  // 0: a result is expected
		result string // exact result, when not empty
		msg    string // a substring of the error message, when not empty
	}
	tests := []struct {
		name string
		line string // %s is the current revision
		want want
	}{
		{"read before any update", `{"jsonrpc":"2.0","id":1,"method":"tick/read","params":{}}`, want{result: `{"seq":0,"data":null}`}},
		{"read without params", `{"jsonrpc":"2.0","id":1,"method":"tick/read"}`, want{result: `{"seq":0,"data":null}`}},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"method":"tick/read","params":{"x":1},"extra":true}`, want{result: `{"seq":0,"data":null}`}},
		// spec: H-E1 (codes of no effect), spec 7.2
		{"stale revision", call(1, "echo", `{}`, "stale"), want{code: wire.CodeCatalogChanged}},
		{"stale revision wins over unknown tool", call(1, "nope", `{}`, "stale"), want{code: wire.CodeCatalogChanged}},
		{"missing revision", `{"jsonrpc":"2.0","id":1,"method":"tick/call","params":{"tool":"echo","args":{}}}`, want{code: wire.CodeCatalogChanged}},
		{"revision not a string", `{"jsonrpc":"2.0","id":1,"method":"tick/call","params":{"tool":"echo","args":{},"revision":1}}`, want{code: wire.CodeCatalogChanged}},
		{"unknown tool", call(1, "nope", `{}`, "%s"), want{code: wire.CodeInvalidParams, msg: `no tool "nope"`}},
		{"args against schema", call(1, "set", `{"value":"five"}`, "%s"), want{code: wire.CodeInvalidParams, msg: "/value"}},
		{"missing required arg", call(1, "set", `{}`, "%s"), want{code: wire.CodeInvalidParams, msg: "value"}},
		{"extra arg refused", call(1, "block", `{"x":1}`, "%s"), want{code: wire.CodeInvalidParams}},
		{"args not an object", call(1, "echo", `[1]`, "%s"), want{code: wire.CodeInvalidParams}},
		{"tool not a string", `{"jsonrpc":"2.0","id":1,"method":"tick/call","params":{"tool":7,"args":{},"revision":"%s"}}`, want{code: wire.CodeInvalidParams}},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"tick/cancel","params":{}}`, want{code: wire.CodeMethodNotFound}},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"tick/read","params":{}}`, want{code: wire.CodeInvalidRequest}},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"tick/read","params":[]}`, want{code: wire.CodeInvalidRequest}},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, want{code: wire.CodeInvalidRequest}},
		{"echo", call(1, "echo", `{"a":[1,2]}`, "%s"), want{result: `{"a":[1,2]}`}},
		{"nil result is {}", call(1, "nothing", `{}`, "%s"), want{result: `{}`}},
		{"args absent is {}", `{"jsonrpc":"2.0","id":1,"method":"tick/call","params":{"tool":"nothing","revision":"%s"}}`, want{result: `{}`}},
		{"handler error", call(1, "fail", `{"how":"error"}`, "%s"), want{code: wire.CodeToolFailed, msg: "the disk is full"}},
		{"handler code passes through", call(1, "fail", `{"how":"code"}`, "%s"), want{code: -32099, msg: "custom"}},
		{"wrapped code passes through", call(1, "fail", `{"how":"wrapped"}`, "%s"), want{code: wire.CodeInvalidParams, msg: "no such row"}},
		{"panic becomes -32000", call(1, "fail", `{"how":"panic"}`, "%s"), want{code: wire.CodeToolFailed, msg: "boom"}},
		{"unencodable result", call(1, "fail", `{"how":"unencodable"}`, "%s"), want{code: wire.CodeToolFailed}},
		{"largest id", `{"jsonrpc":"2.0","id":9007199254740991,"method":"tick/read","params":{}}`, want{result: `{"seq":0,"data":null}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := tt.line
			if strings.Contains(line, "%s") {
				line = fmt.Sprintf(line, rev)
			}
			c.send(line)
			m := c.next()
			var wantID string
			var req struct{ ID json.RawMessage }
			_ = json.Unmarshal([]byte(line), &req)
			wantID = string(req.ID)
			if m.id() != wantID {
				t.Fatalf("got %s, want the response to id %s", m.raw, wantID)
			}
			if (m.Result == nil) == (m.Error == nil) {
				t.Fatalf("a response needs exactly one of result and error: %s", m.raw)
			}
			if tt.want.code == 0 {
				if m.Error != nil {
					t.Fatalf("got error %s, want a result", m.raw)
				}
				if tt.want.result != "" && string(m.Result) != tt.want.result {
					t.Fatalf("result %s, want %s", m.Result, tt.want.result)
				}
				return
			}
			if m.Error == nil || m.Error.Code != tt.want.code {
				t.Fatalf("got %s, want error code %d", m.raw, tt.want.code)
			}
			if !strings.Contains(m.Error.Message, tt.want.msg) {
				t.Fatalf("message %q does not mention %q", m.Error.Message, tt.want.msg)
			}
		})
	}
}

// TestUnanswerableLinesAreDropped: a line that cannot be parsed or has no usable id gets no
// reply at all, never one with id null (spec 3.2); the session goes on.
func TestUnanswerableLinesAreDropped(t *testing.T) {
	c := startChild(t, "plain")
	for i, bad := range []string{
		`not json`,
		`{"jsonrpc":"2.0","method":"tick/read","params":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tick/read","params":{}}`,
		`{"jsonrpc":"2.0","id":"7","method":"tick/read","params":{}}`,
		`{"jsonrpc":"2.0","id":-1,"method":"tick/read","params":{}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tick/read","params":{}}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"tick/read","params":{}}`,
		`{"jsonrpc":"2.0","id":9007199254740992,"method":"tick/read","params":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tick/read","params":{}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tick/read"`,
		`null`,
		``,
	} {
		c.send(bad, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tick/read","params":{}}`, 100+i))
		if m := c.next(); m.id() != fmt.Sprint(100+i) {
			t.Fatalf("after %q: got %s, want only the response to the next request", bad, m.raw)
		}
	}
}

// TestEightAtOnce sends eight requests in one write (the host's in-flight limit, H-C1) and gets
// exactly one response to each.
func TestEightAtOnce(t *testing.T) {
	c := startChild(t, "plain")
	rev := c.revision()
	var lines []string
	want := map[string]bool{}
	for i := 1; i <= 8; i++ {
		switch i % 3 {
		case 0:
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tick/describe","params":{}}`, i))
		case 1:
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tick/read","params":{}}`, i))
		case 2:
			lines = append(lines, call(i, "echo", fmt.Sprintf(`{"i":%d}`, i), rev))
		}
		want[fmt.Sprint(i)] = true
	}
	c.send(lines...)
	for range 8 {
		m := c.next()
		if !want[m.id()] {
			t.Fatalf("unexpected or repeated response %s", m.raw)
		}
		if m.Error != nil {
			t.Fatalf("error: %s", m.raw)
		}
		delete(want, m.id())
	}
}

// TestSlowCallDoesNotDelayDescribe: describe and read are answered while a call runs (spec 3.3).
func TestSlowCallDoesNotDelayDescribe(t *testing.T) {
	c := startChild(t, "plain")
	rev := c.revision()
	c.send(call(1, "block", `{}`, rev))
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tick/describe","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tick/read","params":{}}`,
		call(4, "echo", `{}`, rev))
	got := map[string]bool{}
	for range 3 {
		got[c.next().id()] = true
	}
	if !got["2"] || !got["3"] || !got["4"] {
		t.Fatalf("got responses %v while call 1 was blocked, want 2, 3 and 4", got)
	}
	if _, err := c.release.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if m, _ := c.response(1); string(m.Result) != `{"released":true}` {
		t.Fatalf("block: %s", m.raw)
	}
}

// TestUpdates: each state change is an update with a strictly greater seq, written before the
// call's own response; read never answers below the last update (spec 6.3, 8.2).
func TestUpdates(t *testing.T) {
	c := startChild(t, "plain")
	rev := c.revision()
	var last uint64
	for i := 1; i <= 5; i++ {
		c.send(call(i, "set", fmt.Sprintf(`{"value":%d}`, i*10), rev))
		m, updates := c.response(i)
		if len(updates) != 1 {
			t.Fatalf("call %d: %d updates before its response, want 1", i, len(updates))
		}
		s := decodeState(t, updates[0].Params)
		if s.Seq <= last || string(s.Data) != fmt.Sprintf(`{"value":%d}`, i*10) || s.At == "" {
			t.Fatalf("update %s after seq %d", updates[0].raw, last)
		}
		last = s.Seq
		if string(m.Result) != fmt.Sprintf(`{"value":%d}`, i*10) {
			t.Fatalf("result %s", m.raw)
		}
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tick/read","params":{}}`, 100+i))
		r, _ := c.response(100 + i)
		if rs := decodeState(t, r.Result); rs.Seq < last || string(rs.Data) != string(s.Data) {
			t.Fatalf("read %s below the last update (seq %d)", r.raw, last)
		}
	}
}

// TestUpdateBeforeRun: an update made before Run is the first line out (spec 4.2 allows it).
func TestUpdateBeforeRun(t *testing.T) {
	c := startChild(t, "preupdate")
	m := c.next()
	if m.Method != "tick/update" {
		t.Fatalf("first line %s, want the update made before Run", m.raw)
	}
	if s := decodeState(t, m.Params); s.Seq != 1 || string(s.Data) != `{"phase":"before run"}` {
		t.Fatalf("update %s", m.raw)
	}
}

// TestCoalescingUnderBlockedStdout: while nobody reads stdout, a burst of updates completes
// (Update never waits for the pipe) and only the newest pending one is written: seqs still
// strictly increase and the last state is never lost (spec 8.3, H-U1).
func TestCoalescingUnderBlockedStdout(t *testing.T) {
	const n, size = 2000, 4096 // 8 MB of updates against a pipe of tens of KiB
	c := startChild(t, "plain")
	rev := c.revision()
	c.send(call(1, "burst", fmt.Sprintf(`{"n":%d,"size":%d}`, n, size), rev))
	// Not reading stdout until the child says it made every update: the pipe stays full.
	_ = c.burstDone.SetReadDeadline(time.Now().Add(hangGuard))
	if _, err := c.burstDone.Read(make([]byte, 1)); err != nil {
		t.Fatalf("the burst never finished while stdout was blocked: %v", err)
	}
	_, updates := c.response(1)
	if len(updates) == 0 || len(updates) >= n {
		t.Fatalf("%d updates written for %d made, want coalescing to fewer", len(updates), n)
	}
	var last uint64
	for _, u := range updates {
		s := decodeState(t, u.Params)
		if s.Seq <= last {
			t.Fatalf("seq %d after %d", s.Seq, last)
		}
		last = s.Seq
	}
	var final struct{ I int }
	if err := json.Unmarshal(decodeState(t, updates[len(updates)-1].Params).Data, &final); err != nil || final.I != n {
		t.Fatalf("the last update carries i=%d, want the newest state i=%d", final.I, n)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tick/read","params":{}}`)
	r, _ := c.response(2)
	if s := decodeState(t, r.Result); s.Seq < last {
		t.Fatalf("read seq %d below the last update %d", s.Seq, last)
	}
	t.Logf("%d updates made, %d written", n, len(updates))
}

// TestSetToolsChangesRevision: a new catalog gets a new revision; calls prepared against the old
// one are refused with -32004 and have no effect (spec 5.5, 10).
func TestSetToolsChangesRevision(t *testing.T) {
	c := startChild(t, "plain")
	old := c.revision()
	c.send(call(1, "retool", `{}`, old))
	if m, _ := c.response(1); m.Error != nil {
		t.Fatalf("retool: %s", m.raw)
	}
	now := c.revision()
	if now == old {
		t.Fatal("the revision did not change with the catalog")
	}
	c.send(call(2, "set", `{"value":1}`, old))
	if m, updates := c.response(2); m.Error == nil || m.Error.Code != wire.CodeCatalogChanged || len(updates) != 0 {
		t.Fatalf("call with the old revision: %s (updates %d)", m.raw, len(updates))
	}
	c.send(call(3, "extra", `{}`, now))
	if m, _ := c.response(3); string(m.Result) != `"extra"` {
		t.Fatalf("new tool: %s", m.raw)
	}
}

// TestStrayOutputNeverReachesStdout: fmt.Println, os.Stdout and a child process's output all go
// to /dev/null; the only lines on stdout are protocol messages (spec 3.1, 10).
func TestStrayOutputNeverReachesStdout(t *testing.T) {
	c := startChild(t, "plain")
	rev := c.revision()
	c.send(call(1, "print", `{}`, rev))
	m, updates := c.response(1) // next() fails on any non-protocol line
	if m.Error != nil || len(updates) != 0 {
		t.Fatalf("print: %s", m.raw)
	}
	var r struct{ Child string }
	_ = json.Unmarshal(m.Result, &r)
	if r.Child != "done" {
		t.Fatalf("result %s", m.raw)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tick/read","params":{}}`)
	c.response(2) // the child's cat did not eat this request
}

// TestEOFWaitsForCallsInFlight: when stdin ends, a running call still completes and is
// answered, then the Tick exits on its own (spec 4.5).
func TestEOFWaitsForCallsInFlight(t *testing.T) {
	c := startChild(t, "plain")
	rev := c.revision()
	c.send(call(1, "block", `{}`, rev), `{"jsonrpc":"2.0","id":2,"method":"tick/read","params":{}}`)
	c.response(2) // the call is in flight
	if err := c.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.release.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if m, _ := c.response(1); m.Error != nil {
		t.Fatalf("the call in flight at EOF: %s", m.raw)
	}
	if _, err := c.read(); err != io.EOF {
		t.Fatalf("after the last response: %v, want stdout closed", err)
	}
	if err := c.wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// TestStopSignals: SIGTERM (the host's way, spec 4.5), SIGHUP and SIGINT end the Tick without
// waiting for a call in flight; EOF with nothing in flight ends it too.
func TestStopSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, 0} {
		name := "EOF"
		if sig != 0 {
			name = sig.String()
		}
		t.Run(name, func(t *testing.T) {
			c := startChild(t, "plain")
			rev := c.revision()
			if sig == 0 {
				c.stdin.Close()
			} else {
				c.send(call(1, "block", `{}`, rev), `{"jsonrpc":"2.0","id":2,"method":"tick/read","params":{}}`)
				c.response(2)
				if err := c.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.wait(); err != nil {
				t.Fatalf("exit after %s: %v", name, err)
			}
			for { // whatever was written before the exit must still be whole protocol lines
				if _, err := c.read(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
