package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tickmux reload (issue 42 item 17): the running server reads its config again, as tmux's
// source-file; a key bound there works at once. From inside one of its panes it is refused: the
// config binds the keys that answer cards.
func TestEndToEndReload(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	r.start()
	r.waitFor("shell:1")
	r.waitFor("$ ")
	cfg := filepath.Join(r.dir, "tickmux", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[keys.prefix]\n\"v\" = \"split-right\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.typeLine("tickmux reload; echo rc=$?", "rc=1")
	if s := r.screen(); !strings.Contains(s, "cannot reload from inside tickmux") {
		t.Errorf("reload from a pane was not refused:\n%s", s)
	}
	r.keys("C-b", "v")
	if s := r.screen(); strings.Contains(s, "shell:2") {
		t.Fatalf("the binding took effect from inside a pane:\n%s", s)
	}
	out := r.run("reload")
	if !strings.Contains(out, "read "+cfg+" again") {
		t.Errorf("tickmux reload said %q", out)
	}
	r.prefix("v", "shell:2")
	if err := os.WriteFile(cfg, []byte("scrollback = \"many\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := r.cli("reload")
	msg, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "scrollback takes a whole number") {
		t.Errorf("a broken config: %v %s", err, msg)
	}
}
