package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/host/guardian"
	"tickmux/internal/remotewire"
)

// maxLine bounds one line from a host (the control socket's bound on its answers).
const maxLine = 16 << 20

// request and message are the control socket's framing (agent/wire.go), which the proxy
// carries: one JSON value per line.
type request struct {
	ID     uint64          `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type message struct {
	ID     uint64          `json:"id,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

type wireError struct {
	Message string `json:"message"`
	Effect  string `json:"effect"`
	Reason  string `json:"reason"`
}

// reply is what a pending request gets: its answer, or lost when the connection ended first.
type reply struct {
	msg  message
	lost bool
}

// conn is one ssh process and the requests on it.
type conn struct {
	l      *Link
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File // our end of ssh's stdin
	stdout *os.File // our end of ssh's stdout
	stderr *os.File // our end of ssh's stderr
	out    chan []byte

	done       chan struct{} // closed by fail, once reason is set
	exited     chan struct{} // closed once ssh is waited
	stderrDone chan struct{}
	errTail    tail
	notes      atomic.Uint64 // cards notifications read
	wg         sync.WaitGroup

	mu      sync.Mutex
	reason  error
	nextID  uint64
	pending map[uint64]chan reply
}

// args are ssh's arguments: the link's own options first (ssh takes the first value it gets for
// an option), the host's ssh_args, the destination, and the remote command, which the remote
// shell parses.
func (l *Link) args() []string {
	a := []string{"-T",
		"-o", "BatchMode=yes", // never a prompt: a password, a passphrase, an unknown host key
		"-o", "ConnectTimeout=10",
		"-o", "ServerAliveInterval=5",
		"-o", "ServerAliveCountMax=3",
		// The link is nobody's master: killing it must not end the person's other sessions,
		// and nothing it starts may outlive it (ControlPersist).
		"-o", "ControlMaster=no",
		"-o", "ClearAllForwardings=yes",
		"-o", "ForwardAgent=no",
		"-o", "ForwardX11=no",
	}
	a = append(a, l.host.SSHArgs...)
	a = append(a, l.host.SSH, shellQuote(l.host.Tickmux), "proxy")
	if l.host.Socket != "" {
		a = append(a, "--socket", shellQuote(l.host.Socket))
	}
	return a
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./~:=@%+,-]+$`)

// shellQuote quotes s for the remote's shell (a leading ~ stays unquoted: the person's
// ~/bin/tickmux means their home there).
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// startConn starts ssh for l and the goroutines that read, write and wait on it.
func startConn(l *Link) (*conn, error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	cmd := exec.Command(l.ssh, l.args()...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// Its own process group: the link kills ssh and whatever it started (a ProxyCommand) at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("cannot run %s (%v): install OpenSSH's client", l.ssh, err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	c := &conn{
		l: l, cmd: cmd, pgid: cmd.Process.Pid,
		stdin: inW, stdout: outR, stderr: errR,
		out:        make(chan []byte, 64),
		done:       make(chan struct{}),
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		pending:    map[uint64]chan reply{},
	}
	c.wg.Add(4)
	go func() { // owner: conn; ends when ssh does
		defer c.wg.Done()
		cmd.Wait()
		unix.Kill(-c.pgid, unix.SIGKILL) // what ssh left in its group (a ProxyCommand)
		// Gone, not only told: Close promises no process outlives it (a killed process lingers
		// until it is scheduled, longer on a loaded machine).
		guardian.WaitGroupsGone([]int{c.pgid}, time.Now().Add(2*time.Second))
		close(c.exited)
	}()
	go func() { // owner: conn; ends at ssh's stdout's end, or at close
		defer c.wg.Done()
		c.read()
	}()
	go func() { // owner: conn; ends when the connection does
		defer c.wg.Done()
		c.write()
	}()
	go func() { // owner: conn; ends at ssh's stderr's end, or at close
		defer c.wg.Done()
		buf := make([]byte, 4096)
		for {
			n, err := c.stderr.Read(buf)
			c.errTail.Write(buf[:n])
			if err != nil {
				break
			}
		}
		close(c.stderrDone)
	}()
	return c, nil
}

// call sends one request and waits for its answer, ctx or the connection's end.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	host := c.l.host.Name
	p := json.RawMessage("{}")
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: %s's params: %v", host, method, err)
		}
		p = b
	}
	c.mu.Lock()
	if c.reason != nil {
		why := c.reason
		c.mu.Unlock()
		return &UnreachableError{Host: host, State: Unreachable, Reason: why.Error()}
	}
	c.nextID++
	id := c.nextID
	ch := make(chan reply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	line, err := json.Marshal(request{ID: id, Method: method, Params: p})
	if err != nil {
		c.retire(id)
		return err
	}
	line = append(line, '\n')
	select {
	case c.out <- line:
	case <-ctx.Done():
		c.retire(id)
		return fmt.Errorf("%s: gave up sending %s (%v): nothing was sent", host, method, context.Cause(ctx))
	case <-c.done:
		c.retire(id)
		return &UnreachableError{Host: host, State: Unreachable, Reason: c.wait().Error()}
	}
	var r reply
	select {
	case r = <-ch:
	case <-ctx.Done():
		if c.retire(id) {
			cause := "the wait ran out"
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				cause = context.Cause(ctx).Error()
			}
			return &LostError{Host: host, Method: method, Cause: cause}
		}
		r = <-ch // the answer, or the connection's end, won the race
	}
	if r.lost {
		return &LostError{Host: host, Method: method, Cause: c.wait().Error()}
	}
	if r.msg.Error != nil {
		return &RemoteError{Host: host, Method: method, Message: clean(r.msg.Error.Message), Reason: r.msg.Error.Reason, Effect: r.msg.Error.Effect}
	}
	if result != nil {
		if err := json.Unmarshal(r.msg.Result, result); err != nil {
			return &RemoteError{Host: host, Method: method, Effect: "unknown", Message: fmt.Sprintf("its answer does not read: %v", err)}
		}
	}
	return nil
}

// retire takes request id out of the pending table; false when its reply was already given.
func (c *conn) retire(id uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; !ok {
		return false
	}
	delete(c.pending, id)
	return true
}

// fail ends the connection (the first reason stays): ssh's process group is killed, every
// pending request is lost.
func (c *conn) fail(why error) {
	c.mu.Lock()
	if c.reason != nil {
		c.mu.Unlock()
		return
	}
	c.reason = why
	left := c.pending
	c.pending = map[uint64]chan reply{}
	close(c.done)
	c.mu.Unlock()
	unix.Kill(-c.pgid, unix.SIGKILL)
	for _, ch := range left {
		ch <- reply{lost: true}
	}
}

func (c *conn) failed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait waits for the connection's end and says why it ended.
func (c *conn) wait() error {
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

func (c *conn) notifications() uint64 { return c.notes.Load() }

// close ends the connection and waits until ssh and every goroutine of it are gone.
func (c *conn) close(why error) {
	c.fail(why)
	<-c.exited
	c.stdin.Close() // a write blocked on a hung ssh returns
	c.stdout.Close()
	c.stderr.Close()
	c.wg.Wait()
}

// read reads answers and notifications until ssh's stdout ends.
func (c *conn) read() {
	sc := bufio.NewScanner(c.stdout)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue // not the protocol: a login banner on stdout, say
		}
		switch {
		case m.ID != 0:
			c.mu.Lock()
			ch := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- reply{msg: m}
			}
		case m.Method == remotewire.NotifyCards:
			var cr remotewire.CardsResult
			if json.Unmarshal(m.Params, &cr) == nil {
				c.notes.Add(1)
				c.l.setCards(c, cr.Cards) // never waits on Changed: the mailbox takes it
			}
		case m.Method == remotewire.NotifyFrame, m.Method == remotewire.NotifyPaneEnded, m.Method == remotewire.NotifyPanes:
			c.l.paneNote(c, m) // panes.go
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		c.fail(fmt.Errorf("%s sent a line longer than %d MB", c.l.host.Name, maxLine>>20))
		return
	}
	c.ended()
}

// write writes the queued requests; a write blocked on a hung ssh ends at close.
func (c *conn) write() {
	for {
		select {
		case <-c.done:
			return
		case line := <-c.out:
			if _, err := c.stdin.Write(line); err != nil {
				c.ended()
				return
			}
		}
	}
}

// ended is the end of ssh's pipes: ssh exits (or has), its status and last words say why.
func (c *conn) ended() {
	if c.failed() {
		return
	}
	select {
	case <-c.exited:
	case <-c.done:
		return
	case <-time.After(2 * time.Second):
	}
	select {
	case <-c.stderrDone:
	case <-time.After(time.Second):
	}
	code := -2 // still running
	select {
	case <-c.exited:
		code = c.cmd.ProcessState.ExitCode() // -1 when killed
	default:
	}
	c.fail(c.l.exitReason(code, c.errTail.String()))
}

// exitReason says why ssh ended, from its status and what it (or the remote) wrote on stderr.
func (l *Link) exitReason(code int, stderr string) error {
	if r := l.reasonFrom(code, stderr); r != "" {
		return errors.New(r)
	}
	if last := lastLine(stderr); last != "" {
		return errors.New(clean(last))
	}
	switch {
	case code == 0:
		return fmt.Errorf("the tickmux proxy on %s ended", l.host.SSH)
	case code > 0:
		return fmt.Errorf("ssh to %s ended with status %d, saying nothing", l.host.SSH, code)
	case code == -1:
		return fmt.Errorf("ssh to %s was killed", l.host.SSH)
	}
	return fmt.Errorf("ssh to %s closed its output", l.host.SSH)
}

// reasonFrom recognises what the person can act on in ssh's status and stderr (or a proxy's
// error answer); "" when nothing is recognised. code is -1 or less when there is no status.
func (l *Link) reasonFrom(code int, text string) string {
	dest, name := l.host.SSH, l.host.Name
	switch {
	case strings.Contains(text, "Host key verification failed") || strings.Contains(text, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return fmt.Sprintf("%s's host key is unknown or changed: run `ssh %s` once in a terminal to check and accept it", dest, dest)
	case code == 255 && strings.Contains(text, "Permission denied"):
		return fmt.Sprintf("ssh needs a password or a key for %s: add your key to its authorized_keys (ssh-copy-id %s), or load it in ssh-agent", dest, dest)
	case strings.Contains(strings.ToLower(text), "no tickmux server runs") || strings.Contains(text, "\nnot_running"):
		return fmt.Sprintf("no tickmux server runs on %s: start one there with `tickmux`", name)
	case strings.Contains(text, `unknown command "proxy"`) || code == 2 && strings.Contains(text, "proxy") && strings.Contains(strings.ToLower(text), "usage"):
		return fmt.Sprintf("the tickmux on %s is too old to be reached this way: update it", dest)
	case code == 127 || strings.Contains(text, "command not found"):
		return fmt.Sprintf("tickmux is not installed on %s (or not on its PATH for non-interactive ssh): set tickmux = \"/path\" in its [[hosts]] entry", dest)
	}
	return ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 16 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
