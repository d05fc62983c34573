package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// logFallbackServer runs `tickmux server` with neither HOME nor XDG_STATE_HOME, so that its log
// falls back to TMPDIR/tickmux-UID/tickmux.log, TMPDIR being tmp. It returns the process and
// its stderr.
func logFallbackServer(t *testing.T, tmp string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	self, _ := os.Executable()
	cmd := exec.Command(self, "server", "--socket", filepath.Join(tmp, "sock", "s.sock"))
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "HOME" && name != "XDG_STATE_HOME" && name != "TMPDIR" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, envAsMain+"=1", "TMPDIR="+tmp, "XDG_CONFIG_HOME="+tmp, "SHELL=/bin/sh")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, &errb
}

// sharedTmp is a directory like /tmp: everyone may create in it (sticky).
func sharedTmp(t *testing.T) string {
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// With HOME unset the log goes to a private directory of this uid's in the temporary directory,
// made 0700, the log 0600 (it was /tmp/tickmux.log, opened wherever it pointed, whoever owned it).
func TestLogFallbackIsPrivate(t *testing.T) {
	tmp := sharedTmp(t)
	cmd, errb := logFallbackServer(t, tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	dir := filepath.Join(tmp, "tickmux-"+strconv.Itoa(os.Getuid()))
	logPath := filepath.Join(dir, "tickmux.log")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(logPath); bytes.Contains(b, []byte("tickmux server starting")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log at %s: %s", logPath, errb.String())
		}
	}
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, logPath: 0o600} {
		if fi, err := os.Lstat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v %v, want %v", path, fi.Mode(), err, want)
		}
	}
}

// A log directory or file that someone else made first is refused with what to do, and nothing
// is written through it.
func TestLogFallbackRefusesWhatOthersMade(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	other := 12345
	for _, c := range []struct {
		name    string
		root    bool // needs to give a file to another uid
		plant   func(t *testing.T, tmp, dir string)
		want    string
		victims []string // relative to tmp: must not be written
	}{
		{"directory is a symlink", false, func(t *testing.T, tmp, dir string) {
			must(t, os.Mkdir(filepath.Join(tmp, "evil"), 0o777))
			must(t, os.Chmod(filepath.Join(tmp, "evil"), 0o777))
			must(t, os.Symlink(filepath.Join(tmp, "evil"), dir))
		}, "it is a symbolic link, which someone else may have made", []string{"evil/tickmux.log"}},
		{"directory of another uid", true, func(t *testing.T, tmp, dir string) {
			must(t, os.Mkdir(dir, 0o777))
			must(t, os.Chmod(dir, 0o777))
			must(t, os.Chown(dir, other, other))
		}, "it belongs to uid 12345, not to you", []string{"tickmux-" + uid + "/tickmux.log"}},
		{"directory open to others", false, func(t *testing.T, tmp, dir string) {
			must(t, os.Mkdir(dir, 0o755))
			must(t, os.Chmod(dir, 0o755))
		}, "other users may use it (mode 0755); run chmod 700 ", []string{"tickmux-" + uid + "/tickmux.log"}},
		{"log is a symlink", false, func(t *testing.T, tmp, dir string) {
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.Symlink(filepath.Join(tmp, "target"), filepath.Join(dir, "tickmux.log")))
		}, "refusing the log file", []string{"target"}},
		{"log of another uid", true, func(t *testing.T, tmp, dir string) {
			must(t, os.Mkdir(dir, 0o700))
			log := filepath.Join(dir, "tickmux.log")
			must(t, os.WriteFile(log, nil, 0o666))
			must(t, os.Chmod(log, 0o666))
			must(t, os.Chown(log, other, other))
		}, "it belongs to uid 12345, not to you", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Getuid() != 0 {
				t.Skip("giving a file to another uid needs root")
			}
			tmp := sharedTmp(t)
			c.plant(t, tmp, filepath.Join(tmp, "tickmux-"+uid))
			cmd, errb := logFallbackServer(t, tmp)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }() // owner: the test; returns when the server exits
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("the server started instead of refusing its log; stderr %q", errb.String())
			}
			if err == nil || !strings.Contains(errb.String(), c.want) || !strings.Contains(errb.String(), "set HOME or XDG_STATE_HOME, or give --log PATH") {
				t.Errorf("the server: %v, stderr %q; want a refusal saying %q and what to do", err, errb.String(), c.want)
			}
			for _, v := range c.victims {
				if _, err := os.Lstat(filepath.Join(tmp, v)); err == nil {
					t.Errorf("%s was written", v)
				}
			}
			if c.name == "log of another uid" {
				if b, _ := os.ReadFile(filepath.Join(tmp, "tickmux-"+uid, "tickmux.log")); len(b) > 0 {
					t.Errorf("the other uid's file received the log: %q", b)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
