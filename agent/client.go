package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sync"
	"syscall"
	"time"

	"tickmux/tick/wire"
)

// Client is a connection to a running tickmux: the CLI verbs and `tickmux mcp` use it. It is safe
// for concurrent use; requests run concurrently and answers are matched by id. Once the connection
// breaks, every request fails (Err says why) and a new Client must be dialled.
type Client struct {
	path       string
	nc         net.Conn
	wmu        sync.Mutex // one whole line per write
	enc        *json.Encoder
	readerDone chan struct{}

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]*pending // requests waiting for their answer; each retired exactly once
	err     error               // why the connection ended; nil while it works
}

// pending is one request waiting for its answer.
type pending struct {
	done     chan Message  // capacity 1: the answer, or the connection's end
	progress chan Progress // lossy: a slow consumer misses some progress, never the answer
	changed  chan Changed  // lossy likewise (watch)
}

// maxAnswerLine bounds one line from the server: a call's result may be 8 MiB (HOST.md limits).
const maxAnswerLine = 16 << 20

// errClientClosed ends the requests of a Client that was closed.
var errClientClosed = &Error{Message: "the client closed its connection to tickmux", Effect: wire.EffectUnknown, Reason: ReasonCancelled}

// Dial connects to the tickmux listening on path and names the client (the name appears on
// approval cards). When nothing listens there the error's Reason is ReasonNotRunning.
//
// Before it sends anything, Dial checks that the socket is its user's own (its directory and the
// socket owned by the user's uid, the directory writable by nobody else) and that the process
// listening runs as the same uid; otherwise it refuses with ReasonUntrusted.
func Dial(ctx context.Context, path, name string) (*Client, error) {
	uid := expectedUID()
	if err := checkSocketOwner(path, uid); err != nil {
		return nil, &Error{Message: err.Error(), Effect: wire.EffectNone, Reason: ReasonUntrusted}
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ECONNREFUSED):
			return nil, &Error{Message: fmt.Sprintf("no tickmux is running on %s; start tickmux first, or point --socket (or %s) at its socket", path, EnvSocket),
				Effect: wire.EffectNone, Reason: ReasonNotRunning}
		case errors.Is(err, fs.ErrPermission):
			return nil, &Error{Message: fmt.Sprintf("cannot connect to %s: permission denied (the socket belongs to another user)", path),
				Effect: wire.EffectNone, Reason: ReasonNotRunning}
		}
		return nil, &Error{Message: fmt.Sprintf("cannot connect to tickmux on %s: %v", path, err), Effect: wire.EffectNone, Reason: ReasonNotRunning}
	}
	if err := checkPeer(nc, path, uid); err != nil {
		nc.Close()
		return nil, &Error{Message: err.Error(), Effect: wire.EffectNone, Reason: ReasonUntrusted}
	}
	c := &Client{path: path, nc: nc, enc: json.NewEncoder(nc), readerDone: make(chan struct{}), pending: map[uint64]*pending{}}
	c.enc.SetEscapeHTML(false)
	go c.read() // owner: c; exits when the connection ends (Close, or the server hangs up)
	var hello HelloResult
	if err := c.Do(ctx, MethodHello, HelloParams{Client: name, Protocol: ProtocolVersion}, &hello, nil); err != nil {
		c.Close()
		var e *Error
		if errors.As(err, &e) && e.Reason == ReasonDisconnected {
			return nil, &Error{Message: fmt.Sprintf("tickmux on %s hung up at once (it refuses connections from other users)", path),
				Effect: wire.EffectNone, Reason: ReasonDisconnected}
		}
		return nil, err
	}
	return c, nil
}

// Done is closed once the connection has ended and Err says why.
func (c *Client) Done() <-chan struct{} { return c.readerDone }

// Err returns why the connection ended, or nil while it works.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection: the server cancels what is still running (withdrawing approval
// cards), and requests still waiting here fail.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.err == nil {
		c.err = errClientClosed
	}
	c.mu.Unlock()
	err := c.nc.Close()
	<-c.readerDone
	return err
}

// Do sends one request and waits for its answer, which it decodes into result (a pointer, or nil
// to drop it; a *json.RawMessage keeps it as sent). onProgress, when not nil, sees the progress the
// server sends meanwhile, on the calling goroutine. When ctx ends first, Do cancels the request on
// the server (a pending approval card is withdrawn) and returns an *Error with ReasonCancelled.
// Every error is an *Error, with the effect the request may have had (H-E1).
func (c *Client) Do(ctx context.Context, method string, params, result any, onProgress func(Progress)) error {
	return c.do(ctx, method, params, result, onProgress, nil)
}

// Watch reports each new state of the instances named (all when none) to fn, on the calling
// goroutine, until ctx ends or the connection breaks.
func (c *Client) Watch(ctx context.Context, ids []string, fn func(Changed)) error {
	return c.do(ctx, MethodWatch, WatchParams{IDs: ids}, nil, nil, fn)
}

func (c *Client) do(ctx context.Context, method string, params, result any, onProgress func(Progress), onChanged func(Changed)) error {
	raw, err := encode(params)
	if err != nil {
		return &Error{Message: fmt.Sprintf("cannot encode the params of %s: %v", method, err), Effect: wire.EffectNone, Reason: ReasonBadRequest}
	}
	p := &pending{done: make(chan Message, 1), progress: make(chan Progress, 8), changed: make(chan Changed, 256)}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = p
	c.mu.Unlock()

	if err := c.write(Request{ID: id, Method: method, Params: raw}); err != nil {
		if c.retire(id) {
			return &Error{Message: fmt.Sprintf("cannot send to tickmux: %v", err), Effect: abandonedEffect(method), Reason: ReasonDisconnected}
		}
	}
	for {
		select {
		case m := <-p.done:
			return decodeAnswer(m, result)
		case pr := <-p.progress:
			if onProgress != nil {
				onProgress(pr)
			}
		case ch := <-p.changed:
			if onChanged != nil {
				onChanged(ch)
			}
		case <-ctx.Done():
			if !c.retire(id) {
				return decodeAnswer(<-p.done, result) // the answer won the race
			}
			cancel, _ := encode(CancelParams{Request: id})
			_ = c.write(Request{Method: NotifyCancel, Params: cancel})
			return &Error{Message: fmt.Sprintf("stopped waiting for tickmux's answer to %s: %v", method, context.Cause(ctx)),
				Effect: abandonedEffect(method), Reason: ReasonCancelled}
		}
	}
}

// abandonedEffect is what a request may have done when its answer never came.
func abandonedEffect(method string) wire.Effect {
	switch method {
	case MethodCall, MethodOpen, MethodClose, MethodSend:
		return wire.EffectUnknown
	}
	return wire.EffectNone
}

func decodeAnswer(m Message, result any) error {
	if m.Error != nil {
		return m.Error
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(m.Result, result); err != nil {
		return &Error{Message: fmt.Sprintf("cannot read tickmux's answer: %v", err), Effect: wire.EffectUnknown, Reason: ReasonFailed}
	}
	return nil
}

// retire takes request id out of the pending table; false means the reader already answered it.
func (c *Client) retire(id uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; !ok {
		return false
	}
	delete(c.pending, id)
	return true
}

func (c *Client) write(r Request) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return c.enc.Encode(r)
}

// read matches answers and notifications to requests until the connection ends, then retires every
// request still pending with the reason.
func (c *Client) read() {
	defer close(c.readerDone)
	sc := bufio.NewScanner(c.nc)
	sc.Buffer(make([]byte, 0, 64<<10), maxAnswerLine)
	for sc.Scan() {
		var m Message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.ID != 0:
			c.mu.Lock()
			p := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if p != nil {
				p.done <- m
			}
		case m.Method == NotifyProgress:
			var pr Progress
			if json.Unmarshal(m.Params, &pr) == nil {
				if p := c.lookup(pr.Request); p != nil {
					select {
					case p.progress <- pr:
					default:
					}
				}
			}
		case m.Method == NotifyChanged:
			var ch Changed
			if json.Unmarshal(m.Params, &ch) == nil {
				if p := c.lookup(ch.Request); p != nil {
					select {
					case p.changed <- ch:
					default:
					}
				}
			}
		}
	}
	why := sc.Err()
	if why == nil {
		why = io.EOF
	}
	c.mu.Lock()
	if c.err == nil {
		c.err = &Error{Message: fmt.Sprintf("lost the connection to tickmux on %s (%v); what was under way may or may not have happened", c.path, why),
			Effect: wire.EffectUnknown, Reason: ReasonDisconnected}
	}
	end := c.err.(*Error)
	left := c.pending
	c.pending = map[uint64]*pending{}
	c.mu.Unlock()
	for id, p := range left {
		p.done <- Message{ID: id, Error: end}
	}
}

func (c *Client) lookup(id uint64) *pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending[id]
}
