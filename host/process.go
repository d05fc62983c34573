package host

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"tickmux/host/guardian"
	"tickmux/internal/freelist"
	"tickmux/tick/wire"
	"tickmux/vt"
)

// Default view size of a new PTY (H-S2).
const (
	DefaultCols = 120
	DefaultRows = 30
)

// TerminateGrace is how long a process group has after SIGTERM before SIGKILL (H-X1).
const TerminateGrace = guardian.TerminateGrace

// EnvPane names the pane of a plain program (shell:N). Ticks get wire.EnvInstanceID instead, so a
// Tick started by hand inside a shell pane does not believe it is hosted.
const EnvPane = "TICKMUX_PANE"

// LaunchSpec says what to run and how (H-S1).
type LaunchSpec struct {
	// Argv is the command as the person or agent gave it; Argv[0] is resolved to an absolute path.
	Argv []string
	// Dir is the working directory; "" means tickmux's own.
	Dir string
	// Env holds extra KEY=VALUE entries on top of the inherited environment.
	Env []string
	// Protocol is true for a Tick: stdin and stdout are pipes carrying the protocol and stderr is
	// the PTY. False for a plain program, which gets the PTY on all three.
	Protocol bool
	// InstanceID is the id the instance will carry; it reaches the program in its environment.
	InstanceID string
	// Cols and Rows are the initial PTY size; zero means 120x30.
	Cols, Rows int
	// Scrollback is how many lines the terminal keeps once they scroll off: 0 means
	// vt.DefaultScrollback, a negative number none.
	Scrollback int
	// Sandbox, when set, runs the program under bubblewrap (sandbox.go); Argv stays as given.
	Sandbox *Sandbox
	// Preface is written to the terminal before anything of the program's: a restored pane's
	// scrollback. The caller made it safe (text and line ends only).
	Preface []byte
	// Remote, when set, takes the input and the sizes meant for the program (remotepane.go): a
	// pane of another host, whose screen is written to the terminal by its watcher.
	Remote RemoteIO
}

// Process is a program running on its own PTY, the leader of its own session and process group.
//
// Goroutines: Launch starts one, owned by the Process: the PTY reader feeds the terminal until the
// PTY reports end of output (every slave holder gone, or Close). Once the leader has exited, the
// exit loop (reaper.go) starts the one that reaps it, closes Exited and runs the WhenExited
// function. An input writer runs only while input waits for a program that does not read it as
// fast as it comes (Input starts it), and ends once the queue is empty.
type Process struct {
	spec LaunchSpec
	path string // resolved argv[0]
	cmd  *exec.Cmd
	pid  int

	master *os.File       // PTY master: output to the terminal, keystrokes in
	stdin  io.WriteCloser // protocol requests (Ticks only)
	stdout io.ReadCloser  // protocol messages (Ticks only)
	term   *vt.Terminal

	exited     chan struct{} // closed once the leader has been reaped
	told       chan struct{} // closed once terminate has sent its first signal (or found the group gone)
	outputDone chan struct{} // closed once the PTY reader has stopped
	done       chan struct{} // closed by Close
	state      *os.ProcessState

	inMu      sync.Mutex
	inQueue   [][]byte
	inBytes   int
	inWriting bool            // the writer runs: input goes after what it has yet to write
	inClosed  bool            // Close began: no writer starts any more
	inWG      sync.WaitGroup  // the writer, while it runs
	inRaw     syscall.RawConn // the master, for Input's write without waiting and the reader
	pastes    int             // pastes under way (paste.go): Input holds what others type
	inHeld    [][]byte        // input typed during a paste, in after it
	heldBytes int             // bytes in inHeld (counted in inBytes too)
	inRoom    chan struct{}   // poked when the writer wrote a piece (a paste waits on it)
	corked    bool            // Cork: Input holds what it is given until Uncork
	cork      []byte          // what Input holds, in order
	inWrites  int             // writes Input made to the terminal itself
	rd        ptyRead         // the reader's state

	exitMu sync.Mutex
	onExit func() // WhenExited's, until reap takes it
	reaped bool   // reap has taken onExit: WhenExited runs its function itself

	sizeMu     sync.Mutex
	cols, rows int
	// While a watcher from another host shows the pane (remotepane.go), its terminal keeps the
	// watcher's size (over > 0) whatever Resize asks; want is what Resize asked last.
	overCols, overRows int
	wantCols, wantRows int

	guardMu   sync.Mutex
	guardErr  error       // why no guardian watches the group now; nil when one does
	guardHook func(error) // run at each change of guardErr (whenGuardChanges)

	// ForegroundName's /proc/PID/comm, open for the foreground process it was last asked for.
	nameMu   sync.Mutex
	namePid  int
	nameFile *os.File
	nameBuf  [64]byte // a comm is at most 16 bytes

	stopOnce  sync.Once
	closeOnce sync.Once
}

// maxQueuedInput bounds keystrokes waiting for a program that does not read its terminal.
const maxQueuedInput = 1 << 20

// ErrInputFull is returned by Input when the program has not read 1 MiB of earlier input.
var ErrInputFull = errors.New("the program is not reading its terminal; input dropped")

// PrestartGuardian starts the guardian that Launch registers each process group with, on a
// goroutine of its own, ahead of the first Launch (which waits for it if it is not yet started).
// The tickmux server calls it as it starts: the guardian's start then runs beside the server's
// set-up, not between the first pane's PTY and its program's start.
func PrestartGuardian() {
	go processGuardian() // owner: none; returns once the guardian is started (or could not be)
}

// Launch starts the program described by spec on a new PTY (H-T1, H-S1, H-S2).
func Launch(spec LaunchSpec) (*Process, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, errors.New("cannot start: no command given")
	}
	dir, err := resolveDir(spec.Dir)
	if err != nil {
		return nil, err
	}
	path, err := resolveCommand(spec.Argv[0], dir)
	if err != nil {
		return nil, err
	}
	var bwrap string
	if spec.Sandbox != nil {
		// Never unsandboxed instead: where bwrap cannot make the sandbox, nothing starts.
		if bwrap, err = SandboxAvailable(); err != nil {
			return nil, fmt.Errorf("cannot start %q: %w", spec.Argv[0], err)
		}
	}
	if spec.Cols <= 0 || spec.Rows <= 0 {
		spec.Cols, spec.Rows = DefaultCols, DefaultRows
	}
	master, slave, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("cannot start %q: cannot open a PTY: %w", spec.Argv[0], err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(spec.Cols), Rows: uint16(spec.Rows)}); err != nil {
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("cannot start %q: cannot size the PTY: %w", spec.Argv[0], err)
	}
	if master, err = pollable(master); err != nil {
		slave.Close()
		return nil, fmt.Errorf("cannot start %q: %w", spec.Argv[0], err)
	}
	raw, err := master.SyscallConn()
	if err != nil {
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("cannot start %q: cannot use the PTY: %w", spec.Argv[0], err)
	}

	p := &Process{
		spec:       spec,
		path:       path,
		master:     master,
		term:       vt.NewWithOptions(spec.Cols, spec.Rows, vt.Options{Reply: master, Scrollback: spec.Scrollback}),
		exited:     make(chan struct{}),
		told:       make(chan struct{}),
		outputDone: make(chan struct{}),
		done:       make(chan struct{}),
		inRaw:      raw,
		cols:       spec.Cols,
		rows:       spec.Rows,
	}

	argv := append([]string{path}, spec.Argv[1:]...)
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: dir, Env: buildEnv(spec)}
	if spec.Sandbox != nil {
		cmd.Path, cmd.Args = bwrap, sandboxArgv(planSandbox(spec.Sandbox, bwrap, dir, argv))
	}
	// The child leads a new session whose controlling terminal is the PTY; it is then in the
	// terminal's foreground process group. Ctty is a descriptor number in the child.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	guard := processGuardian() // ends the group as a normal close would if tickmux is killed
	if guard == nil {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL // no guardian: at least nothing outlives us
	}

	// The child's ends, closed in the parent once it has started.
	var childEnds []*os.File
	if spec.Protocol {
		inR, inW, err := os.Pipe()
		if err != nil {
			master.Close()
			slave.Close()
			return nil, fmt.Errorf("cannot start %q: %w", spec.Argv[0], err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			master.Close()
			slave.Close()
			inR.Close()
			inW.Close()
			return nil, fmt.Errorf("cannot start %q: %w", spec.Argv[0], err)
		}
		// Plain *os.File ends: os/exec copies nothing and Wait never closes our stdout end
		// under the reader, so the last lines a Tick writes before exiting are not lost.
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, slave
		cmd.SysProcAttr.Ctty = 2
		p.stdin, p.stdout = inW, outR
		childEnds = []*os.File{inR, outW, slave}
	} else {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr.Ctty = 0
		childEnds = []*os.File{slave}
	}

	err = startTracked(cmd)
	for _, f := range childEnds {
		f.Close()
	}
	if err != nil {
		master.Close()
		if p.stdin != nil {
			p.stdin.Close()
			p.stdout.Close()
		}
		return nil, fmt.Errorf("cannot start %q: %w", spec.Argv[0], err)
	}
	p.cmd = cmd
	p.pid = cmd.Process.Pid
	if guard != nil {
		if err := guard.Watch(p.pid, !spec.Protocol, master, p); err != nil {
			p.setGuardError(err)
		}
	} else {
		p.setGuardError(fmt.Errorf("no guardian runs (%v): if tickmux is killed, this program gets SIGKILL at once and its own children may outlive it", processGuardianErr))
	}

	p.rd.fn = p.rd.read
	if len(spec.Preface) > 0 {
		_, _ = p.term.Write(spec.Preface) // before the reader starts: the program's output follows it
	}
	go p.readOutput() // owner: p; exits when the PTY reports end of output or Close closes the master
	awaitExit(p)
	return p, nil
}

func resolveDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot start: cannot find the working directory: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("cannot start in %q: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("cannot start in %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("cannot start in %q: not a directory", dir)
	}
	return abs, nil
}

// resolveCommand finds argv[0]: a name with a slash is relative to dir, a bare name is looked up
// in PATH. The result is absolute (H-S1).
func resolveCommand(name, dir string) (string, error) {
	var path string
	if strings.Contains(name, "/") {
		path = name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("cannot start %q: %w", name, err)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("cannot start %q: not an executable file", name)
		}
	} else {
		found, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("cannot start %q: executable not found in PATH", name)
		}
		path = found
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("cannot start %q: %w", name, err)
	}
	return abs, nil
}

// buildEnv is the inherited environment with the host's own names set (H-S1). Inherited
// TICKLOOP_* names are dropped (they belong to whoever hosts tickmux), and so are LINES and
// COLUMNS, which would contradict the PTY's size.
func buildEnv(spec LaunchSpec) []string {
	drop := func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TERM", "COLORTERM", "LINES", "COLUMNS", EnvPane:
			return true
		}
		return strings.HasPrefix(name, "TICKLOOP_")
	}
	var env []string
	for _, kv := range os.Environ() {
		if !drop(kv) {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM=xterm-256color", "COLORTERM=truecolor")
	if spec.InstanceID != "" {
		if spec.Protocol {
			env = append(env, wire.EnvInstanceID+"="+spec.InstanceID)
		} else {
			env = append(env, EnvPane+"="+spec.InstanceID)
		}
	}
	return append(env, spec.Env...)
}

// readOutput is the one reader of the PTY master: everything the program draws goes to the
// terminal, whether or not a view shows it, so the program never blocks on its terminal.
func (p *Process) readOutput() {
	defer close(p.outputDone)
	for {
		buf, n, err := p.readMaster()
		if n > 0 {
			p.term.Write(buf[:n])
			runtime.Gosched() // a flooding program must not starve the key path of a P
		}
		if buf != nil {
			readBufs.Put(buf)
		}
		if err != nil {
			// EIO once every slave holder is gone (Linux), or the master was closed.
			return
		}
	}
}

// readBufs holds the PTY readers' buffers between reads. A reader takes one only once its PTY
// has output and gives it back after the read, so an idle pane holds none (a buffer each was
// 16 KB of every pane's heap). Not a sync.Pool: that one is emptied at each collection, and a
// fresh buffer costs page faults on the key echo's path.
var readBufs = freelist.New[ptyBuf](maxFreeReadBufs)

// maxFreeReadBufs is how many buffers wait for readers; more are made while as many PTYs are
// read at once (each is held across a read and its terminal's write).
const maxFreeReadBufs = 4

// ptyBuf is one read of a PTY: a read returns far less (4 KB at most on Linux).
type ptyBuf [16 << 10]byte

func getReadBuf() *ptyBuf {
	if b := readBufs.Get(); b != nil {
		return b
	}
	return new(ptyBuf)
}

// readMaster waits in the runtime's poller until the master has output, then reads it into a
// buffer from readBufs (nil when nothing was read; the caller puts it back). n is 0 and err
// io.EOF at end of output.
func (p *Process) readMaster() (buf *ptyBuf, n int, err error) {
	r := &p.rd
	werr := p.inRaw.Read(r.fn)
	buf, n, err = r.buf, r.n, r.err
	r.buf, r.n, r.err = nil, 0, nil
	switch {
	case werr != nil: // the master was closed
		err = werr
	case err != nil:
		n = 0
	case n == 0:
		err = io.EOF
	}
	if n == 0 && buf != nil {
		readBufs.Put(buf)
		buf = nil
	}
	return buf, n, err
}

// ptyRead is the PTY reader's state for the function it gives the master's RawConn, made once
// so that a read allocates nothing.
type ptyRead struct {
	fn  func(fd uintptr) bool
	buf *ptyBuf
	n   int
	err error
}

// read reads what the master has, or returns false to wait in the poller holding no buffer.
func (r *ptyRead) read(fd uintptr) bool {
	if r.buf == nil {
		r.buf = getReadBuf()
	}
	for {
		r.n, r.err = unix.Read(int(fd), r.buf[:])
		if r.err != unix.EINTR {
			break
		}
	}
	if r.err == unix.EAGAIN {
		readBufs.Put(r.buf)
		r.buf, r.n, r.err = nil, 0, nil
		return false
	}
	return true
}

// reap reaps the leader, which has exited (the exit loop saw it: reaper.go, awaitExit), closes
// Exited and runs the WhenExited function.
func (p *Process) reap() {
	_ = p.cmd.Wait()
	untrack(p.pid)
	if g := processGuardian(); g != nil && !groupAlive(p.pid) {
		if err := g.Forget(p.pid); err != nil { // the group is gone; its id may be reused
			logGuardian("%v", err)
		}
	}
	p.state = p.cmd.ProcessState
	close(p.exited)
	p.exitMu.Lock()
	f := p.onExit
	p.onExit, p.reaped = nil, true
	p.exitMu.Unlock()
	if f != nil {
		f()
	}
}

// GuardError says why no guardian watches the program's process group, so that a kill -9 of
// tickmux would leave it running (or, with no guardian at all, kill it without the hangup a
// shell passes to its jobs); nil while a guardian watches it.
func (p *Process) GuardError() error {
	p.guardMu.Lock()
	defer p.guardMu.Unlock()
	return p.guardErr
}

// setGuardError records whether a guardian watches the group (err nil: one does) and runs the
// hook when that changed. A nil p does nothing (groups watched without a Process, in tests).
func (p *Process) setGuardError(err error) {
	if p == nil {
		return
	}
	p.guardMu.Lock()
	same := (p.guardErr == nil && err == nil) || (p.guardErr != nil && err != nil && p.guardErr.Error() == err.Error())
	p.guardErr = err
	hook := p.guardHook
	p.guardMu.Unlock()
	if !same && hook != nil {
		hook(err)
	}
}

// whenGuardChanges has f run at each later change of GuardError (it must not block), and returns
// the current one.
func (p *Process) whenGuardChanges(f func(error)) error {
	p.guardMu.Lock()
	defer p.guardMu.Unlock()
	p.guardHook = f
	return p.guardErr
}

// WhenExited runs f once the leader has been reaped (after Exited is closed), on the goroutine
// that reaped it, or on a goroutine of its own if it already was. One function per process; a later
// call replaces an earlier one that has not run. (The instance's watcher of the exit was a
// goroutine in every pane for the whole life of its program.)
func (p *Process) WhenExited(f func()) {
	p.exitMu.Lock()
	if !p.reaped {
		p.onExit = f
		p.exitMu.Unlock()
		return
	}
	p.exitMu.Unlock()
	go f() // owner: whoever gave f; ends when f returns
}

// writeInput delivers queued input to the PTY in order, then ends; a program that stops reading
// blocks only this goroutine, never the caller of Input. Input starts it when input has to wait
// (a goroutine in every pane for the whole life of its program, for input that almost always
// goes in at once, cost an idle server a stack a pane).
func (p *Process) writeInput() {
	defer p.inWG.Done()
	for {
		p.inMu.Lock()
		if len(p.inQueue) == 0 {
			p.inWriting = false
			p.inQueue = nil
			p.inMu.Unlock()
			return
		}
		chunk := p.inQueue[0]
		p.inQueue[0] = nil
		p.inQueue = p.inQueue[1:]
		p.inBytes -= len(chunk)
		room := p.inRoom
		p.inMu.Unlock()
		if _, err := p.master.Write(chunk); err != nil { // the terminal is gone (or closed): so is the rest
			p.inMu.Lock()
			p.inQueue, p.inBytes, p.inWriting = nil, p.heldBytes, false
			p.inMu.Unlock()
			return
		}
		if room != nil {
			select { // a paste waiting for room may go on
			case room <- struct{}{}:
			default:
			}
		}
	}
}

// Input gives bytes to the program's terminal, as if typed. It never blocks: when nothing typed
// before is still waiting, the terminal takes what it can at once (a typed key reaches the
// program without a hop to the writer: keys first), and the rest waits in order for the writer.
// Input after Close is dropped.
func (p *Process) Input(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	p.inMu.Lock()
	defer p.inMu.Unlock()
	if p.inClosed {
		return nil
	}
	if p.inBytes+len(p.cork)+len(b) > maxQueuedInput {
		return ErrInputFull
	}
	if p.corked {
		p.cork = append(p.cork, b...)
		return nil
	}
	p.inputLocked(b)
	return nil
}

// inputLocked is Input's, once b is to go. Called with inMu held.
func (p *Process) inputLocked(b []byte) {
	if p.pastes > 0 { // not inside a paste: after it
		p.inHeld = append(p.inHeld, append([]byte(nil), b...))
		p.inBytes += len(b)
		p.heldBytes += len(b)
		return
	}
	p.queueLocked(b)
}

// InputWrites is how many writes Input (and Uncork) made to the terminal itself, not counting
// the writer's: keys first's tests count them.
func (p *Process) InputWrites() int {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	return p.inWrites
}

// Cork holds what Input is given until Uncork, which lets it go in one write: keys read together
// from a view's terminal (typed fast, or pasted without paste marks) reach the program together,
// as tmux writes them, instead of a write each, each a wake-up of the program and maybe an echo
// (and a frame) of its own. A paste that begins uncorks first.
func (p *Process) Cork() {
	p.inMu.Lock()
	p.corked = true
	p.inMu.Unlock()
}

// Uncork ends Cork: what Input held goes to the terminal, as Input would send it.
func (p *Process) Uncork() {
	p.inMu.Lock()
	p.uncorkLocked()
	p.inMu.Unlock()
}

func (p *Process) uncorkLocked() {
	p.corked = false
	if len(p.cork) == 0 {
		return
	}
	if !p.inClosed {
		p.inputLocked(p.cork) // what is kept of it is copied
	}
	p.cork = p.cork[:0]
	if cap(p.cork) > 4<<10 {
		p.cork = nil
	}
}

// writeNow writes what the terminal takes of b without waiting, and returns how much that was.
// Called with inMu held. Not through the file's Write, which waits for a write in progress (a
// terminal reply waiting for room, say): the descriptor is only kept open meanwhile.
func (p *Process) writeNow(b []byte) int {
	n := 0
	p.inWrites++
	if p.spec.Remote != nil {
		p.spec.Remote.Input(b) // another host's pane: the input goes there, never waits here
		return len(b)
	}
	err := p.inRaw.Control(func(fd uintptr) {
		var werr error
		if n, werr = unix.Write(int(fd), b); werr != nil {
			n = 0 // EAGAIN (the terminal is full), or a terminal that went away: the writer sees it
		}
	})
	if err != nil {
		return 0
	}
	return n
}

// Resize sets the PTY size; the kernel sends SIGWINCH to the foreground group (H-S2).
func (p *Process) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 {
		return fmt.Errorf("invalid terminal size %dx%d", cols, rows)
	}
	p.sizeMu.Lock()
	defer p.sizeMu.Unlock()
	p.wantCols, p.wantRows = cols, rows
	if p.overCols > 0 {
		cols, rows = p.overCols, p.overRows // a watcher's size (remotepane.go)
	}
	if r := p.spec.Remote; r != nil {
		r.Resize(cols, rows)
	}
	return p.resizeLocked(cols, rows)
}

// resizeLocked sets the PTY size; called with sizeMu held.
func (p *Process) resizeLocked(cols, rows int) error {
	if cols == p.cols && rows == p.rows {
		return nil
	}
	p.term.Resize(cols, rows)
	if err := pty.Setsize(p.master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		return fmt.Errorf("cannot resize the terminal: %w", err)
	}
	p.cols, p.rows = cols, rows
	return nil
}

// Size is the PTY's current size.
func (p *Process) Size() (cols, rows int) {
	p.sizeMu.Lock()
	defer p.sizeMu.Unlock()
	return p.cols, p.rows
}

// Terminal is the emulated screen the program draws on.
func (p *Process) Terminal() *vt.Terminal { return p.term }

// Pid is the leader's process id, which is also its process group and session id.
func (p *Process) Pid() int { return p.pid }

// Path is argv[0] as resolved at launch.
func (p *Process) Path() string { return p.path }

// Stdin is the protocol request pipe (nil for a plain program).
func (p *Process) Stdin() io.Writer { return p.stdin }

// Stdout is the protocol message pipe (nil for a plain program).
func (p *Process) Stdout() io.Reader { return p.stdout }

// Exited is closed once the leader has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// OutputDone is closed once all of the program's terminal output has reached the terminal.
func (p *Process) OutputDone() <-chan struct{} { return p.outputDone }

// ExitCode is the leader's exit code, -1 if a signal ended it or it is still running.
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.state.ExitCode()
	default:
		return -1
	}
}

// ExitStatus describes how the leader ended ("exit status 3", "signal: killed"), or "" while it runs.
func (p *Process) ExitStatus() string {
	select {
	case <-p.exited:
		return p.state.String()
	default:
		return ""
	}
}

// CloseStdin closes the protocol request pipe: the Tick reads EOF.
func (p *Process) CloseStdin() error {
	if p.stdin == nil {
		return nil
	}
	return p.stdin.Close()
}

// Signal sends sig to the process group.
func (p *Process) Signal(sig syscall.Signal) error {
	return signalGroup(p.pid, sig)
}

// Terminate ends the program and everything left in its process group: SIGTERM, then SIGKILL
// after TerminateGrace, however the group behaves (H-X1). Processes that escaped the group are
// found by their instance tag (see reaper.go). It returns once the leader has been reaped.
func (p *Process) Terminate() {
	p.stopOnce.Do(p.terminate)
	<-p.exited
}

func (p *Process) terminate() {
	deadline := time.Now().Add(TerminateGrace)
	// A plain program gets what a closing terminal sends: interactive shells ignore SIGTERM, and
	// on SIGHUP they pass the hangup on to their jobs.
	first := syscall.SIGTERM
	if !p.spec.Protocol {
		first = syscall.SIGHUP
	}
	if signalGroup(p.pid, first) == nil {
		// A stopped group sees its signal only once it runs again, as a terminal's hangup
		// continues it: without this, a stopped leader waited out the grace for SIGKILL.
		_ = signalGroup(p.pid, syscall.SIGCONT)
		close(p.told)
		timer := time.NewTimer(TerminateGrace)
		select {
		case <-p.exited:
		case <-timer.C:
		}
		timer.Stop()
		// Members may outlive the leader; they get the rest of the grace, each waited on
		// through a pidfd (a 20 ms poll made a shell pane's end up to 20 ms late).
		waitGroupGone([]int{p.pid}, deadline)
	} else {
		close(p.told)
	}
	_ = signalGroup(p.pid, syscall.SIGKILL)
	if g := processGuardian(); g != nil {
		if err := g.Forget(p.pid); err != nil {
			logGuardian("%v", err)
		}
	}
	killStrays(p.spec.InstanceID)
}

// Close terminates the program if it still runs and releases the PTY and pipes. Safe to call
// more than once and from any goroutine; it returns when every goroutine of p has stopped.
func (p *Process) Close() {
	p.closeOnce.Do(func() {
		p.Terminate()
		close(p.done)
		p.inMu.Lock()
		p.inClosed = true
		p.inMu.Unlock()
		// Give the reader the last output, but do not wait on a grandchild that holds the slave.
		select {
		case <-p.outputDone:
		case <-time.After(100 * time.Millisecond):
		}
		p.master.Close()
		if p.stdin != nil {
			p.stdin.Close()
			p.stdout.Close()
		}
		p.nameMu.Lock()
		if p.nameFile != nil {
			p.nameFile.Close()
			p.nameFile = nil
		}
		p.nameMu.Unlock()
	})
	<-p.outputDone
	p.inWG.Wait()
}

// pollable returns the PTY master as a non-blocking file served by the runtime poller, and closes
// the one it was given. creack/pty's calls to Fd() leave the master in blocking mode; then a Read
// waits in the kernel, Close cannot interrupt it and waits for it instead, and the slave is never
// hung up: a daemon the program left holding the slave would make Close hang for ever. A
// descriptor that is already non-blocking when os.NewFile wraps it stays so, whatever calls Fd.
func pollable(master *os.File) (*os.File, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("cannot use the PTY: %w", err)
	}
	fd := -1
	cerr := rc.Control(func(f uintptr) { fd, err = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) })
	name := master.Name()
	master.Close()
	if cerr != nil || err != nil {
		return nil, fmt.Errorf("cannot use the PTY: %w", errors.Join(cerr, err))
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cannot use the PTY: %w", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return errors.New("no process group")
	}
	return syscall.Kill(-pgid, sig)
}

// groupAlive reports whether a member of the process group still runs (zombies do not count).
var groupAlive = guardian.GroupAlive

// waitGroupGone waits until no member of the process groups runs, or until deadline.
var waitGroupGone = guardian.WaitGroupsGone

// foreground is the process group leading the terminal's foreground (TIOCGPGRP on the master),
// else the program's own pid.
// ForegroundPID is the leader of the process group in the terminal's foreground now: the job the
// shell runs (an agent, say), or the program itself when nothing else runs.
func (p *Process) ForegroundPID() int { return p.foreground() }

func (p *Process) foreground() int {
	pid := p.pid
	if rc, err := p.master.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			if fg, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil && fg > 0 {
				pid = fg
			}
		})
	}
	return pid
}

// ForegroundName is the command name of what runs in the terminal's foreground now (the leader
// of the foreground process group, from tcgetpgrp on the PTY and /proc/PID/comm), as tmux's
// automatic-rename shows it; "" when it cannot be read. One ioctl and one small read: a pane's
// frame asks at every draw, a key's echo included, so the file stays open for the same process
// and is read again from its start (3-4 µs; opening it each time was 20-70 µs of the echo's
// path). An exec shows at once: the file names the process, whose name it changed. In a sandbox,
// bwrap's group is named for the program bwrap started.
func (p *Process) ForegroundName() string {
	pid := p.foreground()
	if pid == p.pid && p.spec.Sandbox != nil {
		// bwrap leads the pane's first process group, the program in it until a shell with job
		// control gives the terminal to a job: name the program, not bwrap.
		return filepath.Base(p.path)
	}
	p.nameMu.Lock()
	defer p.nameMu.Unlock()
	if pid != p.namePid || p.nameFile == nil {
		if p.nameFile != nil {
			p.nameFile.Close()
			p.nameFile = nil
		}
		select {
		case <-p.done: // closed: nothing more is opened
			return ""
		default:
		}
		f, err := openComm(pid)
		if err != nil {
			return ""
		}
		p.namePid, p.nameFile = pid, f
	}
	// io.EOF: shorter than the buffer; nothing read: the process is gone.
	n, _ := p.nameFile.ReadAt(p.nameBuf[:], 0)
	if n == 0 {
		p.nameFile.Close()
		p.nameFile = nil
		return ""
	}
	return strings.TrimSpace(string(p.nameBuf[:n]))
}

// openComm opens process pid's command name (a test counts the opens).
var openComm = func(pid int) (*os.File, error) { return os.Open("/proc/" + strconv.Itoa(pid) + "/comm") }

// ForegroundCwd is the working directory of what runs in the terminal's foreground now (a
// command started from a shell, or the shell itself), falling back to the leader's, then to the
// directory it was started in.
func (p *Process) ForegroundCwd() string {
	pid := p.foreground()
	for _, candidate := range []int{pid, p.pid} {
		if dir, err := os.Readlink("/proc/" + strconv.Itoa(candidate) + "/cwd"); err == nil {
			return dir
		}
	}
	return p.spec.Dir
}
