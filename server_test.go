package main

// The server process without a terminal: how it starts, refuses a second server on its socket,
// ends on a signal or kill-server, and how global flags reach a subcommand.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// README "Sessions: detach, attach, several views": `tickmux --socket S COMMAND`.
func TestGlobalFlagsBeforeTheCommand(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"--socket", "S", "demo"}, []string{"demo", "--socket", "S"}},
		{[]string{"--socket=S", "--log", "L", "attach"}, []string{"attach", "--socket=S", "--log", "L"}},
		{[]string{"demo", "--socket", "S"}, []string{"demo", "--socket", "S"}},
		{[]string{"--socket", "S", "--", "demo"}, []string{"--socket", "S", "--", "demo"}}, // a program named demo
		{[]string{"--socket", "S"}, []string{"--socket", "S"}},
		{[]string{"--socket", "S", "nosuchcommand"}, []string{"--socket", "S", "nosuchcommand"}},
	} {
		if got := hoistCommand(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("hoistCommand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// serverProc is a `tickmux server` started as `tickmux` starts it, but watched by the test.
type serverProc struct {
	cmd    *exec.Cmd
	socket string
	errb   bytes.Buffer
	done   chan error
}

func startServerProc(t *testing.T, socket string, args ...string) *serverProc {
	t.Helper()
	self, _ := os.Executable()
	dir := filepath.Dir(socket)
	p := &serverProc{socket: socket, done: make(chan error, 1)}
	p.cmd = exec.Command(self, append([]string{"server", "--socket", socket}, args...)...)
	p.cmd.Env = append(os.Environ(), envAsMain+"=1", "XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir, "HOME="+dir, "SHELL=/bin/sh")
	p.cmd.Stderr = &p.errb
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }() // owner: the test; returns when the server exits
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// exited waits up to d for the server to exit.
func (p *serverProc) exited(d time.Duration) bool {
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		return true
	case <-time.After(d):
		return false
	}
}

func (p *serverProc) waitListening(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(p.socket); err == nil {
			return
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("the server exited: %v\n%s", err, p.errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never listened")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SIGTERM, SIGHUP and SIGINT end the server within 2 s, its programs with it.
// spec: H-X1
// README "Sessions: detach, attach, several views": no program outlives the server.
func TestServerEndsOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			socket := filepath.Join(t.TempDir(), "s.sock")
			p := startServerProc(t, socket) // a shell, which ignores SIGTERM while interactive
			p.waitListening(t)
			t0 := time.Now()
			p.cmd.Process.Signal(sig)
			if !p.exited(10 * time.Second) {
				t.Fatalf("the server did not end on %v", sig)
			}
			if d := time.Since(t0); d > 2*time.Second {
				t.Errorf("the server took %v to end on %v, want within 2 s", d, sig)
			}
			if _, err := os.Stat(socket); err == nil {
				t.Error("the socket was left behind")
			}
		})
	}
}

// kill-server answers once every program has been told to end and the socket is gone, not once
// they have ended (as tmux's does): here the one program holds on after its signal, and the server
// still runs when kill-server returns. Nothing outlives the server all the same. (Issue 29.4:
// waiting for the server's exit made kill-server 2-3x slower.)
func TestKillServerAnswersBeforeTheProgramsEnd(t *testing.T) {
	dir := t.TempDir()
	socket := filepath.Join(dir, "s.sock")
	ready, hup, release := filepath.Join(dir, "ready"), filepath.Join(dir, "hup"), filepath.Join(dir, "release")
	script := fmt.Sprintf(`trap 'echo > %s' HUP TERM; echo $$ > %s.tmp; mv %[2]s.tmp %[2]s; until [ -e %s ]; do sleep 0.05; done`, hup, ready, release)
	p := startServerProc(t, socket, "--", "/bin/sh", "-c", script)
	p.waitListening(t)
	var program int
	for deadline := time.Now().Add(20 * time.Second); program == 0; {
		if b, err := os.ReadFile(ready); err == nil {
			program, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		} else if time.Now().After(deadline) {
			t.Fatalf("the pane's program never started\n%s", p.errb.String())
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	defer os.WriteFile(release, nil, 0o600) // a failure below must not leave the program waiting
	self, _ := os.Executable()
	kill := exec.Command(self, "--socket", socket, "kill-server")
	// A -race build sleeps 1 s before it exits (GORACE atexit_sleep_ms), as long as the server's
	// hard stop gives it.
	kill.Env = append(os.Environ(), envAsMain+"=1", "GORACE=atexit_sleep_ms=0")
	if out, err := kill.CombinedOutput(); err != nil {
		t.Fatalf("kill-server: %v\n%s", err, out)
	}
	if _, err := os.Stat(socket); err == nil {
		t.Error("kill-server returned with the socket still there: the next tickmux would find this server")
	}
	select {
	case err := <-p.done:
		p.done <- err
		log, _ := os.ReadFile(filepath.Join(dir, "tickmux", "tickmux.log"))
		t.Fatalf("kill-server returned only once the server had exited:\n%s", log)
	default:
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(hup); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the program was never told to end (no SIGHUP or SIGTERM)")
		}
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !p.exited(10 * time.Second) {
		t.Fatal("the server did not end after kill-server")
	}
	for deadline := time.Now().Add(10 * time.Second); alive(program); {
		if time.Now().After(deadline) {
			t.Fatalf("the program (pid %d) outlived the server", program)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A second server on a socket in use is refused; kill-server ends the first.
// README "Sessions: detach, attach, several views": `tickmux kill-server`.
func TestSecondServerRefusedAndKillServer(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "s.sock")
	p := startServerProc(t, socket)
	p.waitListening(t)
	q := startServerProc(t, socket)
	select {
	case err := <-q.done:
		q.done <- err
		if err == nil || !strings.Contains(q.errb.String(), "already running") {
			t.Fatalf("a second server on a socket in use: %v\n%s", err, q.errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the second server did not give up")
	}
	self, _ := os.Executable()
	kill := exec.Command(self, "--socket", socket, "kill-server")
	kill.Env = append(os.Environ(), envAsMain+"=1")
	if out, err := kill.CombinedOutput(); err != nil {
		t.Fatalf("kill-server: %v\n%s", err, out)
	}
	if !p.exited(10 * time.Second) {
		t.Fatal("kill-server returned but the server runs on")
	}
	if _, err := os.Stat(socket); err == nil {
		t.Error("the socket was left behind")
	}
}
