package earlyview

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestParseView(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want view
		ok   bool
	}{
		{nil, view{}, true},
		{[]string{"attach"}, view{attach: true}, true},
		{[]string{"--socket", "/s"}, view{socket: "/s"}, true},
		{[]string{"-socket=/s", "attach"}, view{attach: true, socket: "/s"}, true},
		{[]string{"attach", "--log", "/l", "--config=" + cfg}, view{attach: true, log: "/l", config: cfg}, true},
		{[]string{"attach", "--config", cfg + ".missing"}, view{}, false},        // the normal path says it is missing
		{[]string{"--socket", "/a", "--socket", "/b"}, view{socket: "/b"}, true}, // the last one wins, as in package flag
		{[]string{"--socket", "attach"}, view{socket: "attach"}, true},           // the flag's value, as hoistCommand reads it
		{[]string{"--socket"}, view{}, false},
		{[]string{"--socket="}, view{}, false},
		{[]string{"attach", "attach"}, view{}, false},
		{[]string{"demo"}, view{}, false},
		{[]string{"--", "sh"}, view{}, false},
		{[]string{"-h"}, view{}, false},
		{[]string{"---socket", "/s"}, view{}, false},
		{[]string{"--size", "80x24"}, view{}, false},
		{[]string{"-"}, view{}, false},
	} {
		got, ok := parseView(c.args)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseView(%q) = %+v, %v; want %+v, %v", c.args, got, ok, c.want, c.ok)
		}
	}
}

func TestServerArgs(t *testing.T) {
	got := ServerArgs("/s", "", "/l", 160, 45, false, nil)
	if want := []string{"--socket", "/s", "--size", "160x45", "--log", "/l"}; !slices.Equal(got, want) {
		t.Errorf("ServerArgs = %q, want %q", got, want)
	}
	got = ServerArgs("/s", "/c", "", 0, 0, true, []string{"sh", "-c", "x"})
	if want := []string{"--socket", "/s", "--config", "/c", "--demo", "--", "sh", "-c", "x"}; !slices.Equal(got, want) {
		t.Errorf("ServerArgs = %q, want %q", got, want)
	}
}

// agent.SocketPath is this function (the early client finds the socket before agent is
// initialised); it is tested here only.
func TestSocketPath(t *testing.T) {
	t.Setenv(EnvSocket, "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7/")
	if got := SocketPath(""); got != "/run/user/7/tickmux/default.sock" {
		t.Errorf("SocketPath with XDG_RUNTIME_DIR = %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "relative")
	if got, want := SocketPath(""), os.TempDir()+"/tickmux-"+strconv.Itoa(os.Getuid())+"/default.sock"; got != want {
		t.Errorf("SocketPath with a relative XDG_RUNTIME_DIR = %q, want %q", got, want)
	}
	t.Setenv(EnvSocket, "/env.sock")
	if got := SocketPath(""); got != "/env.sock" {
		t.Errorf("SocketPath with %s = %q", EnvSocket, got)
	}
	if got := SocketPath("/flag.sock"); got != "/flag.sock" {
		t.Errorf("SocketPath with the flag = %q", got)
	}
}
