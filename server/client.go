package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"tickmux/agent"
	"tickmux/host/guardian"
	"tickmux/server/earlyview"
)

// ErrNoServer: nobody answers on the socket.
var ErrNoServer = errors.New("no tickmux server is running")

// Running reports whether a server answers on the socket at path.
func Running(path string) bool { return earlyview.Running(path) }

// dial connects to the server and checks that it runs as this user (the socket is the user's
// alone, on both ends).
func dial(path string) (*net.UnixConn, error) {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", ErrNoServer, path)
		}
		return nil, fmt.Errorf("cannot connect to tickmux on %s: %w", path, err)
	}
	nc := c.(*net.UnixConn)
	raw, err := nc.SyscallConn()
	var cred *unix.Ucred
	if err == nil {
		_ = raw.Control(func(fd uintptr) { cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
	}
	if err != nil || cred == nil || int(cred.Uid) != os.Getuid() {
		nc.Close()
		return nil, fmt.Errorf("the tickmux on %s does not run as you; refusing to hand it the terminal", path)
	}
	return nc, nil
}

// request sends one request and reads its answer.
func request(nc *net.UnixConn, rd *bufio.Reader, method string, params any, result any) error {
	raw, _ := json.Marshal(params)
	if err := json.NewEncoder(nc).Encode(agent.Request{ID: 1, Method: method, Params: raw}); err != nil {
		return err
	}
	return answer(rd, result)
}

// answer reads the answer to the request sent: its result into result, or its error.
func answer(rd *bufio.Reader, result any) error {
	line, err := rd.ReadBytes('\n')
	if err != nil {
		return errors.New("the server hung up")
	}
	var m agent.Message
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("a bad answer from the server: %w", err)
	}
	if m.Error != nil {
		if m.Error.Reason == agent.ReasonBadRequest && strings.HasPrefix(m.Error.Message, "unknown method") {
			return errors.New("this tickmux has no views (it was started with tickmux serve)")
		}
		return errors.New(m.Error.Message)
	}
	if result != nil {
		return json.Unmarshal(m.Result, result)
	}
	return nil
}

// KillServer ends the server on path and every program in it; it returns once the server has
// let go of the socket and every program is being ended (the server's answer), or once a server
// that did not answer has exited.
func KillServer(path string) error {
	nc, err := dial(path)
	if err != nil {
		return err
	}
	defer nc.Close()
	pid := peerPID(nc)
	// A server that cannot answer (stopped, or swamped) is ended by signal: the socket's peer
	// credentials name its process, which dial has checked runs as this user.
	_ = nc.SetDeadline(time.Now().Add(killAnswer))
	asked := request(nc, bufio.NewReader(nc), MethodKill, struct{}{}, nil)
	if asked == nil {
		return nil
	}
	if pid <= 0 {
		return asked
	}
	if stopped(path, pid, killStop) {
		return nil
	}
	if pid <= 0 {
		return fmt.Errorf("the server did not stop within %v", killStop)
	}
	// SIGTERM: the server's signal deadline (hardstop.go) ends it within 2 s, its guardian
	// ends the panes. SIGKILL if even that did not happen; the guardian still ends the panes.
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if stopped(path, pid, killStop) {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	if stopped(path, pid, killStop) {
		return nil
	}
	return fmt.Errorf("the server (pid %d) did not end, even after SIGKILL", pid)
}

// How long kill-server waits for an answer, then for the server to end at each step.
var (
	killAnswer = 5 * time.Second
	killStop   = 3 * time.Second
)

// peerPID is the pid of the process that listens at the other end of nc (SO_PEERCRED), 0 if
// unknown.
func peerPID(nc *net.UnixConn) int {
	raw, err := nc.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// stopped waits up to d for the server to end: its process gone when pid is known, else its
// socket no longer answering.
func stopped(path string, pid int, d time.Duration) bool {
	if pid > 0 && exitedWithin(pid, d) {
		return true
	}
	deadline := time.Now().Add(d)
	for {
		if pid > 0 {
			if guardian.Ended(pid) {
				return true
			}
		} else if !Running(path) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Attach shows the server on path in this terminal until the view detaches or the server
// ends. open, when not empty, is opened first. Whatever happens, the terminal is restored and
// any message is printed on the normal screen. It returns the exit code. early is what the view's
// early start did (earlyview.Take; nil: nothing): Attach goes on from there.
func Attach(path string, in, out *os.File, errw io.Writer, p AttachParams, early *earlyview.Handover) int {
	if early != nil && early.View != nil {
		code, _ := early.View.Wait(decodeLine) // it knows every line
		early.View.Close()
		return code
	}
	fd := int(in.Fd())
	if !term.IsTerminal(fd) || !term.IsTerminal(int(out.Fd())) {
		early.Close()
		fmt.Fprintln(errw, "tickmux: attaching needs a terminal (stdin and stdout must be a TTY)")
		return 2
	}
	saved, err := earlyview.GetTermState(fd)
	if err != nil {
		early.Close()
		fmt.Fprintf(errw, "tickmux: %v\n", err)
		return 1
	}
	if early == nil || early.Conn == nil {
		if !earlyview.WaitForeground(fd) { // only the terminal's foreground job hands it over
			early.Close()
			fmt.Fprintln(errw, "tickmux: "+earlyview.ErrBackground)
			return 1
		}
	}
	nc, rd, err := resume(early)
	if err == nil && nc == nil {
		if nc, err = dial(path); err == nil {
			rd = bufio.NewReader(nc)
			err = request(nc, rd, MethodAttach, p, nil)
		}
	} else if err == nil {
		err = answer(rd, nil) // the early start sent the request
	}
	if err != nil {
		if nc != nil {
			nc.Close()
		}
		fmt.Fprintf(errw, "tickmux: %v\n", err)
		return 1
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, earlyview.Signals...)
	if _, _, err := nc.WriteMsgUnix([]byte{0}, unix.UnixRights(fd), nil); err != nil {
		signal.Stop(sigs)
		nc.Close()
		fmt.Fprintf(errw, "tickmux: cannot pass the terminal to the server: %v\n", err)
		return 1
	}
	// From here the server draws on the terminal; this process only relays what the terminal
	// tells it alone, and waits.
	tell := func(method string) {
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = nc.Write(earlyview.Notification(method))
	}
	v := earlyview.NewView(path, fd, out, errw, saved, sigs, rd, tell, func() { nc.Close() })
	defer v.Close()
	code, _ := v.Wait(decodeLine)
	return code
}

// decodeLine reads a line from the server with the protocol's own types: view/left, or a line
// to ignore.
func decodeLine(line []byte) (*earlyview.Left, bool) {
	var m agent.Message
	if json.Unmarshal(line, &m) != nil {
		return nil, true
	}
	if m.Method == notifySuspend {
		return &earlyview.Left{Suspend: true}, true
	}
	if m.Method != notifyLeft {
		return nil, true
	}
	var lp LeftParams
	_ = json.Unmarshal(m.Params, &lp)
	return &earlyview.Left{Reason: lp.Reason, Exited: lp.Exited, Failed: lp.Failed}, true
}

// EnvReady names the descriptor a starting server reports on: "ok", or the error.
const EnvReady = earlyview.EnvReady

// Start runs `self server ARGS...` in the background as its own session (no controlling
// terminal, stdio on /dev/null) and returns once it reports that it listens, or why it could
// not start.
func Start(args []string) error {
	s, err := earlyview.StartServer(args)
	if err != nil {
		return err
	}
	return s.Wait()
}

// resume takes over the connection the early start made and sent the attach request on (the
// terminal not yet), with a reader that has what it read of the answer first; nc is nil when it
// made none.
func resume(early *earlyview.Handover) (nc *net.UnixConn, rd *bufio.Reader, err error) {
	if early == nil || early.Conn == nil {
		return nil, nil, nil
	}
	defer early.Close()
	c, err := net.FileConn(early.Conn)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot connect to tickmux on %s: %w", early.Socket, err)
	}
	nc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, nil, fmt.Errorf("cannot connect to tickmux on %s: not a Unix socket", early.Socket)
	}
	return nc, bufio.NewReader(io.MultiReader(bytes.NewReader(early.Read), nc)), nil
}

// exitedWithin waits up to d for process pid to exit, told by the kernel (a pidfd becomes
// readable when the process exits) rather than found by polling: kill-server returned up to
// 20 ms after the server had gone. False when it did not exit or pidfds are not to be had.
func exitedWithin(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH) // gone already
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}
