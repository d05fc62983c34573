package server

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2/terminfo"
	"golang.org/x/sys/unix"

	"tickmux/agent"
	"tickmux/server/earlyview"
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

// The answer the view's early start recognises is the one the server writes when it wants the
// terminal.
func TestAttachAnswerIsWhatTheServerWrites(t *testing.T) {
	srv, view := socketPair(t)
	reply(srv, 1, AttachResult{SendFD: true}, nil)
	if line, err := bufio.NewReader(view).ReadString('\n'); err != nil || line != earlyview.AttachAnswer+"\n" {
		t.Errorf("the server answers an attach with %q (%v); the early start waits for %q", line, err, earlyview.AttachAnswer+"\n")
	}
}

// The view/left lines the server writes: the light decoder of the early start reads the common
// ones as the JSON decoder does, and leaves the others to it.
func TestLeftLinesBothDecoders(t *testing.T) {
	srv, view := socketPair(t)
	rd := bufio.NewReader(view)
	for _, c := range []struct {
		lp    LeftParams
		light bool // the light decoder reads it
	}{
		{LeftParams{Reason: "detached"}, true},
		{LeftParams{Reason: mirror.ReasonExited, Exited: true}, true},
		{LeftParams{Reason: "the terminal stopped reading"}, true},
		{LeftParams{Reason: "cannot draw on the terminal: no", Failed: true}, true},
		{LeftParams{Reason: `tickmux does not know the terminal TERM="x": not found`, Failed: true}, false},
		{LeftParams{Reason: "a <b> & c"}, false},
		{LeftParams{Reason: "détaché"}, false},
		{LeftParams{Reason: "tab\there"}, false},
		{LeftParams{Reason: ""}, true},
	} {
		notify(srv, notifyLeft, c.lp)
		line, err := rd.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		want := earlyview.Left{Reason: c.lp.Reason, Exited: c.lp.Exited, Failed: c.lp.Failed}
		if got, known := decodeLine(line); !known || got == nil || *got != want {
			t.Errorf("the JSON decoder reads %q as %+v, %v; want %+v", line, got, known, want)
		}
		got, known := earlyview.LightDecode(line)
		if known != c.light || (known && (got == nil || *got != want)) {
			t.Errorf("the light decoder reads %q as %+v, %v; want %+v, %v", line, got, known, want, c.light)
		}
	}
}

// A view's notifications are requests the server reads (no id: notifications).
func TestNotificationsAreWhatTheServerReads(t *testing.T) {
	for _, m := range []string{notifyResize, notifyRedraw, notifyDetach} {
		line := earlyview.Notification(m)
		var req agent.Request
		if err := json.Unmarshal(line, &req); err != nil || req.Method != m || req.ID != 0 || req.Params != nil || line[len(line)-1] != '\n' {
			t.Errorf("the notification %q reads as %+v (%v)", line, req, err)
		}
	}
}

// Whatever line the light decoder reads, the JSON decoder reads the same.
func FuzzLightDecode(f *testing.F) {
	for _, lp := range []LeftParams{{Reason: "detached"}, {Reason: "x", Exited: true}, {Reason: "y", Failed: true}, {Reason: "z", Exited: true, Failed: true}} {
		raw, _ := json.Marshal(lp)
		line, _ := json.Marshal(agent.Message{Method: notifyLeft, Params: raw})
		f.Add(append(line, '\n'))
	}
	f.Add([]byte(`{"method":"view/left","params":{"reason":"a","exited":false}}` + "\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		light, known := earlyview.LightDecode(line)
		if !known {
			return
		}
		full, _ := decodeLine(line)
		if light == nil || full == nil || *light != *full {
			t.Errorf("%q: the light decoder reads %+v, the JSON decoder %+v", line, light, full)
		}
	})
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

// The answer to an attach, written without the JSON encoder for id 1, is the line the encoder
// writes; other ids go through the encoder.
func TestAskForTerminalIsTheReply(t *testing.T) {
	for _, id := range []uint64{1, 7} {
		srv, view := socketPair(t)
		rd := bufio.NewReader(view)
		askForTerminal(srv, id)
		got, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		reply(srv, id, AttachResult{SendFD: true}, nil)
		want, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("id %d: the answer is %q, the encoder writes %q", id, got, want)
		}
	}
}

// The params of the early start's request read as the JSON decoder reads them; others too.
func TestReadAttachParams(t *testing.T) {
	for _, raw := range []string{
		`{"term":"xterm-256color","early":true}`,
		`{"term":"xterm","colorterm":"truecolor","early":true}`,
		`{"term":"xterm","open":["sh","-c","x"],"dir":"/tmp"}`,
		`{"early":true,"term":"x\u0079"}`,
	} {
		var want AttachParams
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		got, err := readAttachParams([]byte(raw))
		if err != nil || got.Term != want.Term || got.ColorTerm != want.ColorTerm || got.Early != want.Early ||
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
