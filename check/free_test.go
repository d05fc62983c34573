package check

// freeMain plays a Tick that follows the draft exactly but takes every free choice the other
// way from the SDK: member order, tool order, whitespace inside lines, CR before the LF (JSON
// whitespace, so the line is still one JSON value followed by \n, 3.1), numbers in exponent form
// within limits (a seq of 2e0, data up to 2^53-1 as 9.007199254740991e15), the same schema
// written with its keys in another order and 1000 as 1e3, protocol 3.0, \u escapes, leap seconds
// and lowercase t/z in at, an update before initialization, unknown members in results, calls
// answered concurrently in any order. It is written by hand, without the SDK, as a Tick author
// reading only the draft would.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
)

type freeTick struct {
	mu       sync.Mutex // one whole line per write; seq with it
	out      *os.File
	lines    int
	seq      int
	describe int
}

// write sends one message; every other line ends in CR LF.
func (t *freeTick) write(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines++
	end := "\n"
	if t.lines%2 == 0 {
		end = "\r\n"
	}
	t.out.WriteString(line + end)
}

var freeAts = []string{
	"2016-12-31T23:59:60Z",         // a leap second
	"2017-01-01t00:59:60.25+01:00", // the same leap second seen from +01:00, lowercase t
	"2026-11-30T10:00:00.123456789-05:30",
	"2026-11-30t10:00:00z",
}

func (t *freeTick) update() {
	t.mu.Lock()
	t.seq++
	seq := t.seq
	t.mu.Unlock()
	// seq in exponent form; params' members in another order; unknown members.
	t.write(fmt.Sprintf(`{ "params" : { "at":%q,"data": {"note":"n%d","big":9.007199254740991e15,"tiny":1E-300,"list":[%d, 2.5e1]}, "seq" : %de0, "x-extra": true }, "method":"tick\/update",	"jsonrpc":"2.0" }`,
		freeAts[seq%len(freeAts)], seq, seq, seq))
}

func (t *freeTick) descriptor() string {
	t.mu.Lock()
	t.describe++
	n := t.describe
	t.mu.Unlock()
	peekSchemas := []string{
		`{"type":"object","properties":{"limit":{"type":"integer","maximum":1000}},"additionalProperties":false}`,
		`{ "additionalProperties" : false, "properties": { "limit": { "maximum": 1e3, "type": "integer" } }, "type": "object" }`,
	}
	tools := []string{
		`{"name":"peek","description":"Read the note.","input_schema":` + peekSchemas[n%2] + `,"mutates":false}`,
		`{"mutates":true,"input_schema":{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}},"description":"Replace the note.","name":"poke"}`,
		`{"description":"The last changes.","mutates":false,"name":"history","input_schema":{"type":"object"},"x-cost":"cheap"}`,
	}
	for i := 0; i < n%3; i++ { // another order each time
		tools = append(tools[1:], tools[0])
	}
	protocol := []string{"3", "3.0"}[n%2]
	return `{"tools":[` + strings.Join(tools, ",\t") + `],"revision":"r\u0031","title":"Fr\u00e9e Tick","kind":"test.free",` +
		`"description":"Takes every free choice.","protocol":` + protocol + `,"recover_with":"history",` +
		`"state":{"series":[{"newest":"first","path":"/list"},{"path":"/odd~0key~1x","newest":"last"}],"x-unknown":1},"x-future":{"a":[]}}`
}

func (t *freeTick) answer(id, result string) {
	t.write(`{"result":` + result + `, "id":` + id + `,"jsonrpc":"2.0"}`)
}

func (t *freeTick) refuse(id string, code int, msg string) {
	t.write(fmt.Sprintf(`{ "jsonrpc" : "2.0" , "error" : {"data":{"why":%q},"message":%q,"code":%d}, "id" : %s }`, msg, msg, code, id))
}

func (t *freeTick) call(id string, params json.RawMessage) {
	var p struct {
		Tool     string         `json:"tool"`
		Args     map[string]any `json:"args"`
		Revision *string        `json:"revision"`
	}
	if json.Unmarshal(params, &p) != nil {
		t.refuse(id, -32602, "params are not a call")
		return
	}
	if p.Revision == nil || *p.Revision != "r1" {
		t.refuse(id, -32004, "the tool catalog changed; describe the Tick again")
		return
	}
	switch {
	case p.Tool == "peek" && len(p.Args) == 0, p.Tool == "history" && p.Args != nil:
		t.mu.Lock()
		seq := t.seq
		t.mu.Unlock()
		t.answer(id, fmt.Sprintf(`{"note" : "n%d", "seq":%d}`, seq, seq))
	case p.Tool == "poke":
		// Never reached under check; a real Tick would change the note here.
		t.refuse(id, -32000, "not in this fake")
	default:
		t.refuse(id, -32602, "unknown tool, or args that do not fit its input_schema")
	}
}

func freeMain() int {
	t := &freeTick{out: os.Stdout}
	t.update() // before initialization (3.3)
	in := bufio.NewReader(os.Stdin)
	var calls sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			break
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		id := string(req.ID)
		switch req.Method {
		case "tick/describe":
			t.answer(id, t.descriptor())
		case "tick/read":
			t.mu.Lock()
			seq := t.seq
			t.mu.Unlock()
			t.answer(id, fmt.Sprintf(`{"x-extra":null,"at":%q,"data":{"list":[%d,2.5e1],"tiny":1E-300,"big":9.007199254740991e15,"note":"n%d"},"seq":%d.0}`,
				freeAts[seq%len(freeAts)], seq, seq, seq))
		case "tick/call":
			calls.Add(1)
			go func() { // owner: freeMain; returns once the call is answered
				defer calls.Done()
				t.call(id, req.Params)
			}()
		default:
			t.refuse(id, -32601, "a Tick answers tick/describe, tick/read and tick/call")
		}
	}
	calls.Wait() // EOF: finish the calls in flight, then exit (4.5)
	return 0
}
