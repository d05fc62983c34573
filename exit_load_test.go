package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envFloodTick makes the test binary a busy Tick: it answers tick/describe and tick/read, then
// sends tick/update notifications as fast as its stdout takes them and draws a counter on its
// terminal after each one.
const envFloodTick = "TICKMUX_TEST_FLOOD_TICK"

func init() {
	if os.Getenv(envFloodTick) == "1" {
		os.Exit(floodTick())
	}
}

func floodTick() int {
	out := bufio.NewWriter(os.Stdout)
	send := func(id json.RawMessage, result string) {
		out.WriteString(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + "}\n")
		out.Flush()
	}
	tty, _ := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 8<<20)
	started := false
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "tick/describe":
			send(req.ID, `{"protocol":3,"kind":"test.flood","title":"Flood","description":"Floods updates.","revision":"1","tools":[]}`)
		case "tick/read":
			send(req.ID, `{"seq":0,"data":{"n":0}}`)
			if !started {
				started = true
				go func() { // owner: the process; ends when stdout fails (the host went away)
					w := bufio.NewWriter(os.Stdout)
					pad := strings.Repeat("x", 200)
					for seq := 1; ; seq++ {
						n := strconv.Itoa(seq)
						w.WriteString(`{"jsonrpc":"2.0","method":"tick/update","params":{"seq":` + n + `,"data":{"n":` + n + `,"pad":"` + pad + `"}}}` + "\n")
						if err := w.Flush(); err != nil {
							os.Exit(0)
						}
						if tty != nil {
							tty.WriteString("\rflood " + n + "\x1b[K")
						}
					}
				}()
			}
		}
	}
	return 0
}

// Exit never hangs under load: SIGTERM, SIGHUP and kill-server (the quit of a server) end a
// server whose Tick floods updates and output, within 2 s, 20 times over.
func TestServerExitUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 servers")
	}
	self, _ := os.Executable()
	ways := []string{"SIGTERM", "SIGHUP", "kill-server"}
	for i := 0; i < 20; i++ {
		way := ways[i%len(ways)]
		socket := filepath.Join(t.TempDir(), "s.sock")
		p := startServerProc(t, socket, "--", "env", envFloodTick+"=1", self)
		p.waitListening(t)
		time.Sleep(200 * time.Millisecond) // the Tick is read and floods by now
		busy0 := cpuTicks(t, p.cmd.Process.Pid)
		time.Sleep(200 * time.Millisecond)
		if cpuTicks(t, p.cmd.Process.Pid) == busy0 {
			t.Fatalf("repetition %d: the server used no CPU beside the flood Tick: not under load", i)
		}
		t0 := time.Now()
		switch way {
		case "SIGTERM":
			p.cmd.Process.Signal(syscall.SIGTERM)
		case "SIGHUP":
			p.cmd.Process.Signal(syscall.SIGHUP)
		default:
			kill := exec.Command(self, "--socket", socket, "kill-server")
			kill.Env = append(os.Environ(), envAsMain+"=1")
			if out, err := kill.CombinedOutput(); err != nil {
				t.Fatalf("repetition %d: kill-server: %v\n%s", i, err, out)
			}
		}
		if !p.exited(10 * time.Second) {
			t.Fatalf("repetition %d: the server did not end on %s", i, way)
		}
		if d := time.Since(t0); d > 2*time.Second {
			t.Errorf("repetition %d: the server took %v to end on %s, want within 2 s", i, d, way)
		}
	}
}

// cpuTicks is the CPU time process pid has used, in clock ticks (user + system).
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}
