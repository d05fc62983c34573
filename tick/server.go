package tick

// The Tick side of the protocol, in one picture:
//
//	stdin ──▶ reader goroutine ──▶ describe, read: answered at once, on the reader
//	                  │
//	                  └──▶ call: checked (revision, tool, args), then one goroutine per call
//	                                         │ result or error
//	Update ──▶ outbox (newest update only) ──┴──▶ stdout, one whole line at a time
//	   │
//	   └──▶ UI goroutine: draws on /dev/tty, keys may call Update
//
// serve waits for the first of: stdin ends (finish the calls in flight, write the last update,
// return), a stop (SIGTERM, Ctrl-C, Stop, Run's context: return now), or stdout failing.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"golang.org/x/term"

	"tickmux/tick/wire"
)

// ErrStopped is returned by Update and SetTools once the Server has stopped serving.
var ErrStopped = errors.New("tick: the Tick has stopped serving")

var errRunTwice = errors.New("tick: Run was called twice; a Server serves one session")

// maxStateData caps the data given to Update. It leaves room under the 512 KiB limit on an
// update (spec 8.2) for seq, at, and numbers the host re-encodes longer (spec 3.5).
const maxStateData = 480 << 10

// finalFlushTimeout bounds the last update written after stdin ends, for a host that closed
// stdin and stopped reading too.
const finalFlushTimeout = time.Second

// Server serves one Tick on the protocol. Create it with New, then call Run once. Update,
// SetTools, Redraw and Stop are safe from any goroutine, before, during and after Run.
type Server struct {
	base Tick    // the descriptor fields that SetTools keeps
	out  *outbox // the protocol's output

	mu      sync.Mutex // guards the fields below
	cat     *catalog   // the current catalog; replaced whole by SetTools
	seq     uint64     // the seq of the newest state; 0 until the first Update
	data    json.RawMessage
	at      string
	stopped bool // Run has returned: no more updates

	started  atomic.Bool
	ui       atomic.Pointer[uiLoop] // the running UI, nil when headless
	stopOnce sync.Once
	stopCh   chan struct{} // closed by Stop
	calls    sync.WaitGroup
}

// New checks t the way a host will check its descriptor (spec 5.3) and returns a Server for it.
// Nothing is read or written until Run.
func New(t Tick) (*Server, error) {
	cat, err := newCatalog(t)
	if err != nil {
		return nil, err
	}
	t.Tools = nil
	return &Server{base: t, out: newOutbox(), cat: cat, stopCh: make(chan struct{})}, nil
}

// Update makes data the Tick's complete current state (spec 6.2) and sends it as a tick/update
// with the next seq and the current time. data must encode to a JSON value other than null, at
// most 480 KiB. Update returns at once: when stdout is slow, only the newest pending update is
// written (spec 8.3). Before Run, the state waits and goes out when Run starts. tick/read always
// answers with the newest state, so its seq is never below an update already sent (spec 6.3).
//
// Send updates for changes of business meaning only, never for cursor moves or redraws (spec 8.3).
func (s *Server) Update(data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("tick: Update: cannot encode the state: %w", err)
	}
	if string(raw) == "null" {
		return errors.New("tick: Update: the state is null; an update must carry the state (spec 8.2)")
	}
	if len(raw) > maxStateData {
		return fmt.Errorf("tick: Update: the state is %d bytes encoded, over %d; keep it small and put bulk behind a query tool (spec 6.4)", len(raw), maxStateData)
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return ErrStopped
	}
	s.seq++
	s.data = raw
	s.at = time.Now().UTC().Format(time.RFC3339Nano)
	s.out.post(updateLine(s.seq, s.data, s.at))
	s.mu.Unlock()
	s.Redraw()
	return nil
}

// updateLine encodes a tick/update notification. data is compact JSON from json.Marshal and at
// needs no escaping, so the line is assembled directly.
func updateLine(seq uint64, data json.RawMessage, at string) []byte {
	line := make([]byte, 0, len(data)+128)
	line = append(line, `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":`...)
	line = strconv.AppendUint(line, seq, 10)
	line = append(line, `,"data":`...)
	line = append(line, data...)
	line = append(line, `,"at":"`...)
	line = append(line, at...)
	line = append(line, "\"}}\n"...)
	return line
}

// SetTools replaces the catalog. When any tool's name, description, schema or mutates flag
// differs, the revision changes, and calls approved against the old catalog are refused with
// CodeCatalogChanged (spec 5.5, 10). Calls already running finish with their old handler.
func (s *Server) SetTools(tools ...ToolSpec) error {
	t := s.base
	t.Tools = tools
	cat, err := newCatalog(t)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	s.cat = cat
	return nil
}

// Revision returns the current catalog revision.
func (s *Server) Revision() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cat.revision
}

// Redraw asks the UI for a new frame. It never blocks; it does nothing when the Tick is headless.
func (s *Server) Redraw() {
	if l := s.ui.Load(); l != nil {
		l.redraw()
	}
}

// Stop ends Run as SIGTERM would: at once, cancelling the context of calls still running.
func (s *Server) Stop() {
	s.stopOnce.Do(func() { close(s.stopCh) })
}

// Run serves the protocol on stdin and stdout and draws ui (nil for none) on the controlling
// terminal, until stdin ends, SIGTERM (or SIGINT, SIGHUP) arrives, Stop is called or ctx ends.
//
// At start Run takes over file descriptors 0 and 1: the protocol moves to private duplicates and
// both then lead to /dev/null, so nothing printed by mistake (fmt.Println, a library, a child
// process) can reach the host or break a line.
//
// Without a controlling terminal (tests, pipes, `tickmux check` without a PTY) Run serves
// headless: the protocol works the same, the UI is not shown. Run by hand in a shell, with stdin
// and stdout on the terminal, it is the other way round: the UI only, no protocol on the terminal.
//
// When stdin ends, Run waits for the calls in flight, writes the last update and returns nil
// (spec 4.5). On a signal or Stop it restores the terminal and returns nil at once; calls still
// running see their context cancelled. Return from main soon after: the host may SIGKILL.
func (s *Server) Run(ctx context.Context, ui *UI) error {
	if s.started.Load() {
		return errRunTwice
	}
	in, out, err := takeStdio()
	if err != nil {
		return err
	}
	ctx, stopSignals := notifyStop(ctx)
	defer stopSignals()
	var screen tcell.Screen
	if ui != nil {
		if sc, err := OpenScreen(); err == nil {
			screen = sc
		}
	}
	// Run by hand in a shell, stdin and stdout are the terminal the UI draws on: reading requests
	// there would steal the UI's keys, and writing messages there would scribble on its screen.
	var input io.Reader = in
	var output io.Writer = out
	if screen != nil && term.IsTerminal(int(in.Fd())) {
		input = nil
	}
	if screen != nil && term.IsTerminal(int(out.Fd())) {
		output = io.Discard
	}
	return s.serve(ctx, input, output, ui, screen)
}

// serve is Run after the process-wide setup; tests call it with pipes and a simulated screen.
// in and out are used until serve returns; a nil in reads no requests (the session then ends by
// a stop only); a nil screen means headless.
func (s *Server) serve(ctx context.Context, in io.Reader, out io.Writer, ui *UI, screen tcell.Screen) error {
	if !s.started.CompareAndSwap(false, true) {
		if screen != nil {
			screen.Fini()
		}
		return errRunTwice
	}
	s.out.w = out
	ctx, cancel := context.WithCancel(ctx) // the context of calls and the UI
	defer cancel()

	pumpStop, pumpDone := make(chan struct{}), make(chan struct{})
	// Owned by serve: ends when pumpStop is closed below.
	go func() {
		defer close(pumpDone)
		s.out.pump(pumpStop)
	}()

	var uiDone chan struct{}
	if ui != nil && screen != nil {
		loop := newUILoop(*ui, screen, s.Stop)
		s.ui.Store(loop)
		uiDone = make(chan struct{})
		// Owned by serve: ends when ctx is cancelled below (or on Ctrl-C, which calls Stop).
		go func() {
			defer close(uiDone)
			loop.run(ctx)
		}()
	}

	var readDone chan error // stays nil, never ready, without input
	if in != nil {
		readDone = make(chan error, 1)
		// Owned by serve: ends at EOF or a read error; serve unblocks it with a read deadline
		// when it stops first (in is a pipe made pollable by takeStdio, or os.Pipe in tests).
		go func() {
			readDone <- readLines(in, maxLineBytes, func(line []byte) { s.handle(ctx, line) })
		}()
	}

	graceful := false
	select {
	case <-readDone:
		readDone = nil
		graceful = true
	case <-ctx.Done():
	case <-s.stopCh:
	case <-s.out.failed:
	}
	if graceful {
		// Stdin ended: let the calls in flight finish (spec 4.5), unless a stop comes first.
		callsDone := make(chan struct{})
		// Owned by serve: ends when the last call does; if a stop wins, the process is exiting.
		go func() {
			s.calls.Wait()
			close(callsDone)
		}()
		select {
		case <-callsDone:
		case <-ctx.Done():
			graceful = false
		case <-s.stopCh:
			graceful = false
		}
	}

	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	cancel()
	if uiDone != nil {
		<-uiDone
		s.ui.Store(nil)
	}
	close(pumpStop)
	<-pumpDone
	if graceful {
		setDeadline(out, time.Now().Add(finalFlushTimeout))
		_ = s.out.flush()
	} else {
		setDeadline(out, time.Now()) // unblock a call's response stuck on a full pipe
	}
	if readDone != nil {
		if d, ok := in.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(time.Now()) == nil {
			<-readDone
		}
	}
	return nil
}

// setDeadline sets a write deadline on w when it supports one (a pollable pipe does).
func setDeadline(w io.Writer, t time.Time) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(t)
	}
}

// handle answers one line from the host. It runs on the reader goroutine: describe and read are
// answered here at once; a call is checked here and run on a goroutine of its own.
func (s *Server) handle(ctx context.Context, line []byte) {
	req, ok := parseRequest(line)
	if !ok {
		return // unparseable or no usable id: dropped without reply (spec 3.2)
	}
	if req.invalid != "" {
		s.reply(req.id, nil, &wire.ResponseError{Code: wire.CodeInvalidRequest, Message: req.invalid})
		return
	}
	switch req.method {
	case wire.MethodDescribe:
		s.mu.Lock()
		result := s.cat.describe
		s.mu.Unlock()
		s.reply(req.id, result, nil)
	case wire.MethodRead:
		s.reply(req.id, s.readResult(), nil)
	case wire.MethodCall:
		s.call(ctx, req)
	default:
		s.reply(req.id, nil, &wire.ResponseError{
			Code:    wire.CodeMethodNotFound,
			Message: fmt.Sprintf("a Tick has no method %q; it answers tick/describe, tick/read and tick/call", req.method),
		})
	}
}

// readResult is the tick/read result: the newest state (spec 6.2).
func (s *Server) readResult() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return mustJSON(wire.State{Seq: s.seq, Data: s.data, At: s.at})
}

// call checks a tick/call in the order of spec 7.2 (revision, then tool and args) against one
// catalog, and starts its handler. Every refusal here has no effect, as its code promises.
func (s *Server) call(ctx context.Context, req request) {
	if ctx.Err() != nil {
		return // the Tick is stopping; the host counts the call as unknown
	}
	s.mu.Lock()
	cat := s.cat
	s.mu.Unlock()
	c, shapeErr := parseCallParams(req.params)
	if !c.revisionOK || c.revision != cat.revision {
		s.reply(req.id, nil, &wire.ResponseError{
			Code:    wire.CodeCatalogChanged,
			Message: "the Tick's tool catalog changed; describe the Tick and prepare the call again",
			Data:    mustJSON(map[string]string{"revision": cat.revision}),
		})
		return
	}
	if shapeErr != nil {
		s.reply(req.id, nil, &wire.ResponseError{Code: wire.CodeInvalidParams, Message: shapeErr.Error()})
		return
	}
	t := cat.tools[c.tool]
	if t == nil {
		s.reply(req.id, nil, &wire.ResponseError{
			Code:    wire.CodeInvalidParams,
			Message: fmt.Sprintf("there is no tool %q; the tools are: %s", c.tool, cat.toolNames()),
		})
		return
	}
	if err := t.schema.Validate(c.args); err != nil {
		s.reply(req.id, nil, &wire.ResponseError{
			Code:    wire.CodeInvalidParams,
			Message: fmt.Sprintf("the args do not fit the input_schema of %s: %v", c.tool, err),
		})
		return
	}
	s.calls.Add(1)
	// Owned by the call: ends when the handler returns; ctx tells it the Tick is stopping.
	go func() {
		defer s.calls.Done()
		result, rerr := runHandler(ctx, t.spec.Handler, c.args)
		s.reply(req.id, result, rerr)
	}()
}

// reply sends the one response a request gets (spec 3.2). A write error means the host stopped
// listening; serve sees it through the outbox.
func (s *Server) reply(id uint64, result json.RawMessage, rerr *wire.ResponseError) {
	resp := wire.Response{JSONRPC: wire.JSONRPCVersion, ID: id, Result: result, Error: rerr}
	line, err := json.Marshal(resp)
	if err != nil && rerr != nil { // only a handler's ResponseError.Data can fail to encode
		resp.Error = &wire.ResponseError{Code: rerr.Code, Message: rerr.Message}
		line = mustJSON(resp)
	}
	_ = s.out.send(append(line, '\n'))
}

// toolNames lists the catalog's tool names for error messages.
func (c *catalog) toolNames() string {
	names := make([]string, 0, len(c.tools))
	for n := range c.tools {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "(none)"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
