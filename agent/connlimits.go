package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"
)

// Connection limits (issue 38): ~20,000 idle connections once took every descriptor the server
// had, so the CLI hung, no PTY could open and no view could come back. The server therefore
// bounds its connections per client (the peer's uid and pid, SO_PEERCRED), per uid and in all,
// refuses one over a bound at once with a one-line error, drops a connection that sends no
// complete request soon after connecting, and keeps a reserve of descriptors that connections
// never take, for views, PTYs and the journal.

// ConnLimits bound the control socket's connections. A zero field takes its default
// (DefaultConnLimits).
type ConnLimits struct {
	// PerClient bounds the connections of one process (its uid and pid, as SO_PEERCRED says).
	PerClient int
	// PerUID bounds the connections of one uid. The server admits only its own uid (H-SEC3), so
	// by default this equals Total.
	PerUID int
	// Total bounds every connection together; the default leaves a reserve of descriptors.
	Total int
	// Silence is how long a new connection may go without sending a complete request line
	// before it is closed. A connection that sent one (an MCP bridge, a wait) stays.
	Silence time.Duration
}

const (
	// defaultPerClient: an MCP bridge or a verb holds one connection; a test binary a few dozen.
	defaultPerClient = 256
	// maxConnsCeiling bounds Total however many descriptors there are: each connection holds a
	// goroutine and buffers, and a person's agents and scripts need far fewer.
	maxConnsCeiling = 4096
	// minFDReserve is the least the connections leave to views and PTYs (a quarter when more).
	minFDReserve = 256
	// minConns: even with very few descriptors a verb and a view can still connect.
	minConns = 8
	// defaultSilence: a real client sends its first request (hello, a view's attach) at once.
	defaultSilence = 5 * time.Second
	// overCapViews: a view's attach is admitted past the bounds (the person must be able to come
	// back to a server a script has flooded), this many at most at once, from the reserve.
	overCapViews = 16
	// maxRefusing bounds the refused connections whose first request is being read, to answer
	// it by its id; past it a refused connection gets the error line at once and is closed.
	maxRefusing = 64
	// refuseReadWait bounds that read: a real client has sent its first request by then.
	refuseReadWait = time.Second
)

// raiseFileLimit makes sure RLIMIT_NOFILE's soft limit is raised to the hard limit and returns
// the soft limit in force. Go's runtime already raises it at start on Linux since Go 1.19 (to
// the hard limit minus one, and it gives the programs it starts the original soft limit back,
// for those that still use select), so this normally finds nothing to do and changes nothing:
// raising it again would stop Go from restoring the original for the panes' programs. Only when
// the runtime did not raise it (another system, a limit changed from outside) does it raise it,
// so the connection bounds below never rest on a low soft limit.
func raiseFileLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 1024
	}
	if lim.Cur+1 < lim.Max {
		raised := lim
		raised.Cur = lim.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	return lim.Cur
}

// connsFor returns the connection bound that leaves a reserve of at least minFDReserve
// descriptors, or a quarter of them when that is more, under a soft limit of nofile.
func connsFor(nofile uint64) int {
	reserve := max(uint64(minFDReserve), nofile/4)
	if nofile <= reserve {
		return minConns
	}
	return max(minConns, int(min(nofile-reserve, maxConnsCeiling)))
}

// DefaultConnLimits returns the bounds under the current RLIMIT_NOFILE (raised first).
func DefaultConnLimits() ConnLimits {
	total := connsFor(raiseFileLimit())
	return ConnLimits{PerClient: min(defaultPerClient, total), PerUID: total, Total: total, Silence: defaultSilence}
}

// withDefaults fills the zero fields of l from DefaultConnLimits.
func (l ConnLimits) withDefaults() ConnLimits {
	d := DefaultConnLimits()
	if l.Total <= 0 {
		l.Total = d.Total
	}
	if l.PerUID <= 0 {
		l.PerUID = l.Total
	}
	if l.PerClient <= 0 {
		l.PerClient = min(d.PerClient, l.PerUID)
	}
	if l.Silence <= 0 {
		l.Silence = d.Silence
	}
	return l
}

// peerKey is one client process as SO_PEERCRED says.
type peerKey struct{ uid, pid int }

// connCount is the server's count of its connections (under Server.mu).
type connCount struct {
	total int
	views int // views admitted past the bounds, now attached
	byUID map[int]int
	byPID map[peerKey]int
}

// admit counts a new connection of k and returns "" when it is within every bound, else the
// refusal the client is shown (nothing is counted then). Called with Server.mu held.
func (n *connCount) admit(l ConnLimits, k peerKey) string {
	if n.byUID == nil {
		n.byUID, n.byPID = map[int]int{}, map[peerKey]int{}
	}
	switch {
	case n.byPID[k] >= l.PerClient:
		return fmt.Sprintf("tickmux refused the connection: this process (pid %d) already has %d connections open to it, its limit; "+
			"close some (each tickmux verb and each tickmux mcp session holds one) and try again", k.pid, l.PerClient)
	case n.total >= l.Total:
		return fmt.Sprintf("tickmux refused the connection: %d connections are open, as many as it takes (it keeps file descriptors "+
			"for views and panes); end some (idle tickmux wait, tickmux mcp or scripts holding the socket open) and try again", l.Total)
	case n.byUID[k.uid] >= l.PerUID:
		return fmt.Sprintf("tickmux refused the connection: uid %d already has %d connections open to it, the limit per user; "+
			"end some (idle tickmux wait, tickmux mcp or scripts holding the socket open) and try again", k.uid, l.PerUID)
	}
	n.add(k, 1)
	return ""
}

func (n *connCount) add(k peerKey, d int) {
	if n.byUID == nil {
		n.byUID, n.byPID = map[int]int{}, map[peerKey]int{}
	}
	n.total += d
	n.byUID[k.uid] += d
	n.byPID[k] += d
	if n.byUID[k.uid] <= 0 {
		delete(n.byUID, k.uid)
	}
	if n.byPID[k] <= 0 {
		delete(n.byPID, k)
	}
}

// refusal is the one line a refused connection is sent: the answer to its first request when it
// sent one in time (the Go client's hello, so Dial returns it and the verb prints it), else an
// error without an id (a view's client, nc and socat print it as it comes).
func refusal(id uint64, why string) []byte {
	line, _ := encode(Message{ID: id, Error: failure(ReasonTooMany, "%s", why)})
	return append(line, '\n')
}

// refuse answers a connection over a bound (accept loop): with the bounded count of refusals
// under way it reads the connection's first request in a goroutine; past it, it writes the
// error line at once. Either way the connection is then closed, unless its first request is a
// view's attach and fewer than overCapViews such views are attached: then it is served.
func (s *Server) refuse(nc *net.UnixConn, k peerKey, why string) {
	select {
	case s.refusing <- struct{}{}:
	default:
		s.logf("control socket: %s (pid %d)", why, k.pid)
		_ = nc.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		_, _ = nc.Write(refusal(0, why))
		nc.Close()
		return
	}
	s.wg.Add(1)
	go func() { // owner: s; exits within refuseReadWait (or when Close closes the connection)
		defer s.wg.Done()
		defer func() { <-s.refusing }()
		_ = nc.SetReadDeadline(time.Now().Add(refuseReadWait))
		rd := bufio.NewReaderSize(nc, 4<<10)
		line, err := rd.ReadSlice('\n')
		var req Request
		if err == nil && json.Unmarshal(bytes.TrimSpace(line), &req) == nil && req.ID != 0 {
			if s.views != nil && strings.HasPrefix(req.Method, "view/") && s.admitView(nc, k, req) {
				return
			}
		} else {
			req.ID = 0
		}
		s.logf("control socket: %s (pid %d)", why, k.pid)
		_ = nc.SetWriteDeadline(time.Now().Add(refuseReadWait))
		_, _ = nc.Write(refusal(req.ID, why))
		nc.Close()
	}()
}

// admitView serves a view's attach that came over the bounds, when fewer than overCapViews
// such views are attached; it reports whether it did. Called on the refusal's goroutine, which
// then serves the view as a connection's reader would, until the view is done.
func (s *Server) admitView(nc *net.UnixConn, k peerKey, req Request) bool {
	c := newConn(s, nc)
	c.cred, c.overCapView = k, true
	s.mu.Lock()
	if s.closed || s.count.views >= overCapViews {
		s.mu.Unlock()
		c.cancel()
		return false
	}
	s.count.views++
	s.count.add(k, 1)
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	_ = nc.SetReadDeadline(time.Time{})
	s.logf("control socket: a view attached past the connection limits (pid %d)", k.pid)
	s.wg.Add(1)
	c.read(&req)
	return true
}
