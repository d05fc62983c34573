package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"tickmux/agent"
	"tickmux/internal/flagusage"
	"tickmux/internal/remotewire"
	"tickmux/server"
	"tickmux/tick/wire"
)

// helloWait bounds the wait for the server's answer to the hello.
const helloWait = 30 * time.Second

// maxHelloAnswer bounds the hello's line and its answer's.
const maxHelloAnswer = 1 << 20

// runProxy is `tickmux proxy`, which a person's local tickmux runs on another host over its own
// ssh (`ssh [ssh_args] -T DEST tickmux proxy`, issue 40, package remote): it carries the local
// side's hello to this host's server, writes the server's answer to stdout, and from then on
// copies lines both ways, unchanged, until either side closes. Stdout is the protocol: nothing
// else is ever written there; every message goes to stderr.
//
// The first line on stdin must be the local side's proxy/hello request (its id, Version and
// Features): the proxy sends it to the server with Via set to how the person came ("ssh from IP"
// from $SSH_CONNECTION, "local" without it; whatever the local side put there is replaced). The
// proxy checks that a server runs before it reads stdin, so a host without one says so at once.
// Nothing more is copied from stdin before the hello's answer came: the control socket hands the
// connection over after its first line, and bytes sent behind that line could be lost.
func runProxy(args []string, std stdio) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(std.err)
	socket := fs.String("socket", "", "the control socket `PATH` (default $"+agent.EnvSocket+", else $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock)")
	fs.Usage = func() {
		usageHead(std.err, "proxy")
		flagusage.Print(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	path := agent.SocketPath(*socket)
	fail := func(format string, args ...any) int {
		fmt.Fprintf(std.err, "tickmux proxy: "+format+"\n", args...)
		return 1
	}
	// Is a server there? Asked before the hello is read, and on a connection of its own: the
	// control socket closes a connection that sends nothing for 5 s.
	probe, err := dialProxy(path)
	if err != nil {
		return fail("%v", err)
	}
	probe.Close()

	in := bufio.NewReaderSize(std.in, 64<<10)
	first, err := readLine(in, maxHelloAnswer)
	if err != nil {
		return fail("no hello from the local side on stdin: %v", err)
	}
	var req agent.Request
	var hello remotewire.HelloParams
	if json.Unmarshal(first, &req) != nil || req.ID == 0 || req.Method != remotewire.MethodHello || json.Unmarshal(req.Params, &hello) != nil {
		if req.ID != 0 {
			b, _ := json.Marshal(agent.Message{ID: req.ID, Error: &agent.Error{Message: "the first request must be " + remotewire.MethodHello, Effect: wire.EffectNone, Reason: agent.ReasonBadRequest}})
			std.out.Write(append(b, '\n'))
		}
		return fail("the local side's first line is not a %s request", remotewire.MethodHello)
	}
	hello.Via = viaOf(os.Getenv("SSH_CONNECTION"))
	req.Params, _ = json.Marshal(hello)
	line, _ := json.Marshal(req)

	nc, err := dialProxy(path)
	if err != nil {
		return fail("%v", err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(helloWait))
	if _, err := nc.Write(append(line, '\n')); err != nil {
		return fail("cannot talk to the tickmux server on %s: %v", path, err)
	}
	rd := bufio.NewReaderSize(nc, 64<<10)
	answer, err := readLine(rd, maxHelloAnswer)
	if err != nil {
		return fail("the tickmux server on %s did not answer the hello: %v", path, err)
	}
	var m agent.Message
	switch err := json.Unmarshal(answer, &m); {
	case err != nil:
		return fail("a bad answer from the tickmux server on %s: %v", path, err)
	case m.ID != req.ID && m.ID != 0:
		return fail("the tickmux server on %s answered another request than the hello", path)
	}
	// The answer goes to the local side whatever it says: a refusal is its to report too.
	if m.ID == req.ID {
		if _, err := std.out.Write(answer); err != nil {
			return 1
		}
	}
	if m.Error != nil {
		msg := m.Error.Message
		if strings.HasPrefix(msg, "unknown method") {
			msg += " (this tickmux runs headless, tickmux serve, or is too old for proxies)"
		}
		return fail("%s", msg)
	}
	if m.Result == nil {
		return fail("the tickmux server on %s answered the hello with nothing", path)
	}
	_ = nc.SetDeadline(time.Time{})
	// From here bytes go both ways unchanged: the lines are the local side's and the server's.
	go func() { // owner: runProxy; ends at stdin's end (the local side hung up) or when the process exits
		_, _ = io.Copy(nc, in) // what in holds already first
		_ = nc.CloseWrite()    // the server sees the end and closes its side
	}()
	_, _ = io.Copy(std.out, rd) // the server's lines, what rd holds already first
	return 0
}

// viaOf is how the person reached this host, for the server's journal: "ssh from 10.0.0.5" from
// $SSH_CONNECTION ("CLIENT_IP CLIENT_PORT SERVER_IP SERVER_PORT"), "local" without one.
func viaOf(sshConnection string) string {
	f := strings.Fields(sshConnection)
	if len(f) == 0 {
		return "local"
	}
	return "ssh from " + f[0]
}

// dialProxy connects to the server on path (server.Dial: it runs as this user), saying what to
// do when none runs there.
func dialProxy(path string) (*net.UnixConn, error) {
	nc, err := server.Dial(path)
	if errors.Is(err, server.ErrNoServer) {
		return nil, fmt.Errorf("no tickmux server runs on %s: start one with `tickmux` there", path)
	}
	return nc, err
}

// readLine reads one line, newline included, of at most max bytes.
func readLine(rd *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := rd.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > max {
			return nil, fmt.Errorf("a line longer than %d bytes", max)
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, errors.New("it hung up")
		default:
			return nil, err
		}
	}
}
