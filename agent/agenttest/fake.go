package agenttest

// The fake Tick: a small conforming Tick written against the wire, so that every update it sends
// reaches the host (the SDK's outbox would merge a burst, and merged counts must be exact).
//
// Tools: set {value} (mutates), get, history (recover_with), flood {n} (mutates: n updates, then
// the answer), big {n} (mutates: a state far over the delivery budget), fail (answers -32000),
// crash (exits without answering). SIGUSR1 bumps the catalog revision and sends an update whose
// data.revision says so.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// EnvFake selects the fake Tick in the test binary.
const EnvFake = "AGENTTEST_TICK"

// RunFakeIfAsked plays the fake Tick and exits when the environment asks for it; call it first
// in TestMain.
func RunFakeIfAsked() {
	if os.Getenv(EnvFake) == "" {
		return
	}
	os.Exit(runFake())
}

// Executable is the test binary, which plays the fake Tick.
func Executable(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// FakeTools are the fake's tools, for tests that check the catalog.
var FakeTools = []string{"set", "get", "history", "flood", "big", "fail", "crash"}

type fake struct {
	mu       sync.Mutex
	out      *bufio.Writer
	seq      uint64
	value    int64
	history  []int64
	revision int
	extra    map[string]any // big's payload
}

// EnvFakeOdd is the value of EnvFake for a fake whose JSON is spelled oddly but legally, as
// other encoders do: its state holds {"\u0070ul\u0073es":5000E-1} (pulses: 500) and the set tool's
// schema says "m\u0061ximum":1E3 (and has a pattern no engine runs, "(unclosed"). Its first state has seq 1, so a wait after seq 0 is answered
// at once.
const EnvFakeOdd = "odd"

func runFake() int {
	f := &fake{out: bufio.NewWriter(os.Stdout), revision: 1}
	if os.Getenv(EnvFake) == EnvFakeOdd {
		f.seq = 1
		f.extra = map[string]any{"odd": json.RawMessage(`{"\u0070ul\u0073es" : 5000E-1}`)}
		setSchema = `{"type":"object","properties":{"value":{"type":"integer","m\u0061ximum":1E3},"tag":{"type":"string","pattern":"(unclosed"}},"required":["value"],"additionalProperties":false}`
	}
	fmt.Fprintln(os.Stderr, "fake tick ready")
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() { // owner: the fake process; lives until it exits
		for range usr1 {
			f.mu.Lock()
			f.revision++
			f.updateLocked()
			f.mu.Unlock()
		}
	}()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		var req struct {
			ID     *uint64         `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		f.mu.Lock()
		f.handle(*req.ID, req.Method, req.Params)
		f.mu.Unlock()
	}
	return 0
}

func (f *fake) rev() string { return "r" + strconv.Itoa(f.revision) }

func (f *fake) write(v any) {
	b, _ := json.Marshal(v)
	f.out.Write(b)
	f.out.WriteByte('\n')
	f.out.Flush()
}

func (f *fake) reply(id uint64, result any) {
	f.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (f *fake) fail(id uint64, code int, msg string) {
	f.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (f *fake) state() map[string]any {
	recent := f.history
	if len(recent) > 10 {
		recent = recent[len(recent)-10:]
	}
	st := map[string]any{"value": f.value, "recent": append([]int64{}, recent...), "revision": f.rev()}
	for k, v := range f.extra {
		st[k] = v
	}
	return st
}

func (f *fake) updateLocked() {
	f.seq++
	f.write(map[string]any{"jsonrpc": "2.0", "method": "tick/update", "params": map[string]any{"seq": f.seq, "data": f.state()}})
}

func (f *fake) set(v int64) {
	f.value = v
	f.history = append(f.history, v)
	f.updateLocked()
}

const noArgs = `{"type":"object","additionalProperties":false}`

var setSchema = `{"type":"object","properties":{"value":{"type":"integer"}},"required":["value"],"additionalProperties":false}`

func (f *fake) describe() map[string]any {
	tool := func(name, desc, schema string, mutates bool) map[string]any {
		return map[string]any{"name": name, "description": desc, "input_schema": json.RawMessage(schema), "mutates": mutates}
	}
	return map[string]any{
		"protocol": 3, "kind": "test.fake", "title": "Fake", "description": "A fake Tick for the agent tests.",
		"revision": f.rev(), "recover_with": "history",
		"state": map[string]any{"series": []any{map[string]any{"path": "/recent", "newest": "last"}}},
		"tools": []any{
			tool("set", "Set the value.", setSchema, true),
			tool("get", "Get the value.", noArgs, false),
			tool("history", "Every value ever set, oldest first.", noArgs, false),
			tool("flood", "Send n updates, then answer.", `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":100000}},"required":["n"],"additionalProperties":false}`, true),
			tool("big", "Make the state big: n items in /recent (a series) and in /blob (not one).", `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":100000}},"required":["n"],"additionalProperties":false}`, true),
			tool("fail", "Fail after maybe doing something.", noArgs, false),
			tool("crash", "Exit without answering.", noArgs, false),
		},
	}
}

func (f *fake) handle(id uint64, method string, params json.RawMessage) {
	switch method {
	case "tick/describe":
		f.reply(id, f.describe())
		return
	case "tick/read":
		f.reply(id, map[string]any{"seq": f.seq, "data": f.state()})
		return
	case "tick/call":
	default:
		f.fail(id, -32601, "no method "+method)
		return
	}
	var p struct {
		Tool     string `json:"tool"`
		Revision string `json:"revision"`
		Args     struct {
			Value *int64 `json:"value"`
			N     int    `json:"n"`
		} `json:"args"`
	}
	if json.Unmarshal(params, &p) != nil {
		f.fail(id, -32602, "bad params")
		return
	}
	if p.Revision != f.rev() {
		f.fail(id, -32004, "the catalog changed; describe the Tick again")
		return
	}
	switch p.Tool {
	case "set":
		if p.Args.Value == nil {
			f.fail(id, -32602, "set needs value")
			return
		}
		f.set(*p.Args.Value)
		f.reply(id, map[string]any{"value": f.value})
	case "get":
		f.reply(id, map[string]any{"value": f.value})
	case "history":
		f.reply(id, map[string]any{"values": append([]int64{}, f.history...)})
	case "flood":
		for i := 0; i < p.Args.N; i++ {
			f.set(f.value + 1)
		}
		f.reply(id, map[string]any{"seq": f.seq, "value": f.value})
	case "big":
		blob := make([]string, p.Args.N)
		for i := range blob {
			blob[i] = "blob item " + strconv.Itoa(i) + " " + strings.Repeat("x", 40)
		}
		f.extra = map[string]any{"blob": blob}
		for i := 0; i < p.Args.N; i++ {
			f.history = append(f.history, int64(i))
		}
		f.value = int64(p.Args.N)
		f.seq++
		st := f.state()
		st["recent"] = f.history[len(f.history)-p.Args.N:] // the whole series, not the last 10
		f.write(map[string]any{"jsonrpc": "2.0", "method": "tick/update", "params": map[string]any{"seq": f.seq, "data": st}})
		f.reply(id, map[string]any{"seq": f.seq})
	case "fail":
		f.fail(id, -32000, "the fake failed halfway")
	case "crash":
		os.Exit(3)
	default:
		f.fail(id, -32602, "no tool "+p.Tool)
	}
}
