package check

// The test binary plays the Ticks checked here: TestMain runs fakeMain when CHECKTEST_TICK names
// a mode. Each mode breaks one rule (or none).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
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

	repeated bool // mode repeatupdates: the identical updates were sent
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
	case "free":
		return freeMain()
	case "stderrlog":
		fmt.Fprintln(os.Stderr, "debug: listening on stdin")
	case "needstty":
		if fi, err := os.Stderr.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			fmt.Fprintln(os.Stderr, "stderr is not a terminal")
			return 1
		}
	case "stderrui":
		fmt.Fprint(os.Stderr, "\x1b[H\x1b[2J\x1b[1mNotes\x1b[0m\r\n") // a UI drawn on fd 2, the terminal
	case "stderrcolour":
		fmt.Fprint(os.Stderr, "\x1b[2m12:00:01\x1b[0m \x1b[32mINFO\x1b[0m listening on stdin\n") // a coloured log line
	case "readfloor":
		f.update() // seq 1 before initialization: the read floor for the first read
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
	var calls sync.WaitGroup
	for in.Scan() {
		line := append([]byte(nil), in.Bytes()...)
		if mode == "eofdrop" || mode == "eofwait" {
			calls.Add(1)
			go func() { // owner: fakeMain; returns once the request is answered
				defer calls.Done()
				f.handle(line)
			}()
			continue
		}
		f.handle(line)
	}
	if mode == "lastnonl" {
		// At EOF, a last update without its newline (spec 3.1, 3.6), then exit at once.
		f.mu.Lock()
		f.seq++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "tick/update", "params": map[string]any{"seq": f.seq, "data": map[string]any{"bye": true}}})
		os.Stdout.Write(b)
		f.mu.Unlock()
		syscall.Exit(0)
	}
	if mode == "eofdrop" {
		// Exit with the call still running. syscall.Exit, not os.Exit: under -race os.Exit
		// waits a second first (GORACE atexit_sleep_ms), time enough for the call to finish.
		syscall.Exit(0)
	}
	calls.Wait()
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
	f.updateData(nil)
}

// updateData sends an update with data, or {"n": seq} when data is nil.
func (f *fake) updateData(data any) {
	f.mu.Lock()
	f.seq++
	seq := f.seq
	f.mu.Unlock()
	if data == nil {
		data = map[string]any{"n": seq}
	}
	f.send(map[string]any{"jsonrpc": "2.0", "method": "tick/update", "params": map[string]any{"seq": seq, "data": data}})
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
	var params map[string]json.RawMessage
	_ = json.Unmarshal(line, &struct {
		P *map[string]json.RawMessage `json:"params"`
	}{&params})
	reply := func(result any) {
		f.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	fail := func(code int, msg string) {
		e := map[string]any{"code": code, "message": msg}
		switch {
		case f.mode == "leakiderrdata":
			e["data"] = map[string]any{"instance": os.Getenv("TICKLOOP_INSTANCE_ID")} // spec 4.1: in no message
		case f.mode == "leakiderrmsg" && code == -32601:
			e["message"] = msg + " (instance " + os.Getenv("TICKLOOP_INSTANCE_ID") + ")"
		}
		f.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": e})
	}
	if f.mode == "slow" {
		time.Sleep(300 * time.Millisecond)
	}
	if _, extra := params["tickmux_check_unknown_param"]; extra && f.mode == "strictparams" {
		fail(-32602, "unknown param")
		return
	}
	switch req.Method {
	case "tick/describe":
		if f.mode == "describeboth" {
			f.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": f.descriptor(), "error": map[string]any{"code": 1, "message": "both"}})
			return
		}
		if f.mode == "initcloseout" {
			// The answer, then stdout closed while the host still validates the large catalog:
			// the session ends before initialization sends its read (issue 41 item 3).
			reply(f.descriptor())
			os.Stdout.Close()
			return
		}
		if f.mode == "bigescaped" {
			// 3 MB written, 512,000 bytes re-encoded: every letter of the description escaped.
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": f.descriptor()})
			f.mu.Lock()
			os.Stdout.Write(append(bytes.Replace(b, []byte("A fake."), []byte(strings.Repeat(`\u0061`, 512000)), 1), '\n'))
			f.mu.Unlock()
			return
		}
		if f.mode == "surrogate" {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": f.descriptor()})
			f.mu.Lock()
			os.Stdout.Write(append(bytes.Replace(b, []byte("A fake."), []byte(`A fake \ud83d, paired \ud83d\ude00.`), 1), '\n'))
			f.mu.Unlock()
			return
		}
		reply(f.descriptor())
		if f.mode == "describerev" {
			f.mu.Lock()
			n, _ := strconv.Atoi(f.rev)
			f.rev = strconv.Itoa(n + 1) // each describe hands out a new revision (a side effect, spec 4.4)
			f.mu.Unlock()
		}
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
		st := map[string]any{"seq": seq, "data": data}
		switch f.mode {
		case "bigstate":
			data["blob"] = strings.Repeat("x", 40<<10)
		case "readatnull":
			st["at"] = nil
		case "readfloor":
			st["seq"] = 0 // below the update's 1
		case "leakid":
			data["me"] = os.Getenv("TICKLOOP_INSTANCE_ID")
		case "readclock":
			data["now"] = time.Now().Format(time.RFC3339Nano) // not business news: no update, same seq
		case "credstate":
			data["account"] = map[string]any{"user": "ana", "api_key": "sk-live-0123456789"} // spec 10: no credentials
			data["tokens_used"] = 1200                                                       // a count, not a credential
		case "readseqfrac":
			st["seq"] = 1.5 // not a uinteger (spec 6.2)
		case "surrogate":
			data["note"] = "SURROGATE" // written below as a lone \ud83d
		}
		if f.mode == "surrogate" {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": st})
			f.mu.Lock()
			os.Stdout.Write(append(bytes.ReplaceAll(b, []byte("SURROGATE"), []byte(`x\ud83dy`)), '\n'))
			f.mu.Unlock()
			return
		}
		reply(st)
		switch f.mode {
		case "repeatupdates":
			if !f.repeated {
				f.repeated = true
				for i := 0; i < 3; i++ {
					f.updateData(map[string]any{"price": 7}) // the same data again: a redraw, not news (spec 8.3)
				}
			}
		case "sideeffect":
			f.update() // a read that changes the state
		case "exitafterinit":
			time.Sleep(50 * time.Millisecond)
			os.Exit(0)
		case "updplus24", "updcomma", "updnullid", "updstringid":
			f.oddUpdate()
		case "tightupdate":
			if !f.repeated {
				f.repeated = true
				// 520,000 bytes of 1e15: within 512 KiB here, 1.9 MB as 1000000000000000.0 (spec 3.5).
				f.updateData(map[string]any{"ticks": json.RawMessage("[" + strings.Repeat("1e15,", 103999) + "1e15]")})
			}
		}
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
		if f.mode == "catalogmoves" && f.rev == "1" {
			f.rev = "2" // a plugin loaded: a new tool, a new revision (spec 5.5), before this call is judged
		}
		if f.mode == "toolfirst" && tool != "get" && tool != "set" {
			fail(-32602, "no such tool") // checked before the revision: wrong
			return
		}
		if req.Params.Revision != f.rev && f.mode != "staleok" {
			if f.mode == "slowrefusal" {
				time.Sleep(1200 * time.Millisecond)
			}
			fail(-32004, "catalog changed")
			return
		}
		if mutates && f.log != nil {
			fmt.Fprintf(f.log, "%s %s\n", tool, req.Params.Revision)
		}
		switch tool {
		case "get":
			var args map[string]json.RawMessage
			isObject := json.Unmarshal(req.Params.Args, &args) == nil && args != nil
			n, hasN := args["n"]
			typed := isObject && (!hasN || json.Unmarshal(n, new(int64)) == nil)
			extra := len(args) > 1 || (len(args) == 1 && !hasN)
			switch {
			case f.mode == "badargsrun": // runs whatever it gets
			case f.mode == "extraok" && !typed: // checks types, ignores unknown members (Appendix B's way)
				fail(-32602, "n must be an integer")
				return
			case f.mode != "extraok" && (!typed || extra):
				fail(-32602, "get takes an optional integer n")
				return
			}
			if f.mode == "querymutates" {
				f.update() // a query that changes the state: it should be declared mutates: true (spec 5.6)
			}
			switch f.mode {
			case "blockdescribe":
				time.Sleep(600 * time.Millisecond) // and nothing else is read meanwhile
			case "eofdrop", "eofwait":
				time.Sleep(300 * time.Millisecond)
			case "neveranswer":
				return
			}
			reply(map[string]any{"n": 1})
		case "find": // mode querywrites: a query that takes a required q and writes a file (spec 5.6)
			var args struct{ Q *string }
			if json.Unmarshal(req.Params.Args, &args) != nil || args.Q == nil {
				fail(-32602, "find takes a string q")
				return
			}
			if fh, err := os.OpenFile(".find-cache", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
				fmt.Fprintf(fh, "%q\n", *args.Q)
				fh.Close()
			}
			reply(map[string]any{"found": 0})
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
		if f.mode == "errcodestring" {
			f.send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": "-32601", "message": "no such method"}})
			return
		}
		fail(-32601, "no such method")
	}
}

func (f *fake) descriptor() map[string]any {
	schema := map[string]any{"type": "object", "additionalProperties": false}
	getSchema := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "additionalProperties": false}
	tools := []any{
		map[string]any{"name": "get", "description": "Read n.", "input_schema": getSchema, "mutates": false},
		map[string]any{"name": "set", "description": "Change n.", "input_schema": schema, "mutates": true},
	}
	if f.rev == "2" {
		tools = append(tools, map[string]any{"name": "plugin", "description": "Added by a plugin.", "input_schema": schema, "mutates": false})
	}
	d := map[string]any{"protocol": 3, "kind": "test.check", "title": "Check fake", "description": "A fake.", "revision": f.rev, "tools": tools}
	switch f.mode {
	case "badversion":
		d["protocol"] = 4
	case "revnochange2":
		d["tools"] = tools[:1]
	case "mutatingonly":
		d["tools"] = tools[1:]
	case "protostring":
		d["protocol"] = "3"
	case "schemastring":
		tools[0].(map[string]any)["input_schema"] = map[string]any{"type": "string"} // args are always an object
	case "dupspaces":
		tools[1].(map[string]any)["name"] = " get " // "get" again, but for the spaces
	case "badpointer":
		d["state"] = map[string]any{"series": []any{map[string]any{"path": "/a~2", "newest": "last"}}}
	case "querywrites":
		d["tools"] = append(tools, map[string]any{"name": "find", "description": "Find items matching q.", "mutates": false,
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"}}})
	case "initcloseout":
		for i := 0; i < 20; i++ { // a catalog that takes the host a few milliseconds to validate
			props := map[string]any{}
			for j := 0; j < 8; j++ {
				props[fmt.Sprintf("p%d", j)] = map[string]any{"type": "string", "pattern": fmt.Sprintf("^[a-z]{%d,}$", j), "maxLength": 40 + j}
			}
			tools = append(tools, map[string]any{"name": fmt.Sprintf("t%d", i), "description": "A tool.", "mutates": false,
				"input_schema": map[string]any{"type": "object", "properties": props, "additionalProperties": false}})
		}
		d["tools"] = tools
	case "lint":
		d["kind"] = "Not Dotted"
		d["description"] = ""
		tools[0].(map[string]any)["description"] = ""
	}
	return d
}

// oddUpdate sends the update a mode names, each breaking a rule of spec 8.2 or 3.2.
func (f *fake) oddUpdate() {
	f.mu.Lock()
	f.seq++
	seq := f.seq
	f.mu.Unlock()
	params := map[string]any{"seq": seq, "data": map[string]any{"n": seq}}
	msg := map[string]any{"jsonrpc": "2.0", "method": "tick/update", "params": params}
	switch f.mode {
	case "updplus24":
		params["at"] = "2026-11-30T10:00:00+24:00" // time.Parse takes it; RFC 3339 does not
	case "updcomma":
		params["at"] = "2026-11-30T00:00:00,5Z"
	case "updnullid":
		msg["id"] = nil // a request, not an update
	case "updstringid":
		msg["id"] = "u1"
	}
	f.send(msg)
}
