package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"tickmux/host"
)

// Server answers control-socket clients on behalf of a *host.Host. The TUI starts one with Serve
// and closes it before closing the host; `tickmux serve` does the same without a screen.
//
// Goroutines, each stopped by Close:
//
//	accept loop ─┬─▶ one reader per connection ─┬─▶ one goroutine per request
//	             │   (ends at EOF or Close)     │   (ends when its method returns; cancel,
//	             │                              │    disconnect and Close cancel its context)
//	             │                              └─▶ one progress ticker per call, open, close
//	             │                                  or send (stopped before the answer is sent)
//	             └─ ends when Close closes the listener
type Server struct {
	h        *host.Host
	ln       *Listener
	logf     func(format string, args ...any)
	every    time.Duration // progress interval
	uid      int           // the uid every peer must have (H-SEC3)
	views    func(nc *net.UnixConn, req Request)
	attached func() int
	remote   RemoteHosts // the other hosts, or nil

	ctx    context.Context // parent of every connection; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the accept loop and the connection readers

	limits   ConnLimits    // connection bounds (connlimits.go)
	refusing chan struct{} // one token per refused connection whose first request is being read

	mu     sync.Mutex
	conns  map[*conn]struct{}
	count  connCount // the connections by client and uid, for limits
	closed bool

	kept callBook // calls whose tickets outlive their connection (CallParams.Keep, calls.go)
}

// Options tune a Server.
type Options struct {
	// Logf receives log lines (refused peers, broken connections); nil discards them. Never the
	// terminal tickmux draws on.
	Logf func(format string, args ...any)
	// ProgressEvery is how often a request that waits (for the person or a Tick) sends progress;
	// 0 means DefaultProgressEvery.
	ProgressEvery time.Duration
	// Views, when set, takes over a connection whose request names a method starting with
	// "view/" (attach a view, kill the server) or "proxy/" (a view on another host through
	// `tickmux proxy`): it answers the request itself and returns when it is done with the
	// connection, which is then closed. Server.Close closes the connection under it. Lines the
	// client sent after that request may be lost: it must wait for the answer first.
	Views func(nc *net.UnixConn, req Request)
	// Attached reports how many views are attached; ls and the MCP progress say when none is.
	Attached func() int
	// Limits bound the connections (per client, per uid, in all) and how long a new one may stay
	// silent; zero fields take DefaultConnLimits, derived from RLIMIT_NOFILE.
	Limits ConnLimits
	// KeptPerUID bounds the kept calls (call --no-wait) of one uid, all its processes together;
	// 0 means 256 (maxKeptPerUID).
	KeptPerUID int
	// Remote, when set, is the other hosts of the config's [[hosts]] (remote.Manager through an
	// adapter, remote.go): list (ls, list_ticks) shows each one's state and what runs on it,
	// read-only. nil: no hosts.
	Remote RemoteHosts
}

// DefaultProgressEvery keeps clients with a 60 s request timeout that resets on progress (the
// TypeScript MCP SDK) waiting for as long as the person takes.
const DefaultProgressEvery = 3 * time.Second

// firstProgress is the delay before a request's first progress: long enough for a call to reach
// its approval card, short enough for a person at a CLI to see "waiting for approval" at once.
const firstProgress = 250 * time.Millisecond

// maxRequestLine bounds one request line; a longer one ends the connection.
const maxRequestLine = 8 << 20

// maxInFlight bounds the requests a connection has running or answered but not yet written.
// Each holds its answer until the client reads it: a client that pipelines requests and never
// reads would otherwise hold the server's memory (100,000 screens took 1.4 GB). Past the bound a
// request is refused at once; writing that refusal blocks the reader until the client reads
// (backpressure), and a client that does not read within writeTimeout is disconnected.
const maxInFlight = 256

// writeTimeout bounds one write to a client; a client that stops reading is disconnected.
const writeTimeout = 10 * time.Second

// Serve opens the control socket at path (see Listen) and answers clients with h until Close.
// It returns ErrAlreadyRunning (wrapped, with the path) when another tickmux owns the socket.
func Serve(h *host.Host, path string, opts Options) (*Server, error) {
	ln, err := Listen(path)
	if err != nil {
		return nil, err
	}
	return serveOn(h, ln, opts, os.Getuid()), nil
}

func serveOn(h *host.Host, ln *Listener, opts Options, uid int) *Server {
	s := &Server{h: h, ln: ln, logf: opts.Logf, every: opts.ProgressEvery, uid: uid, conns: map[*conn]struct{}{},
		views: opts.Views, attached: opts.Attached, remote: opts.Remote, limits: opts.Limits.withDefaults(), refusing: make(chan struct{}, maxRefusing)}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	if s.every <= 0 {
		s.every = DefaultProgressEvery
	}
	s.kept.perUID = opts.KeptPerUID
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.accept() // owner: s; exits when Close closes the listener
	return s
}

// Path is the socket's path.
func (s *Server) Path() string { return s.ln.Path() }

// Unlisten stops accepting and removes the socket, releasing its lock: a tickmux started from
// now on starts a server of its own. The connections already made go on until Close. Any
// goroutine; Close after it is still needed.
func (s *Server) Unlisten() { _ = s.ln.Close() }

// Close stops accepting, cancels every request (pending approval cards are withdrawn), closes
// every connection, waits for all of the server's goroutines and removes the socket. It does not
// close the host.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.cancel()
	for _, c := range conns {
		c.nc.Close()
	}
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.AcceptUnix()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			s.logf("control socket: accept: %v", err)
			select { // out of file descriptors, say: do not spin
			case <-time.After(100 * time.Millisecond):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		uid, pid, err := peerCred(nc)
		if err != nil || uid != s.uid {
			// H-SEC3: the socket is the user's alone; 0600 should already have kept others out.
			s.logf("control socket: refused a peer with uid %d (want %d): %v", uid, s.uid, err)
			nc.Close()
			continue
		}
		c := newConn(s, nc)
		c.pid, c.cred = pid, peerKey{uid: uid, pid: pid}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.cancel()
			nc.Close()
			return
		}
		if why := s.count.admit(s.limits, c.cred); why != "" {
			s.mu.Unlock()
			c.cancel()
			s.refuse(nc, c.cred, why)
			continue
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go c.read(nil) // owner: s; exits when the client hangs up, stays silent (limits.Silence) or Close closes the connection
	}
}

// conn is one client connection.
type conn struct {
	s    *Server
	nc   *net.UnixConn
	pid  int     // the client's process (SO_PEERCRED): its kept calls are bounded together
	cred peerKey // its uid and pid, as counted for the connection limits
	// overCapView: a view's attach admitted past the connection limits (connlimits.go).
	overCapView bool
	ctx         context.Context // cancelled when the connection ends
	cancel      context.CancelFunc
	reqs        sync.WaitGroup // the connection's request goroutines

	wmu sync.Mutex // one whole line per write
	enc *json.Encoder

	// slots holds one token per request from the moment it is read until its answer is
	// written (maxInFlight).
	slots chan struct{}

	mu          sync.Mutex
	name        string                             // from hello; shown on approval cards
	inflight    map[uint64]context.CancelCauseFunc // requests running, by id
	cursors     map[string]uint64                  // per instance: the seq last given to this client (wait.go)
	cursorsKept int                                // len(cursors) after gave's last sweep
	calls       callBook                           // calls that answered with a ticket (calls.go)
}

func newConn(s *Server, nc *net.UnixConn) *conn {
	c := &conn{s: s, nc: nc, name: "socket client", slots: make(chan struct{}, maxInFlight), inflight: map[uint64]context.CancelCauseFunc{}, cursors: map[string]uint64{}}
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	c.enc = json.NewEncoder(nc)
	c.enc.SetEscapeHTML(false) // deliveries are budgeted as written without HTML escaping (trim)
	return c
}

// errCancelled is the cause of a request the client cancelled.
var errCancelled = fmt.Errorf("the client cancelled the request: %w", context.Canceled)

// read reads requests until the client hangs up, then cancels what is still running (withdrawing
// its approval cards), waits for it and closes the connection. A connection that sends no
// complete request within limits.Silence of connecting is closed. first, when not nil, is a
// view's attach already read (connlimits.go): the connection is handed to the views at once.
func (c *conn) read(first *Request) {
	defer c.s.wg.Done()
	defer c.end()
	if first != nil {
		c.s.views(c.nc, *first)
		return
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(c.s.limits.Silence))
	spoke := false
	sc := bufio.NewScanner(c.nc)
	// The buffer grows as lines need (up to maxRequestLine): most connections send a few short
	// lines, and a view's attach waits for this allocation's pages.
	sc.Buffer(make([]byte, 0, 4<<10), maxRequestLine)
	for sc.Scan() {
		if !spoke {
			spoke = true
			_ = c.nc.SetReadDeadline(time.Time{}) // it spoke: it may now wait as long as it likes
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			c.s.logf("control socket: a request that is not JSON: %v", err)
			c.send(Message{Error: failure(ReasonBadRequest, "a request line that is not a JSON object: %v", err)})
			continue
		}
		if req.ID == 0 {
			c.notification(req)
			continue
		}
		if c.s.views != nil && (strings.HasPrefix(req.Method, "view/") || strings.HasPrefix(req.Method, "proxy/")) {
			// The connection is the view's, or a proxy's, now (server/). Whatever the client sent
			// after this line may be in sc's buffer, lost: such a client waits for its answer.
			c.s.views(c.nc, req)
			break
		}
		select {
		case c.slots <- struct{}{}:
		default:
			// Blocks until the client reads, or drops it after writeTimeout.
			c.send(Message{ID: req.ID, Error: failure(ReasonBadRequest, "%d requests are already in flight on this connection; read their answers before sending more", maxInFlight)})
			continue
		}
		ctx, cancel := context.WithCancelCause(c.ctx)
		c.mu.Lock()
		_, dup := c.inflight[req.ID]
		if !dup {
			c.inflight[req.ID] = cancel
		}
		c.mu.Unlock()
		if dup {
			cancel(nil)
			c.send(Message{ID: req.ID, Error: failure(ReasonBadRequest, "request id %d is already in flight on this connection", req.ID)})
			<-c.slots
			continue
		}
		c.reqs.Add(1)
		go c.serve(ctx, cancel, req) // owner: c; exits when the method returns (cancel, hang-up and Close cancel ctx)
	}
	err := sc.Err()
	switch {
	case !spoke && errors.Is(err, os.ErrDeadlineExceeded):
		c.s.logf("control socket: closed a silent connection (pid %d): no request within %v of connecting", c.pid, c.s.limits.Silence)
		c.send(Message{Error: failure(ReasonBadRequest, "tickmux closed this connection: no request within %v of connecting", c.s.limits.Silence)})
	case err != nil && c.ctx.Err() == nil:
		c.s.logf("control socket: client %q: %v", c.client(), err)
	}
}

// end cancels what the connection still runs (withdrawing its approval cards), waits for it,
// closes the connection and uncounts it.
func (c *conn) end() {
	c.cancel()
	c.reqs.Wait()
	c.nc.Close()
	c.s.mu.Lock()
	delete(c.s.conns, c)
	c.s.count.add(c.cred, -1)
	if c.overCapView {
		c.s.count.views--
	}
	c.s.mu.Unlock()
}

func (c *conn) notification(req Request) {
	switch req.Method {
	case NotifyCancel:
		var p CancelParams
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		c.mu.Lock()
		cancel := c.inflight[p.Request]
		c.mu.Unlock()
		if cancel != nil {
			cancel(errCancelled)
		}
	default:
		c.s.logf("control socket: ignored notification %q", req.Method)
	}
}

func (c *conn) serve(ctx context.Context, cancel context.CancelCauseFunc, req Request) {
	defer c.reqs.Done()
	defer func() { <-c.slots }() // after the answer is written
	res, err := c.s.dispatch(ctx, c, req)
	cancel(nil)
	c.mu.Lock()
	delete(c.inflight, req.ID)
	c.mu.Unlock()
	msg := Message{ID: req.ID}
	if err == nil {
		msg.Result, err = encode(res)
	}
	if err != nil {
		msg.Error = errorOf(err)
	}
	c.send(msg)
}

func (c *conn) client() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// send writes one message; a client that does not read within writeTimeout is disconnected.
func (c *conn) send(m Message) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if err := c.enc.Encode(m); err != nil {
		if c.ctx.Err() == nil {
			c.s.logf("control socket: client %q: %v", c.client(), err)
		}
		c.nc.Close() // the reader ends and cancels the rest
	}
}

func (c *conn) notify(method string, params any) {
	raw, err := encode(params)
	if err != nil {
		return
	}
	c.send(Message{Method: method, Params: raw})
}

// heartbeat sends status() as progress for request id now and then, until stop is called.
func (c *conn) heartbeat(ctx context.Context, id uint64, status func() Progress) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() { // owner: the request; exits when it calls stop or its context ends
		defer close(exited)
		t := time.NewTimer(firstProgress)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			p := status()
			p.Request = id
			c.notify(NotifyProgress, p)
			t.Reset(c.s.every)
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// encode writes v as compact JSON without HTML escaping, as a delivery's budget counts it.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// decodeParams decodes params strictly: an unknown field is a mistake worth reporting.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return failure(ReasonBadRequest, "invalid params: %v", err)
	}
	return nil
}
