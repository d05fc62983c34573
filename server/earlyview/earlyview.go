// Package earlyview is the view's client (`tickmux`, `tickmux attach`) in a package light enough
// to run in package init, before the terminal, UI, MCP and JSON schema libraries initialise: in
// the common case a view process never initialises them at all. It finds the socket, checks who
// listens, starts a server when none runs (`tickmux` only), asks to attach, hands the terminal
// over, then relays signals and waits for the end (View) and exits.
//
// It does only what it is sure of: a flag it does not know, no terminal, a TERM that would need
// escaping, a socket that is not there or not the user's, an answer or a line from the server
// other than those it expects, any error: it stops there, and the normal path (server.Attach,
// after the package inits) does the whole or the rest, from what this did (Take), as it would
// have anyway. So the protocol has one reader, the normal path's JSON decoder; this package
// writes one request (attachRequest) and recognises one answer (AttachAnswer) and the common
// view/left lines (LightDecode), and the server's tests check that they are what it writes and
// reads; the server reads that one request without its JSON decoder (ReadAttachRequest). The
// wait (View) is the same code on both paths.
//
// Like host/guardian (which it imports) it imports only os, os/signal, io, path, strconv, syscall,
// time and what they need, not unicode or reflect, so its init runs before every package that imports them (Go
// initialises packages dependencies first, then in the order of their import paths, and
// "tickmux/..." sorts before "unicode"). TestEarlyViewBeforeHeavyInits keeps it so.
package earlyview

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"tickmux/host/guardian"
)

// The view protocol's names that this package and the server share.
const (
	MethodAttach = "view/attach"
	// AttachAnswer is the line (without its newline) the server answers an attach with when it
	// wants the terminal's descriptor next.
	AttachAnswer = `{"id":1,"result":{"send_fd":true}}`
)

// Signals are the signals a view relays to the server (SIGWINCH, SIGCONT, SIGTSTP) or acts on.
var Signals = []os.Signal{syscall.SIGWINCH, syscall.SIGCONT, syscall.SIGTSTP, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT}

// EnvTestAsMain makes a test binary (NAME.test) play tickmux: only then does the early start
// run in one (main_test.go sets it for the end-to-end tests).
const EnvTestAsMain = "TICKMUX_TEST_AS_MAIN"

// Handover is what the early start did, for the normal path to go on from.
type Handover struct {
	Socket string // the socket it used
	// Started: it started a server (tickmux, none running); StartErr is what the server
	// reported (nil: it listens).
	Started  bool
	StartErr error
	// Conn is the connection to the server, its peer checked and the attach request sent, the
	// terminal not yet; nil when it made none. Read is what it read of the answer.
	Conn *os.File
	Read []byte
	// View is the view once the terminal went to the server: a line came that LightDecode
	// does not read (View.Wait goes on from it).
	View *View
}

var handover *Handover

func init() {
	if os.Getenv(guardian.Env) == "1" || (isTestBinary(os.Args[0]) && os.Getenv(EnvTestAsMain) != "1") {
		return
	}
	handover = start(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if v := handover.view(); v != nil {
		if code, ok := v.Wait(LightDecode); ok {
			os.Exit(code)
		}
	}
}

// Take returns what the early start did, once; nil when it did nothing.
func Take() *Handover {
	h := handover
	handover = nil
	return h
}

func (h *Handover) view() *View {
	if h == nil {
		return nil
	}
	return h.View
}

// StartedOne reports whether the early start started a server (which read the config). Nil: no.
func (h *Handover) StartedOne() bool { return h != nil && h.Started }

// Close gives up the connection (the normal path did not use it).
func (h *Handover) Close() {
	if h != nil && h.Conn != nil {
		h.Conn.Close()
		h.Conn = nil
	}
}

func isTestBinary(argv0 string) bool {
	return len(argv0) > len(".test") && argv0[len(argv0)-len(".test"):] == ".test"
}

// tellWait bounds a notification's write (the server may be stopped).
const tellWait = time.Second

// start is the early start of the command line args on the terminal in, out.
func start(args []string, in, out, errw *os.File) *Handover {
	v, ok := parseView(args)
	if !ok {
		return nil // another command: its files are left as they are (Fd would make them blocking)
	}
	inFd, outFd := int(in.Fd()), int(out.Fd())
	if !IsTerminal(inFd) || !IsTerminal(outFd) {
		return nil
	}
	request, ok := attachRequest(os.Getenv("TERM"), os.Getenv("COLORTERM"))
	if !ok {
		return nil
	}
	if !WaitForeground(inFd) {
		return nil // the normal path says why
	}
	h := &Handover{Socket: SocketPath(v.socket)}
	fd, err := dial(h.Socket)
	if errors.Is(err, errNoServer) && !v.attach {
		h.Started = true
		cols, rows := WindowSize(outFd)
		s, serr := StartServer(ServerArgs(h.Socket, v.config, v.log, cols, rows, false, nil))
		if serr == nil {
			serr = s.Wait()
		}
		if serr != nil {
			h.StartErr = serr
			return h
		}
		fd, err = dial(h.Socket)
	}
	if err != nil {
		return h
	}
	if writeAll(fd, request) != nil {
		syscall.Close(fd)
		return h
	}
	h.Conn = os.NewFile(uintptr(fd), "tickmux socket")
	// While the server answers: the terminal's settings.
	saved, err := GetTermState(inFd)
	if err != nil {
		return h
	}
	h.Read = readLine(fd)
	if string(h.Read) != AttachAnswer+"\n" {
		return h
	}
	cols, rows := WindowSize(outFd)
	if sendFD(fd, inFd) != nil {
		return h
	}
	// The server draws now; this process relays and waits.
	conn := h.Conn
	h.Conn, h.Read = nil, nil
	tv := syscall.NsecToTimeval(int64(tellWait))
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	tell := func(method string) { writeAll(fd, Notification(method)) }
	// The signals a view relays, only now: the process's first signal.Notify starts the
	// runtime's signal goroutines and about four threads (2-4 ms on a 2-core VM, more under
	// load), which the server's answer waited for when they came before; now the server draws
	// meanwhile. A resize in between is caught up with here (a stop signal in between ends
	// this process as it would have before the Notify: the server then detaches the view and
	// restores the terminal itself).
	sigs := make(chan os.Signal, 4)
	notifySignals(sigs)
	if c, r := WindowSize(outFd); c != cols || r != rows {
		tell(NotifyResize)
	}
	h.View = NewView(h.Socket, inFd, out, errw, saved, sigs, conn, tell, func() { conn.Close() })
	return h
}

// notifySignals relays Signals to c (signal.Notify); a test sees when it is called.
var notifySignals = func(c chan os.Signal) { signal.Notify(c, Signals...) }

// view is a command line the early start handles: `tickmux` or `tickmux attach`, with
// --socket, --log and --config (one dash or two, "=VALUE" or the next argument, before or after
// attach), as parseTUIFlags and hoistCommand read them; ok is false for anything else.
type view struct {
	attach              bool
	socket, log, config string
}

func parseView(args []string) (v view, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "attach" && !v.attach {
			v.attach = true
			continue
		}
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return v, false
		}
		name := a[1:]
		if name[0] == '-' {
			name = name[1:]
		}
		value, has := "", false
		for j := 0; j < len(name); j++ {
			if name[j] == '=' {
				name, value, has = name[:j], name[j+1:], true
				break
			}
		}
		if !has {
			if i+1 >= len(args) {
				return v, false
			}
			i++
			value = args[i]
		}
		if value == "" {
			return v, false
		}
		switch name {
		case "socket":
			v.socket = value
		case "log":
			v.log = value
		case "config":
			if _, err := os.Stat(value); err != nil {
				return v, false // the normal path says that the file named is missing
			}
			v.config = value
		default:
			return v, false
		}
	}
	return v, true
}

// attachRequest is the attach request for a terminal of type term, as one line; ok is false when
// term or colorterm holds a character JSON would have to escape (the normal path sends those).
func attachRequest(term, colorterm string) (line []byte, ok bool) {
	if term == "" || !plain(term) || !plain(colorterm) {
		return nil, false
	}
	s := attachHead + `{"term":"` + term + `"`
	if colorterm != "" {
		s += `,"colorterm":"` + colorterm + `"`
	}
	return []byte(s + `,"early":true}}` + "\n"), true
}

// attachHead is how an attach request of the early start begins, up to its params.
const attachHead = `{"id":1,"method":"` + MethodAttach + `","params":`

// plain: s holds only printable ASCII that JSON writes as it is, without escapes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// ReadAttachRequest recognises a line attachRequest writes (without its newline, or with it):
// params are its params, as ReadAttachParams reads them. ok is false for any other line (the
// JSON decoder reads those). The server reads the early start's requests so, without the JSON
// decoder: after the server has been idle, the decoder's code and its type caches cost the
// first attach 0.5-3 ms of page faults (traced with uprobes).
func ReadAttachRequest(line []byte) (params []byte, ok bool) {
	s := string(line)
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if len(s) < len(attachHead)+1 || s[:len(attachHead)] != attachHead || s[len(s)-1] != '}' {
		return nil, false
	}
	params = line[len(attachHead) : len(s)-1]
	if _, _, ok := ReadAttachParams(params); !ok {
		return nil, false
	}
	return params, true
}

// ReadAttachParams recognises the params attachRequest writes: the terminal's type and
// COLORTERM; ok is false for anything else.
func ReadAttachParams(params []byte) (term, colorterm string, ok bool) {
	s := string(params)
	field := func(name string) (string, bool) { // `"name":"value"` at the start of s
		head := `"` + name + `":"`
		if len(s) < len(head) || s[:len(head)] != head {
			return "", false
		}
		rest := s[len(head):]
		for i := 0; i < len(rest); i++ {
			if rest[i] == '"' {
				s = rest[i+1:]
				return rest[:i], plain(rest[:i])
			}
		}
		return "", false
	}
	if len(s) < 1 || s[0] != '{' {
		return "", "", false
	}
	s = s[1:]
	term, ok = field("term")
	if !ok || term == "" {
		return "", "", false
	}
	if len(s) > 0 && s[0] == ',' && len(s) > 13 && s[1:13] == `"colorterm":` {
		s = s[1:]
		if colorterm, ok = field("colorterm"); !ok || colorterm == "" {
			return "", "", false
		}
	}
	if s != `,"early":true}` {
		return "", "", false
	}
	return term, colorterm, true
}

var errNoServer = errors.New("no server listens on the socket")

// dial connects to the socket at path (errNoServer when nobody listens) and checks that the
// process listening runs as this user (the normal path checks the same, and says so when it does
// not). The socket is blocking, with the normal path's 2 s bound on the connect and the writes.
func dial(path string) (int, error) {
	fd, err := connect(path, 2*time.Second)
	if err != nil {
		return -1, err
	}
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil || int(cred.Uid) != os.Getuid() {
		syscall.Close(fd)
		return -1, errors.New("the peer is not this user")
	}
	return fd, nil
}

// connect connects a blocking socket to path, within d.
func connect(path string, d time.Duration) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	tv := syscall.NsecToTimeval(int64(d))
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		if err == syscall.ENOENT || err == syscall.ECONNREFUSED {
			return -1, errNoServer
		}
		return -1, err
	}
	return fd, nil
}

// Running reports whether a server answers on the socket at path.
func Running(path string) bool {
	fd, err := connect(path, time.Second)
	if err != nil {
		return false
	}
	syscall.Close(fd)
	return true
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// readLine reads up to and with the first newline, or what came before an error or the end;
// never more than 64 KiB (the normal path reads the rest).
func readLine(fd int) []byte {
	var got []byte
	buf := make([]byte, 512)
	for len(got) < 64<<10 {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			break
		}
		got = append(got, buf[:n]...)
		if got[len(got)-1] == '\n' {
			break
		}
	}
	return got
}

// sendFD passes descriptor tty over the socket, with one byte (the normal path does the same).
func sendFD(fd, tty int) error {
	for {
		err := syscall.Sendmsg(fd, []byte{0}, syscall.UnixRights(tty), nil, 0)
		if err != syscall.EINTR {
			return err
		}
	}
}
