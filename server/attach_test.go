package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2/terminfo"
	"golang.org/x/sys/unix"

	"tickmux/agent"
	"tickmux/server/mirror"
)

// socketPair is two connected Unix sockets, the server's end and the view's.
func socketPair(t *testing.T) (srv, view *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socket")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	srv, view = conn(fds[0]), conn(fds[1])
	t.Cleanup(func() { srv.Close(); view.Close() })
	return srv, view
}

// The view/left and view/suspend lines the server writes are what the view reads.
func TestLeftLinesAreWhatTheViewReads(t *testing.T) {
	unix, view := socketPair(t)
	srv := &viewConn{UnixConn: unix}
	rd := bufio.NewReader(view)
	for _, lp := range []LeftParams{
		{Reason: "detached"},
		{Reason: mirror.ReasonExited, Exited: true},
		{Reason: `tickmux does not know the terminal TERM="x": not found`, Failed: true},
		{Reason: "a <b> & c détaché\ttab"},
		{Reason: ""},
	} {
		notify(srv, notifyLeft, lp)
		line, err := rd.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if got := decodeLine(line); got == nil || got.suspend || got.LeftParams != lp {
			t.Errorf("the view reads %q as %+v; want %+v", line, got, lp)
		}
	}
	sendLine(srv, notification(notifySuspend))
	if line, err := rd.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	} else if got := decodeLine(line); got == nil || !got.suspend {
		t.Errorf("the view reads %q as %+v; want a suspend", line, got)
	}
	for _, line := range []string{"not json\n", `{"method":"view/other"}` + "\n", `{"id":1,"result":{}}` + "\n"} {
		if got := decodeLine([]byte(line)); got != nil {
			t.Errorf("the view reads %q as %+v; want nothing", line, got)
		}
	}
}

// A view's notifications are requests the server reads (no id: notifications).
func TestNotificationsAreWhatTheServerReads(t *testing.T) {
	for _, m := range []string{notifyResize, notifyRedraw, notifyDetach} {
		line := notification(m)
		var req agent.Request
		if err := json.Unmarshal(line, &req); err != nil || req.Method != m || req.ID != 0 || req.Params != nil || line[len(line)-1] != '\n' {
			t.Errorf("the notification %q reads as %+v (%v)", line, req, err)
		}
	}
}

// The server looks the view's terminal up before the descriptor comes, not after: the lookup
// overlaps the view's wake-up to the answer and its sendmsg.
func TestReceiveTerminalLooksUpFirst(t *testing.T) {
	srv, view := socketPair(t)
	_, s := openPTY(t)
	looked := make(chan struct{})
	defer func(f func(name, colorterm string) (*terminfo.Terminfo, error)) { termLookup = f }(termLookup)
	termLookup = func(name, colorterm string) (*terminfo.Terminfo, error) {
		close(looked)
		return lookupTerm(name, colorterm)
	}
	sent := make(chan struct{})
	defer func() { <-sent }()
	ttyFD := int(s.Fd())
	go func() { // the view: the descriptor once the server has looked the terminal up
		defer close(sent)
		select {
		case <-looked:
		case <-time.After(10 * time.Second):
			t.Error("the server did not look the terminal up before it had the descriptor")
		}
		view.WriteMsgUnix([]byte{0}, unix.UnixRights(ttyFD), nil)
	}()
	tty, ti, err := noHost.receiveTerminal(srv, AttachParams{Term: "xterm-256color"})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	if ti == nil || ti.Name != "xterm-256color" {
		t.Errorf("the description is %+v", ti)
	}
}

// A terminal the server does not know: the descriptor it received is closed, and the reason
// names the TERM.
func TestReceiveTerminalUnknown(t *testing.T) {
	srv, view := socketPair(t)
	_, s := openPTY(t)
	if _, _, err := view.WriteMsgUnix([]byte{0}, unix.UnixRights(int(s.Fd())), nil); err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	tty, _, err := noHost.receiveTerminal(srv, AttachParams{Term: "no-such-terminal-7q"})
	if err == nil {
		tty.Close()
		t.Fatal("an unknown terminal was taken")
	}
	if !strings.Contains(err.Error(), `TERM="no-such-terminal-7q"`) {
		t.Errorf("the reason is %q", err)
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open before, %d after: the received one was left open", before, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// An attach request's params.
func TestReadAttachParams(t *testing.T) {
	for _, raw := range []string{
		`{"term":"xterm-256color"}`,
		`{"term":"xterm","colorterm":"truecolor"}`,
		`{"term":"xterm","open":["sh","-c","x"],"dir":"/tmp"}`,
		`{"colorterm":"24bit","term":"x\u0079"}`,
	} {
		var want AttachParams
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		got, err := readAttachParams([]byte(raw))
		if err != nil || got.Term != want.Term || got.ColorTerm != want.ColorTerm ||
			got.Dir != want.Dir || strings.Join(got.Open, "\x00") != strings.Join(want.Open, "\x00") {
			t.Errorf("%s reads as %+v (%v), want %+v", raw, got, err, want)
		}
	}
	if _, err := readAttachParams([]byte(`{"term":`)); err == nil {
		t.Error("bad params were read")
	}
}

// noHost is a server with no host: it holds no PTYs of its own.
var noHost = &srv{}

// A view that stops reading holds up only its own lines: while a line to it is stuck (its socket
// full, the write waiting out writeStall under that connection's lock), another view's view/left
// reaches that view, and the stuck write still holds its lock when it does. (With one lock for
// every connection, the second line waited for the first to give up, up to writeStall.)
func TestAStalledViewDoesNotHoldUpAnother(t *testing.T) {
	stuckUnix, _ := socketPair(t) // its view never reads
	stuck := &viewConn{UnixConn: stuckUnix}
	otherUnix, otherView := socketPair(t)
	other := &viewConn{UnixConn: otherUnix}

	big := append(bytes.Repeat([]byte("x"), 16<<20), '\n') // more than the socket's buffers hold
	wrote := make(chan struct{})
	go func() { // owner: this test; ends when the stuck connection is closed below
		defer close(wrote)
		sendLine(stuck, big)
	}()
	for stuck.sendMu.TryLock() { // until the write holds the stuck connection's lock
		stuck.sendMu.Unlock()
		select {
		case <-wrote:
			t.Fatal("16 MiB went to a view that never reads: the socket did not fill")
		default:
			runtime.Gosched()
		}
	}

	notify(other, notifyLeft, LeftParams{Reason: "detached"})
	line, err := bufio.NewReader(otherView).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeLine(line); got == nil || got.Reason != "detached" {
		t.Fatalf("the other view read %q", line)
	}
	select {
	case <-wrote:
		t.Fatal("the stuck write had ended before the other view got its line")
	default:
	}
	if stuck.sendMu.TryLock() {
		t.Fatal("the stuck write no longer holds its connection's lock")
	}
	stuckUnix.Close() // the stuck write returns
	<-wrote
}
