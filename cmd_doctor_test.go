package main

import (
	"fmt"

	"tickmux/host"

	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// made is a machine of made-up facts: files holds /proc/sys values, bwrap its answer.
func made(uid int, files map[string]string, bwrap string, bwrapErr error, peerErr error) machine {
	return machine{
		uid: uid,
		readFile: func(p string) ([]byte, error) {
			if v, ok := files[p]; ok {
				return []byte(v + "\n"), nil
			}
			return nil, fs.ErrNotExist
		},
		sandbox: func() (string, error) {
			if bwrap == "" {
				return "", errors.New("not on PATH")
			}
			return bwrap, bwrapErr
		},
		peerPid: func() error { return peerErr },
	}
}

func byName(facts []fact) map[string]fact {
	m := map[string]fact{}
	for _, f := range facts {
		m[f.Name] = f
	}
	return m
}

// Issue 38 C: doctor reports each fact that decides what a pane's program can do, and says
// which open a way around the cards.
func TestDoctorFacts(t *testing.T) {
	safe := map[string]string{
		"/proc/sys/kernel/yama/ptrace_scope":         "1",
		"/proc/sys/dev/tty/legacy_tiocsti":           "0",
		"/proc/sys/user/max_user_namespaces":         "15000",
		"/proc/sys/kernel/unprivileged_userns_clone": "1",
	}
	for _, c := range []struct {
		name     string
		m        machine
		risky    []string // the facts that must be risks; every other must not
		contains map[string]string
	}{
		{"a hardened machine", made(1000, safe, "/usr/bin/bwrap", nil, nil), nil,
			map[string]string{"bubblewrap": "/usr/bin/bwrap works", "ptrace (Yama)": "ptrace_scope 1"}},
		{"no Yama, legacy TIOCSTI, as root", made(0, map[string]string{"/proc/sys/dev/tty/legacy_tiocsti": "1", "/proc/sys/user/max_user_namespaces": "100"}, "/usr/bin/bwrap", nil, nil),
			[]string{"user", "ptrace (Yama)", "TIOCSTI"}, map[string]string{"user": "root", "ptrace (Yama)": "no Yama"}},
		{"TIOCSTI on but not root", made(1000, map[string]string{"/proc/sys/kernel/yama/ptrace_scope": "2", "/proc/sys/dev/tty/legacy_tiocsti": "1"}, "/usr/bin/bwrap", nil, nil),
			nil, map[string]string{"TIOCSTI": "legacy_tiocsti 1"}},
		{"an old kernel", made(1000, map[string]string{"/proc/sys/kernel/yama/ptrace_scope": "1"}, "/usr/bin/bwrap", nil, errors.New("the kernel does not know SO_PEERPIDFD")),
			[]string{"SO_PEERPIDFD"}, map[string]string{"TIOCSTI": "before 6.2"}},
		{"no bubblewrap", made(1000, safe, "", nil, nil), []string{"bubblewrap"},
			map[string]string{"bubblewrap": "not installed"}},
		{"bubblewrap refused", made(1000, safe, "/usr/bin/bwrap", fmt.Errorf("%w: unprivileged user namespaces are off (bwrap: setting up uid map: Permission denied)", host.ErrNoSandbox), nil), []string{"bubblewrap"},
			map[string]string{"bubblewrap": "Permission denied"}},
		{"user namespaces off", made(1000, map[string]string{"/proc/sys/kernel/yama/ptrace_scope": "1", "/proc/sys/kernel/unprivileged_userns_clone": "0"}, "/usr/bin/bwrap", nil, nil),
			[]string{"user namespaces"}, map[string]string{"user namespaces": "unprivileged_userns_clone 0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := byName(diagnose(c.m))
			for _, name := range []string{"user", "ptrace (Yama)", "TIOCSTI", "user namespaces", "bubblewrap", "SO_PEERPIDFD"} {
				f, ok := got[name]
				if !ok {
					t.Fatalf("no %q fact in %+v", name, got)
				}
				want := false
				for _, r := range c.risky {
					want = want || r == name
				}
				if f.Risk != want {
					t.Errorf("%s (%s): risk %v, want %v", name, f.Value, f.Risk, want)
				}
				if f.Meaning == "" {
					t.Errorf("%s says nothing of what it means", name)
				}
			}
			for name, want := range c.contains {
				if !strings.Contains(got[name].Value, want) {
					t.Errorf("%s = %q, want it to say %q", name, got[name].Value, want)
				}
			}
		})
	}
}

// On this machine: every fact is printed, and --json is an array of them.
func TestDoctorRuns(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"doctor"}, stdio{in: strings.NewReader(""), out: &out, err: &errb}); rc != 0 {
		t.Fatalf("doctor: rc %d, %s", rc, errb.String())
	}
	for _, name := range []string{"user", "ptrace (Yama)", "TIOCSTI", "user namespaces", "bubblewrap", "SO_PEERPIDFD"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("doctor does not report %s:\n%s", name, out.String())
		}
	}
	out.Reset()
	if rc := run([]string{"doctor", "--json"}, stdio{in: strings.NewReader(""), out: &out, err: &errb}); rc != 0 {
		t.Fatalf("doctor --json: rc %d", rc)
	}
	var facts []fact
	if err := json.Unmarshal(out.Bytes(), &facts); err != nil || len(facts) != 6 {
		t.Fatalf("doctor --json: %v, %d facts:\n%s", err, len(facts), out.String())
	}
}
