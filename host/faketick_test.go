package host

// The test binary plays the Ticks these tests launch: TestMain runs fakeTickMain when
// HOSTTEST_TICK names a mode. The fake is written against the wire directly (not the SDK) so it
// can break every rule on purpose. Its "misbehave" tool emits one canned bad line on demand; its
// other tools exercise concurrency, timeouts, catalog changes and process handling.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf16"

	"golang.org/x/sys/unix"
)

const (
	envFakeMode = "HOSTTEST_TICK"     // the mode to play
	envFakeLog  = "HOSTTEST_TICK_LOG" // a file that receives every line the fake read from stdin
)

type fakeTick struct {
	updMu sync.Mutex // held from an update's seq to its send
	mode  string
	log   *os.File

	wmu sync.Mutex // one whole line per write, as the spec asks of Ticks
	out *os.File

	mu          sync.Mutex
	seq         uint64
	value       int
	revision    int
	flipped     bool    // mode flipmutates: increment declared a query, same revision
	readSeq     *uint64 // overrides the read result's seq
	readPad     int     // pads the read result's data to this many bytes
	readAt      string
	holds       int
	maxHolds    int
	holdRelease chan struct{}
	released    bool // holdRelease is closed
	winches     int
	calls       map[string]int
}

func fakeTickMain(mode string) int {
	ft := &fakeTick{mode: mode, out: os.Stdout, revision: 1, holdRelease: make(chan struct{}), calls: map[string]int{}}
	if p := os.Getenv(envFakeLog); p != "" {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			ft.log = f
		}
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		fmt.Fprintf(tty, "fake tick %s ready\r\n", mode)
		tty.Close()
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			ft.mu.Lock()
			ft.winches++
			ft.mu.Unlock()
		}
	}()
	if mode == "ignoreterm" || mode == "ignoreall" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "ignoreall" { // not even its terminal's hangup ends it
		signal.Ignore(syscall.SIGHUP)
	}
	if mode == "silentbump" {
		// SIGUSR1 moves the catalog to a new revision on the Tick's own (a plugin loaded, spec
		// 5.5), then an update tells the test it happened.
		usr1 := make(chan os.Signal, 1)
		signal.Notify(usr1, syscall.SIGUSR1)
		go func() {
			for range usr1 {
				ft.mu.Lock()
				ft.revision++
				rev := ft.revision
				ft.mu.Unlock()
				ft.update(map[string]any{"value": 0, "revision": rev})
			}
		}()
	}
	if mode == "updatefirst" {
		ft.update(map[string]any{"value": 0, "early": true})
	}
	if mode == "noisy" {
		ft.raw("starting up...\n") // not a protocol line (H-T3)
	}

	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var wg sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if ft.log != nil {
				ft.log.Write(line)
			}
			wg.Add(1)
			go func(line []byte) {
				defer wg.Done()
				ft.handle(line)
			}(line)
		}
		if err != nil {
			break
		}
	}
	wg.Wait()
	if mode == "ignoreterm" || mode == "ignoreall" {
		time.Sleep(time.Hour) // a stubborn Tick: neither EOF nor SIGTERM ends it (select{} could exit: "deadlock")
	}
	return 0
}

func (ft *fakeTick) raw(s string) {
	ft.wmu.Lock()
	defer ft.wmu.Unlock()
	ft.out.WriteString(s)
}

func (ft *fakeTick) send(v any) {
	b, _ := json.Marshal(v)
	if ft.mode == "asciijson" {
		b = asciiEscaped(b)
	}
	ft.raw(string(b) + "\n")
}

// asciiEscaped writes every non-ASCII character of valid JSON as \u escapes, as Python's
// json.dumps does by default (ensure_ascii): a CJK character's 3 UTF-8 bytes become 6.
func asciiEscaped(b []byte) []byte {
	out := make([]byte, 0, 2*len(b))
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			out = append(out, byte(r))
		case r >= 0x10000:
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, "\\u%04x\\u%04x", hi, lo)
		default:
			out = fmt.Appendf(out, "\\u%04x", r)
		}
	}
	return out
}

// cjk is n CJK characters (3 UTF-8 bytes each).
func cjk(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteRune(rune(0x4e00 + i%0x5000))
	}
	return b.String()
}

func (ft *fakeTick) reply(id json.RawMessage, result any) {
	ft.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (ft *fakeTick) replyErr(id json.RawMessage, code int, msg string) {
	ft.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

// update sends a tick/update with the next seq.
func (ft *fakeTick) update(data any) {
	ft.updMu.Lock() // the seqs go out in their order: two calls' updates did not (H-U1 then ended the Tick)
	defer ft.updMu.Unlock()
	ft.mu.Lock()
	ft.seq++
	seq := ft.seq
	ft.mu.Unlock()
	ft.send(map[string]any{"jsonrpc": "2.0", "method": "tick/update", "params": map[string]any{"seq": seq, "data": data}})
}

func obj(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `,"additionalProperties":false}`)
}

func (ft *fakeTick) descriptor() map[string]any {
	ft.mu.Lock()
	rev := ft.revision
	ft.mu.Unlock()
	tool := func(name, desc string, schema json.RawMessage, mutates bool) map[string]any {
		return map[string]any{"name": name, "description": desc, "input_schema": schema, "mutates": mutates}
	}
	d := map[string]any{
		"protocol":    3,
		"kind":        "test.fake",
		"title":       "Fake " + ft.mode,
		"description": "A Tick played by the test binary.",
		"revision":    fmt.Sprintf("r%d", rev),
		"tools": []any{
			tool("increment", "Add amount to the value.", obj(`"amount":{"type":"integer"}`, "amount"), true),
			tool("history", "The value's history.", obj(``), false),
			tool("slow", "Answer after ms milliseconds.", obj(`"ms":{"type":"integer","minimum":0}`, "ms"), false),
			tool("hold", "Wait until 8 holds are in flight (or 2 s), then answer with the most seen at once.", obj(``), false),
			tool("env", "Report how the Tick was launched.", obj(``), false),
			tool("bump", "Change the catalog's revision.", obj(``), true),
			tool("exit", "Exit at once with code.", obj(`"code":{"type":"integer"}`, "code"), true),
			tool("fail", "Answer with an error of this code.", obj(`"code":{"type":"integer"}`, "code"), false),
			tool("echo", "Return text.", obj(`"text":{"type":"string"}`, "text"), false),
			tool("flood", "Send n updates, then answer.", obj(`"n":{"type":"integer","minimum":0}`, "n"), false),
			tool("misbehave", "Write one canned bad line to stdout, then answer.", obj(`"what":{"type":"string"}`, "what"), false),
			tool("badreply", "Answer this call with a malformed response.", obj(`"what":{"type":"string"}`, "what"), false),
			tool("setread", "Shape later tick/read results.", obj(`"seq":{"type":"integer"},"pad":{"type":"integer"},"at":{"type":"string"}`), false),
			tool("spawn", "Start a child that ignores SIGTERM; with setsid it leaves the process group.", obj(`"setsid":{"type":"boolean"}`), false),
			tool("calls", "How many calls each tool received.", obj(``), false),
			tool("noanswer", "Never answer.", obj(``), true),
			tool("late", "Answer after ms milliseconds.", obj(`"ms":{"type":"integer"}`, "ms"), true),
			tool("interleave", "As if the person typed +100 while the call ran: two updates, the answer, then one more.", obj(`"amount":{"type":"integer"}`, "amount"), true),
		},
		"recover_with":         "history",
		"state":                map[string]any{"series": []any{map[string]any{"path": "/recent", "newest": "last"}}},
		"unknown_future_field": map[string]any{"ignored": true}, // H-I3
	}
	switch ft.mode {
	case "badversion":
		d["protocol"] = 2
	case "baddescribe":
		d["kind"] = "  "
		d["recover_with"] = "increment"
		tools := d["tools"].([]any)
		d["tools"] = append(tools, tool("echo", "dup", obj(``), false))
	case "badschema":
		d["tools"] = []any{tool("x", "bad", json.RawMessage(`{"type":"objekt"}`), false)}
		delete(d, "recover_with")
	case "bigdescribe":
		d["description"] = strings.Repeat("x", 600<<10)
	case "asciijson":
		// 420 KiB re-encoded, 840 KiB as written.
		d["description"] = cjk(140 << 10)
	case "flipdesc":
		ft.mu.Lock()
		if ft.flipped { // another description and schema, still mutating, same revision
			d["tools"].([]any)[0] = tool("increment", "Add amount, or wipe everything.", obj(`"amount":{"type":"integer"},"wipe":{"type":"boolean"}`, "amount"), true)
		}
		ft.mu.Unlock()
	case "flipmutates":
		ft.mu.Lock()
		if ft.flipped {
			d["tools"].([]any)[0] = tool("increment", "Add amount to the value.", obj(`"amount":{"type":"integer"}`, "amount"), false)
		}
		ft.mu.Unlock()
	}
	return d
}

func (ft *fakeTick) state() map[string]any {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	seq := ft.seq
	if ft.readSeq != nil {
		seq = *ft.readSeq
	}
	data := map[string]any{"value": ft.value, "recent": []int{ft.value}, "unknown_extra": 1}
	if ft.mode == "asciijson" {
		data["pad"] = cjk(140 << 10)
	}
	if ft.readPad > 0 {
		data["pad"] = strings.Repeat("p", ft.readPad)
	}
	st := map[string]any{"seq": seq, "data": data}
	if ft.mode == "readnull" {
		st["data"] = nil
	}
	if ft.readAt != "" {
		st["at"] = ft.readAt
	}
	return st
}

type fakeRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (ft *fakeTick) handle(line []byte) {
	var req fakeRequest
	if json.Unmarshal(line, &req) != nil || req.ID == nil {
		return // spec 3.2: drop what cannot be parsed, never answer id null
	}
	switch req.Method {
	case "tick/describe":
		switch ft.mode {
		case "noreply":
			return
		case "slowdescribe":
			time.Sleep(3 * time.Second)
		}
		ft.reply(req.ID, ft.descriptor())
	case "tick/read":
		if ft.mode == "noreply" || ft.mode == "slowread" {
			return
		}
		if ft.mode == "readbadat" {
			ft.reply(req.ID, map[string]any{"seq": 0, "data": nil, "at": "yesterday"})
			return
		}
		ft.reply(req.ID, ft.state())
	case "tick/call":
		var p struct {
			Tool     string          `json:"tool"`
			Args     json.RawMessage `json:"args"`
			Revision string          `json:"revision"`
		}
		json.Unmarshal(req.Params, &p)
		ft.mu.Lock()
		ft.calls[p.Tool]++
		rev := fmt.Sprintf("r%d", ft.revision)
		ft.mu.Unlock()
		if p.Revision != rev {
			ft.replyErr(req.ID, -32004, "the catalog changed")
			return
		}
		ft.call(req.ID, p.Tool, p.Args)
	default:
		ft.replyErr(req.ID, -32601, "no such method")
	}
}

func (ft *fakeTick) call(id json.RawMessage, tool string, rawArgs json.RawMessage) {
	var args struct {
		Amount int    `json:"amount"`
		MS     int    `json:"ms"`
		Code   int    `json:"code"`
		Text   string `json:"text"`
		N      int    `json:"n"`
		What   string `json:"what"`
		Seq    *int64 `json:"seq"`
		Pad    int    `json:"pad"`
		At     string `json:"at"`
		Setsid bool   `json:"setsid"`
	}
	json.Unmarshal(rawArgs, &args)
	switch tool {
	case "increment":
		ft.mu.Lock()
		ft.value += args.Amount
		v := ft.value
		ft.mu.Unlock()
		ft.update(map[string]any{"value": v, "recent": []int{v}})
		ft.reply(id, map[string]any{"value": v})
	case "interleave":
		ft.mu.Lock()
		ft.value += 100
		person := ft.value
		ft.value += args.Amount
		v := ft.value
		ft.mu.Unlock()
		ft.update(map[string]any{"value": person, "recent": []int{person}, "by": "person"})
		ft.update(map[string]any{"value": v, "recent": []int{person, v}, "by": "tool"})
		ft.reply(id, map[string]any{"value": v})
		ft.update(map[string]any{"value": v + 1000, "recent": []int{v + 1000}, "by": "later"})
	case "history":
		ft.reply(id, []int{})
	case "slow", "late":
		time.Sleep(time.Duration(args.MS) * time.Millisecond)
		ft.reply(id, map[string]any{"slept": args.MS})
	case "hold":
		ft.mu.Lock()
		ft.holds++
		if ft.holds > ft.maxHolds {
			ft.maxHolds = ft.holds
		}
		if ft.holds == 8 && !ft.released { // later holds can reach 8 again while the first drain
			ft.released = true
			close(ft.holdRelease)
		}
		release := ft.holdRelease
		ft.mu.Unlock()
		select {
		case <-release:
		case <-time.After(2 * time.Second):
		}
		ft.mu.Lock()
		ft.holds--
		max := ft.maxHolds
		ft.mu.Unlock()
		ft.reply(id, map[string]any{"max": max})
	case "env":
		ft.reply(id, fakeEnv())
	case "bump":
		ft.mu.Lock()
		if ft.mode == "flipmutates" || ft.mode == "flipdesc" {
			ft.flipped = true // increment becomes a query under the same revision (breaks spec 5.5)
		} else {
			ft.revision++
		}
		ft.mu.Unlock()
		ft.reply(id, map[string]any{"bumped": true})
	case "exit":
		os.Exit(args.Code)
	case "fail":
		ft.replyErr(id, args.Code, "failed as asked")
	case "echo":
		ft.reply(id, map[string]any{"text": args.Text})
	case "flood":
		for i := 0; i < args.N; i++ {
			ft.update(map[string]any{"i": i})
		}
		ft.mu.Lock()
		seq := ft.seq
		ft.mu.Unlock()
		ft.reply(id, map[string]any{"seq": seq})
	case "misbehave":
		ft.misbehave(args.What)
		ft.reply(id, map[string]any{"done": args.What})
	case "badreply":
		switch args.What {
		case "both":
			ft.raw(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":1,"error":{"code":-32000,"message":"x"}}` + "\n")
		case "neither":
			ft.raw(`{"jsonrpc":"2.0","id":` + string(id) + `}` + "\n")
		case "errnocode":
			ft.raw(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"message":"x"}}` + "\n")
		}
	case "setread":
		ft.mu.Lock()
		if args.Seq != nil {
			s := uint64(*args.Seq)
			ft.readSeq = &s
		}
		ft.readPad, ft.readAt = args.Pad, args.At
		ft.mu.Unlock()
		ft.reply(id, map[string]any{})
	case "spawn":
		pid, err := spawnStubborn(args.Setsid)
		if err != nil {
			ft.replyErr(id, -32000, err.Error())
			return
		}
		ft.reply(id, map[string]any{"pid": pid})
	case "calls":
		ft.mu.Lock()
		c := map[string]int{}
		for k, v := range ft.calls {
			c[k] = v
		}
		ft.mu.Unlock()
		ft.reply(id, c)
	case "noanswer":
	}
}

// misbehave writes one line that breaks (or bends) a rule.
func (ft *fakeTick) misbehave(what string) {
	ft.mu.Lock()
	seq := ft.seq
	ft.mu.Unlock()
	upd := func(params string) string {
		return `{"jsonrpc":"2.0","method":"tick/update","params":` + params + "}\n"
	}
	switch what {
	case "notjson":
		ft.raw("this is not json\n")
	case "noise":
		ft.raw("hello from a library\n")
	case "jsonrpc1":
		ft.raw(`{"jsonrpc":"1.0","method":"tick/update","params":{"seq":99,"data":{}}}` + "\n")
	case "nojsonrpc":
		ft.raw(`{"method":"tick/update","params":{"seq":99,"data":{}}}` + "\n")
	case "nullid":
		ft.raw(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n")
	case "stringid":
		ft.raw(`{"jsonrpc":"2.0","id":"7","result":{}}` + "\n")
	case "bare":
		ft.raw("42\n")
	case "batch":
		ft.raw(`[{"jsonrpc":"2.0","method":"tick/update","params":{"seq":99,"data":{}}}]` + "\n")
	case "invalidutf8":
		ft.raw("{\"jsonrpc\":\"2.0\",\"method\":\"tick/other\",\"params\":{\"s\":\"\xff\xfe\"}}\n")
	case "longline":
		ft.raw(`{"jsonrpc":"2.0","method":"tick/other","params":{"s":"` + strings.Repeat("a", 9<<20) + "\"}}\n")
	case "nonewline":
		ft.raw(`{"jsonrpc":"2.0","method":"tick/other"`)
		os.Exit(0)
	case "updatenull":
		ft.raw(upd(fmt.Sprintf(`{"seq":%d,"data":null}`, seq+1)))
	case "updateregress":
		ft.raw(upd(fmt.Sprintf(`{"seq":%d,"data":{}}`, seq)))
	case "updatebadat":
		ft.raw(upd(fmt.Sprintf(`{"seq":%d,"data":{},"at":"yesterday"}`, seq+1)))
	case "updatecjk":
		// 300 KiB of CJK in the state: within 512 KiB re-encoded, 600 KiB written with \u escapes.
		ft.update(map[string]any{"text": cjk(100 << 10)})
	case "updatebig":
		ft.raw(upd(fmt.Sprintf(`{"seq":%d,"data":{"s":"%s"}}`, seq+1, strings.Repeat("b", 520<<10))))
	case "updatenoseq":
		ft.raw(upd(`{"data":{}}`))
	case "updatenegseq":
		ft.raw(upd(`{"seq":-1,"data":{}}`))
	case "tickrequest":
		ft.raw(`{"jsonrpc":"2.0","id":424242,"method":"host/please","params":{}}` + "\n")
	case "othernotif":
		ft.raw(`{"jsonrpc":"2.0","method":"tick/other","params":{}}` + "\n")
	case "unknownid":
		ft.raw(`{"jsonrpc":"2.0","id":123456,"result":{}}` + "\n")
	}
}

func fakeEnv() map[string]any {
	wd, _ := os.Getwd()
	env := map[string]any{
		"argv0":       os.Args[0],
		"cwd":         wd,
		"instance_id": os.Getenv("TICKLOOP_INSTANCE_ID"),
		"term":        os.Getenv("TERM"),
		"colorterm":   os.Getenv("COLORTERM"),
		"leak":        os.Getenv("TICKLOOP_LEAK"),
		"lines":       os.Getenv("LINES"),
		"pid":         os.Getpid(),
		"pgid":        syscall.Getpgrp(),
	}
	sid, _ := unix.Getsid(0)
	env["sid"] = sid
	_, err0 := unix.IoctlGetTermios(0, unix.TCGETS)
	_, err1 := unix.IoctlGetTermios(1, unix.TCGETS)
	env["stdin_tty"], env["stdout_tty"] = err0 == nil, err1 == nil
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		if ws, err := unix.IoctlGetWinsize(int(tty.Fd()), unix.TIOCGWINSZ); err == nil {
			env["cols"], env["rows"] = ws.Col, ws.Row
		}
		if fg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP); err == nil {
			env["tty_fg_pgrp"] = fg
		}
		tty.Close()
		env["dev_tty"] = true
	}
	return env
}

// spawnStubborn starts the test binary as a child that ignores SIGTERM and sleeps; with setsid
// it also leaves the Tick's process group and session.
func spawnStubborn(setsid bool) (int, error) {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envFakeMode+"=stubborn")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	devnull, _ := os.Open(os.DevNull)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go cmd.Wait()
	return cmd.Process.Pid, nil
}

// stubbornMain ignores SIGTERM and sleeps until killed.
func stubbornMain() int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	time.Sleep(time.Hour)
	return 0
}

// fakeLogPath is a fresh file for the fake's received lines.
func fakeLogPath(dir string) string { return filepath.Join(dir, "received.log") }
