package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// `tickmux check` takes --call-timeout and reports an example Tick as ok, in one JSON object.
// README "tickmux check".
func TestCheckCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envAsMain, "1") // the Tick is this binary playing tickmux: `tickmux example counter`
	var out, errOut bytes.Buffer
	code := runCheck([]string{"--json", "--watch", "200ms", "--call-timeout", "5s", "--", self, "example", "counter"}, stdio{out: &out, err: &errOut})
	var r struct {
		OK       bool              `json:"ok"`
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out.String())
	}
	if code != 0 || !r.OK {
		t.Fatalf("exit %d, report %s, stderr %s", code, out.String(), errOut.String())
	}

	errOut.Reset()
	if code := runCheck([]string{"--call-timeout", "soon", "--", self}, stdio{out: &out, err: &errOut}); code != 2 || !strings.Contains(errOut.String(), "call-timeout") {
		t.Fatalf("a bad --call-timeout: exit %d, %q", code, errOut.String())
	}
}

// Issue 42 item 3: `tickmux check` prints each step's line as the step is done, not all at the
// end (here the first lines come while check still watches for 60 s), and Ctrl-C stops it with
// "check interrupted: N probes run", exit 130, not "context canceled"; the Tick is ended.
func TestCheckShowsProgressAndStopsOnCtrlC(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "check", "--watch", "60s", "--", self, "example", "counter")
	cmd.Env = append(os.Environ(), envAsMain+"=1", "GORACE=atexit_sleep_ms=0")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() { // owner: the test; returns when check's stdout closes
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	timeout := time.After(25 * time.Second) // well before the watch ends
	for len(seen) == 0 || !strings.HasPrefix(seen[len(seen)-1], "  ok   initialize: ready in ") {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("check ended before its first step: %q %s", seen, errb.String())
			}
			seen = append(seen, l)
		case <-timeout:
			cmd.Process.Kill()
			t.Fatalf("no step's line within 25 s, while check watches for 60 s: %q", seen)
		}
	}
	if seen[0] != "tickmux check: "+self+" example counter" {
		t.Errorf("the first line is %q", seen[0])
	}
	cmd.Process.Signal(os.Interrupt)
	for l := range lines {
		seen = append(seen, l)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("check after Ctrl-C: %v, want exit 130", err)
	}
	if got := errb.String(); got != "tickmux check interrupted: 1 probe run, no verdict\n" {
		t.Errorf("check after Ctrl-C said %q; stdout:\n%s", got, strings.Join(seen, "\n"))
	}
	if all := strings.Join(seen, "\n") + errb.String(); strings.Contains(all, "context canceled") || strings.Contains(all, "PASS") {
		t.Errorf("check after Ctrl-C printed:\n%s", all)
	}
}
