package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tickmux/internal/remotewire"
)

// The test binary plays the other side. Run as fake-ssh (a link's Options.SSH) it is ssh and the
// remote's proxy at once: the destination is a directory whose files say how to behave
// (mode, features, cards.json, freeze, drop-on-answer, hello-error) and where it writes what it
// saw (args, pids, answers). Run as fake-proxy (config.Host.Tickmux, through a real sshd) it is
// only the proxy, its directory in $REMOTE_FAKE_DIR.
var fakeSSH, fakeProxy string

func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "fake-ssh":
		os.Exit(runFakeSSH(os.Args[1:]))
	case "fake-proxy":
		os.Exit(runFakeProxy(os.Args[1:]))
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "remote-test-")
	if err != nil {
		panic(err)
	}
	// Readable by anyone: a real sshd's session runs fake-proxy (as this user, but through
	// its own login).
	os.Chmod(dir, 0o755)
	fakeSSH, fakeProxy = filepath.Join(dir, "fake-ssh"), filepath.Join(dir, "fake-proxy")
	for _, l := range []string{fakeSSH, fakeProxy} {
		if err := os.Symlink(exe, l); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runFakeSSH takes ssh's arguments: options, the destination (the fake host's directory) and the
// remote command.
func runFakeSSH(args []string) int {
	if len(args) == 1 && args[0] == "--sleeper" { // what a ProxyCommand would be: in ssh's group
		time.Sleep(time.Hour)
		return 0
	}
	i := 0
	for i < len(args) {
		switch args[i] {
		case "-T":
			i++
			continue
		case "-o", "-F", "-p", "-i", "-l":
			i += 2
			continue
		}
		break
	}
	if i >= len(args) {
		fmt.Fprintln(os.Stderr, "fake-ssh: no destination")
		return 255
	}
	dir := args[i]
	record(dir, "args", strings.Join(args, "\x00"), false)
	record(dir, "pids", fmt.Sprintf("%d\n", os.Getpid()), true)
	record(dir, "connects", fmt.Sprintf("%d\n", time.Now().UnixNano()), true)
	mode := "ok"
	if b, err := os.ReadFile(filepath.Join(dir, "mode")); err == nil {
		mode = strings.TrimSpace(string(b))
	}
	switch mode {
	case "denied":
		fmt.Fprintln(os.Stderr, "person@example: Permission denied (publickey,password).")
		return 255
	case "hostkey":
		fmt.Fprint(os.Stderr, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"+
			"@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"+
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"+
			"Host key for example has changed and you have requested strict checking.\n"+
			"Host key verification failed.\n")
		return 255
	case "notfound":
		fmt.Fprintln(os.Stderr, "bash: line 1: tickmux: command not found")
		return 127
	case "old":
		fmt.Fprintln(os.Stderr, `tickmux: unknown command "proxy"; run 'tickmux help' for the list`)
		return 2
	case "noserver":
		fmt.Fprintln(os.Stderr, "tickmux proxy: no tickmux server runs at /run/user/1000/tickmux/default.sock")
		return 1
	case "refused":
		fmt.Fprintln(os.Stderr, "ssh: connect to host example port 22: Connection refused")
		return 255
	case "quiet":
		return 3
	case "silent": // logged in, then nothing: a remote that hangs before its hello
		io.Copy(io.Discard, os.Stdin)
		return 0
	}
	// ok: the proxy's side, with a child in ssh's process group, as a ProxyCommand would be.
	child := exec.Command(os.Args[0], "--sleeper")
	if child.Start() == nil {
		record(dir, "pids", fmt.Sprintf("%d\n", child.Process.Pid), true)
	}
	if mode == "banner" {
		fmt.Println("Welcome to example! (a login banner on stdout)")
	}
	return serveFake(dir, os.Stdin, os.Stdout)
}

func runFakeProxy(args []string) int {
	dir := os.Getenv("REMOTE_FAKE_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "fake-proxy: no REMOTE_FAKE_DIR")
		return 1
	}
	record(dir, "args", strings.Join(args, "\x00"), false)
	record(dir, "pids", fmt.Sprintf("%d\n", os.Getpid()), true)
	if len(args) == 0 || args[0] != "proxy" {
		fmt.Fprintln(os.Stderr, "fake-proxy: usage: proxy [--socket S]")
		return 2
	}
	return serveFake(dir, os.Stdin, os.Stdout)
}

func record(dir, name, text string, appendTo bool) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(filepath.Join(dir, name), flag, 0o644)
	if err != nil {
		return
	}
	f.WriteString(text)
	f.Close()
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// serveFake is a remote tickmux behind its proxy: hello, ping, cards (and their notifications
// when cards.json changes), answer, ls. While the file freeze exists it answers nothing (it
// hangs, reading on).
func serveFake(dir string, in io.Reader, out io.Writer) int {
	var mu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		out.Write(append(b, '\n'))
		mu.Unlock()
	}
	readCards := func() (remotewire.CardsResult, []byte) {
		var cr remotewire.CardsResult
		b, _ := os.ReadFile(filepath.Join(dir, "cards.json"))
		json.Unmarshal(b, &cr)
		return cr, b
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, maxLine)
	hello := false
	for sc.Scan() {
		var r request
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			fmt.Fprintln(os.Stderr, "fake: not JSON:", sc.Text())
			return 1
		}
		if exists(dir, "freeze") {
			continue
		}
		if !hello {
			if r.Method != remotewire.MethodHello {
				fmt.Fprintln(os.Stderr, "fake: the first request is", r.Method)
				return 1
			}
			if b, err := os.ReadFile(filepath.Join(dir, "hello-error")); err == nil {
				send(message{ID: r.ID, Error: &wireError{Message: strings.TrimSpace(string(b)), Reason: "not_running", Effect: "none"}})
				return 1
			}
			var hp remotewire.HelloParams
			json.Unmarshal(r.Params, &hp)
			record(dir, "hello", string(r.Params), false)
			feats := []string{remotewire.FeatureCards, remotewire.FeatureLs}
			if b, err := os.ReadFile(filepath.Join(dir, "features")); err == nil {
				feats = strings.Split(strings.TrimSpace(string(b)), ",")
			}
			res, _ := json.Marshal(remotewire.HelloResult{Version: 1, Features: feats, Hostname: "fake-" + filepath.Base(dir), Tickmux: "test"})
			send(message{ID: r.ID, Result: res})
			hello = true
			_, last := readCards()
			go func() { // owner: serveFake; ends with the process
				for {
					time.Sleep(10 * time.Millisecond)
					cr, now := readCards()
					if !bytes.Equal(now, last) && !exists(dir, "freeze") {
						last = now
						p, _ := json.Marshal(cr)
						send(message{Method: remotewire.NotifyCards, Params: p})
					}
				}
			}()
			continue
		}
		var res any = struct{}{}
		switch r.Method {
		case remotewire.MethodPing:
		case remotewire.MethodCards:
			res, _ = readCards()
		case remotewire.MethodLs:
			res = remotewire.LsResult{Ticks: []remotewire.Tick{{ID: "hosted:1", Title: filepath.Base(dir)}}}
		case remotewire.MethodAnswer:
			record(dir, "answers", string(r.Params)+"\n", true)
			if exists(dir, "drop-on-answer") {
				return 0 // the connection drops before the answer's word goes back
			}
		default:
			send(message{ID: r.ID, Error: &wireError{Message: "unknown method " + r.Method, Reason: "bad_request", Effect: "none"}})
			continue
		}
		b, _ := json.Marshal(res)
		send(message{ID: r.ID, Result: b})
	}
	return 0
}
