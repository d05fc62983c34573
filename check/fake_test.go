package check

// The test binary plays the Ticks checked here: TestMain runs fakeMain when CHECKTEST_TICK names
// a mode. Each mode breaks one rule (or none).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	envMode = "CHECKTEST_TICK"
	envLog  = "CHECKTEST_LOG" // receives a line per call of a mutating tool with the current revision
)

type fake struct {
	mode string
	mu   sync.Mutex
	seq  uint64
	rev  string
	log  *os.File
}

func fakeMain(mode string) int {
	f := &fake{mode: mode, rev: "1"}
	if p := os.Getenv(envLog); p != "" {
		f.log, _ = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		fmt.Fprintf(tty, "check fake %s\r\n", mode)
		tty.Close()
	}
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: cannot find config")
		return 1
	case "ignoreterm":
		signal.Ignore(syscall.SIGTERM)
	case "chatty":
		go func() {
			for {
				f.update()
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		f.handle(in.Bytes())
	}
	if mode == "ignoreeof" || mode == "ignoreterm" {
		time.Sleep(time.Hour) // not select{}: with nothing else running, Go would call that a deadlock and exit
	}
	return 0
}

func (f *fake) send(v any) {
	b, _ := json.Marshal(v)
	f.mu.Lock()
	os.Stdout.Write(append(b, '\n'))
	f.mu.Unlock()
}

func (f *fake) update() {
	f.mu.Lock()
	f.seq++
	seq := f.seq
	f.mu.Unlock()
	f.send(map[string]any{"jsonrpc": "2.0", "method": "tick/update", "params": map[string]any{"seq": seq, "data": map[string]any{"n": seq}}})
}

func (f *fake) handle(line []byte) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Tool     string          `json:"tool"`
			Args     json.RawMessage `json:"args"`
			Revision string          `json:"revision"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.ID == nil {
		return
	}
	reply := func(result any) {
		f.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	fail := func(code int, msg string) {
		f.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": code, "message": msg}})
	}
	if f.mode == "slow" {
		time.Sleep(300 * time.Millisecond)
	}
	switch req.Method {
	case "tick/describe":
		reply(f.descriptor())
		if f.mode == "revnochange" {
			f.mu.Lock()
			f.mode = "revnochange2" // same revision, fewer tools from now on
			f.mu.Unlock()
		}
		if f.mode == "dupreply" {
			reply(f.descriptor())
		}
		if f.mode == "tickrequest" {
			f.send(map[string]any{"jsonrpc": "2.0", "id": 77, "method": "host/do", "params": map[string]any{}})
		}
	case "tick/read":
		f.mu.Lock()
		seq := f.seq
		f.mu.Unlock()
		data := map[string]any{"n": seq}
		if f.mode == "bigstate" {
			data["blob"] = strings.Repeat("x", 40<<10)
		}
		reply(map[string]any{"seq": seq, "data": data})
		if f.mode == "noisy" {
			os.Stdout.WriteString("debug: read answered\n")
		}
		if f.mode == "updregress" {
			f.update()
			f.mu.Lock()
			f.seq--
			f.mu.Unlock()
			f.update()
		}
	case "tick/call":
		tool := req.Params.Tool
		mutates := tool == "set"
		if req.Params.Revision != f.rev && f.mode != "staleok" {
			fail(-32004, "catalog changed")
			return
		}
		if mutates && f.log != nil {
			fmt.Fprintf(f.log, "%s %s\n", tool, req.Params.Revision)
		}
		switch tool {
		case "get":
			if f.mode != "badargsrun" && strings.TrimSpace(string(req.Params.Args)) != "{}" {
				fail(-32602, "get takes no args")
				return
			}
			reply(map[string]any{"n": 1})
		case "set":
			f.update()
			reply(map[string]any{})
		default:
			if f.mode == "unknowntoolok" {
				reply(map[string]any{})
				return
			}
			fail(-32602, "no such tool")
		}
	default:
		if f.mode == "unknownmethodok" {
			reply(map[string]any{})
			return
		}
		fail(-32601, "no such method")
	}
}

func (f *fake) descriptor() map[string]any {
	schema := map[string]any{"type": "object", "additionalProperties": false}
	tools := []any{
		map[string]any{"name": "get", "description": "Read n.", "input_schema": schema, "mutates": false},
		map[string]any{"name": "set", "description": "Change n.", "input_schema": schema, "mutates": true},
	}
	d := map[string]any{"protocol": 3, "kind": "test.check", "title": "Check fake", "description": "A fake.", "revision": f.rev, "tools": tools}
	switch f.mode {
	case "badversion":
		d["protocol"] = 4
	case "revnochange2":
		d["tools"] = tools[:1]
	case "mutatingonly":
		d["tools"] = tools[1:]
	case "lint":
		d["kind"] = "Not Dotted"
		d["description"] = ""
		tools[0].(map[string]any)["description"] = ""
	}
	return d
}
