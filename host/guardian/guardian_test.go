package guardian

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFieldsAndAtoi(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want []string
	}{
		{"watch 123 hup", []string{"watch", "123", "hup"}},
		{"  forget   7 ", []string{"forget", "7"}},
		{"", nil},
	} {
		if got := fields([]byte(c.msg)); !slices.Equal(got, c.want) {
			t.Errorf("fields(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
	for s, want := range map[string]int{"123": 123, "0": 0, "-5": 0, "1x": 0, "": 0, "99999999999999999999": 0} {
		if got := atoi(s); got != want {
			t.Errorf("atoi(%q) = %d, want %d", s, got, want)
		}
	}
}

const envEarlyChild = "TICKMUX_TEST_EARLY_CHILD"

// TestEarlyGuardianChild is TestEarlyGuardian's child: its init started a guardian (EnvEarly).
func TestEarlyGuardianChild(t *testing.T) {
	if os.Getenv(envEarlyChild) != "1" {
		t.Skip("the child of TestEarlyGuardian")
	}
	if v := os.Getenv(EnvEarly); v != "" {
		t.Fatalf("%s=%s is left for the programs this process starts", EnvEarly, v)
	}
	fd, pid, err, ok := Early()
	if !ok || err != nil {
		t.Fatalf("no guardian from init: ok %v, %v", ok, err)
	}
	env, err := os.ReadFile("/proc/" + itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains("\x00"+string(env), "\x00"+Env+"=1\x00") || strings.Contains(string(env), EnvEarly) {
		t.Fatalf("the guardian's environment: %q", env)
	}
	if pgid, _ := syscall.Getpgid(pid); pgid != pid {
		t.Fatalf("the guardian is in process group %d, not one of its own", pgid)
	}
	// Descriptor 3 is the parent's pipe, as the server's starter's: the guardian must not hold it.
	pipe, err := os.Readlink("/proc/self/fd/3")
	if err != nil || !strings.HasPrefix(pipe, "pipe:") {
		t.Fatalf("descriptor 3 is %q (%v), not the parent's pipe", pipe, err)
	}
	fds, _ := os.ReadDir("/proc/" + itoa(pid) + "/fd")
	for _, e := range fds {
		if l, _ := os.Readlink("/proc/" + itoa(pid) + "/fd/" + e.Name()); l == pipe {
			t.Fatalf("the guardian holds the pipe this process inherited, as its descriptor %s", e.Name())
		}
	}
	syscall.Close(fd) // this process's end: the guardian sees it gone and exits
	for deadline := time.Now().Add(10 * time.Second); !Ended(pid); {
		if time.Now().After(deadline) {
			t.Fatal("the guardian did not exit once its socket's other end closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
}

// A process started with EnvEarly has its guardian started by its package inits, and takes it
// with Early; the guardian holds nothing else the process inherited, and ends with the process's
// end of the socket.
func TestEarlyGuardian(t *testing.T) {
	if os.Getenv(envEarlyChild) == "1" {
		t.Skip("the parent's test")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEarlyGuardianChild$", "-test.v")
	cmd.Env = append(os.Environ(), envEarlyChild+"=1", EnvEarly+"=1")
	cmd.ExtraFiles = []*os.File{pw}
	out, err := cmd.CombinedOutput()
	pw.Close()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestEarlyGuardianChild") {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, _, _, ok := Early(); ok {
		t.Error("a process without EnvEarly has an early guardian")
	}
}

// spec: H-X1
// WaitGroupsGone waits for a group's members through pidfds: it looks for them once, then again
// only when one exits (a 20 ms poll looked ~25 times in the half second here), and reports the
// group gone once its last member is; a group that outlives the deadline is reported alive.
func TestWaitGroupsGone(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 0.5 & sleep 0.5 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait() // owner: the test; returns as the group's leader exits
	before := memberLooks.Load()
	if !WaitGroupsGone([]int{cmd.Process.Pid}, time.Now().Add(20*time.Second)) {
		t.Fatal("the group was reported alive after its members had exited")
	}
	if n := memberLooks.Load() - before; n > 6 {
		t.Errorf("looked for the members of a group of 3 processes %d times: a poll, not a wait on their exits", n)
	}
	if GroupAlive(cmd.Process.Pid) {
		t.Error("WaitGroupsGone returned with a member alive")
	}

	long := exec.Command("sleep", "100")
	long.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	defer long.Wait()
	defer long.Process.Kill()
	if WaitGroupsGone([]int{long.Process.Pid}, time.Now().Add(50*time.Millisecond)) {
		t.Error("a running group was reported gone at the deadline")
	}
}
