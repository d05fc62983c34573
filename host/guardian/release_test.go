package guardian

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exeResident is the KiB of process pid's read-only mappings of its executable that are resident.
func exeResident(t *testing.T, pid int) int {
	t.Helper()
	resident, _ := exeMappings(t, pid)
	return resident
}

// exeMappings is the KiB of process pid's read-only mappings of its executable: resident, and in
// all.
func exeMappings(t *testing.T, pid int) (resident, size int) {
	t.Helper()
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/"+itoa(pid)+"/exe", &exe); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/smaps")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range parseSmaps(b) {
		if m.inode == exe.Ino && m.major == devMajor(exe.Dev) && m.minor == devMinor(exe.Dev) && (string(m.perms[:]) == "r-xp" || string(m.perms[:]) == "r--p") {
			resident += m.rss
			size += int(m.end-m.start) >> 10
		}
	}
	return resident, size
}

// parseSmaps reads the mappings of smaps text b as readSmaps does.
func parseSmaps(b []byte) []mapping {
	f, err := os.CreateTemp("", "smaps")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		panic(err)
	}
	f.Seek(0, 0)
	var out []mapping
	readSmaps(int(f.Fd()), func(m mapping) { out = append(out, m) })
	return out
}

const (
	envReleaseChild = "TICKMUX_TEST_RELEASE_CHILD"
	envExpectKept   = "TICKMUX_TEST_RELEASE_KEPT" // the binary is PIE: a written mapping must stay
)

// TestReleaseCodeChild is the waiting process of TestReleaseCode (run only as its child): at each
// line on stdin it releases its code (the first) or computes and answers (the others), then waits.
func TestReleaseCodeChild(t *testing.T) {
	if os.Getenv(envReleaseChild) != "1" {
		t.Skip("the child of TestReleaseCode")
	}
	in := bufio.NewReader(os.Stdin)
	os.Stdout.WriteString("ready\n")
	for n := 0; ; n++ {
		line, err := in.ReadString('\n')
		if err != nil {
			os.Exit(0)
		}
		if n == 0 {
			os.Stdout.WriteString("released " + itoa(ReleaseCode()) + " KiB\n")
			continue
		}
		if line == "wake\n" {
			WakeCode()
			os.Stdout.WriteString("woken\n")
			continue
		}
		runtime.GC()
		var sb strings.Builder
		for i := 0; i < 1000; i++ {
			sb.WriteString(itoa(i))
		}
		fmt.Println("computed", len(sb.String())) // fmt: much of the binary it had not touched
	}
}

// A waiting process gives back the binary's pages its start touched, and goes on working.
func TestReleaseCode(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestReleaseCodeChild$")
	cmd.Env = append(os.Environ(), envReleaseChild+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	say := func(want string) string {
		t.Helper()
		line, err := out.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, want) {
			t.Fatalf("the child said %q (%v), want %s", line, err, want)
		}
		return line
	}
	say("ready")
	pid := cmd.Process.Pid
	before := exeResident(t, pid)
	io.WriteString(stdin, "release\n")
	line := say("released")
	after := exeResident(t, pid)
	released := atoi(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "released "), " KiB"))
	if os.Getenv(envExpectKept) == "1" && released >= before {
		t.Errorf("released %d KiB of %d: the mapping the loader wrote to was released too", released, before)
	}
	t.Logf("the waiting child's resident read-only pages of its executable: %d KiB, %d KiB after it %s", before, after, strings.TrimSpace(line))
	if after > before*2/3 {
		t.Errorf("%d KiB resident before the release, %d KiB after", before, after)
	}
	for i := 0; i < 3; i++ {
		io.WriteString(stdin, "compute\n")
		say("computed 2890")
	}
	t.Logf("after it worked again: %d KiB", exeResident(t, pid))
}

// Built as a position-independent executable, the binary has a read-only mapping its loader
// wrote relocations into before protecting it: those pages are the process's own, and releasing
// them would bring back the unrelocated file. That mapping stays, and the process goes on working.
func TestReleaseCodeKeepsWrittenMappings(t *testing.T) {
	if os.Getenv(envReleaseChild) == "1" {
		t.Skip("the parent's test")
	}
	bin := filepath.Join(t.TempDir(), "guardian-pie.test")
	build := exec.Command("go", "test", "-c", "-buildmode=pie", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c -buildmode=pie: %v\n%s", err, out)
	}
	run := exec.Command(bin, "-test.run=^TestReleaseCode$", "-test.v")
	run.Env = append(os.Environ(), envExpectKept+"=1")
	out, err := run.CombinedOutput()
	t.Logf("%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: TestReleaseCode") {
		t.Fatalf("the PIE build's TestReleaseCode: %v", err)
	}
}

// smaps is read as the kernel writes it: a mapping with a page the process wrote to (Anonymous),
// or whose Anonymous line is missing, is never released; dirty file pages are not the process's.
func TestParseSmaps(t *testing.T) {
	const smaps = `00400000-0092e000 r-xp 00000000 fd:01 12345678901                        /usr/bin/tickmux
Size:               5304 kB
Rss:                1472 kB
Shared_Dirty:       1472 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me dw
0092e000-00ea4000 r--p 0052e000 fd:01 12345678901                        /usr/bin/tickmux
Rss:                3152 kB
Shared_Dirty:          0 kB
Private_Dirty:         8 kB
Anonymous:             8 kB
00ea4000-00f5c000 rw-p 00aa4000 fd:01 12345678901                        /usr/bin/tickmux
Rss:                 176 kB
7ffd1c3f2000-7ffd1c413000 rw-p 00000000 00:00 0                          [stack]
Rss:                  12 kB
`
	ms := parseSmaps([]byte(smaps))
	if len(ms) != 4 {
		t.Fatalf("%d mappings, want 4: %+v", len(ms), ms)
	}
	if m := ms[0]; m.start != 0x400000 || m.end != 0x92e000 || string(m.perms[:]) != "r-xp" || m.major != 0xfd || m.minor != 1 || m.inode != 12345678901 || m.rss != 1472 || m.anon != 0 {
		t.Errorf("first mapping read as %+v", m)
	}
	if m := ms[1]; m.anon != 8 || m.rss != 3152 {
		t.Errorf("written mapping read as %+v", m)
	}
	if m := ms[2]; m.anon != -1 {
		t.Errorf("a mapping without its Anonymous line read as %+v", m)
	}
	if m := ms[3]; m.start != 0x7ffd1c3f2000 || m.inode != 0 || m.rss != 12 {
		t.Errorf("stack read as %+v", m)
	}
	if got := parseSmaps([]byte("zz-00 r-xp 0 fd:01 1 /x\nRss: 4 kB\n")); len(got) != 0 {
		t.Errorf("a mapping line it cannot read gave %+v", got)
	}
	for dev, want := range map[uint64][2]uint64{0xfd01: {0xfd, 1}, 0x803: {8, 3}, 0: {0, 0}, 0x100803: {8, 0x103}} {
		if got := [2]uint64{devMajor(dev), devMinor(dev)}; got != want {
			t.Errorf("device %#x read as %x:%x, want %x:%x", dev, got[0], got[1], want[0], want[1])
		}
	}
}

// A release allocates (next to) nothing, whatever the size of smaps: in a process that does not
// allocate otherwise (the guardian, a view), its garbage stayed on the heap until a collection
// that did not come.
func TestReleaseCodeAllocatesNothing(t *testing.T) {
	if os.Getenv(envReleaseChild) == "1" {
		t.Skip("the parent's test")
	}
	if allocs := testing.AllocsPerRun(5, func() { ReleaseCode() }); allocs > 2 { // the two paths (syscall copies them to add their NUL)
		t.Errorf("a release made %v allocations, want 2 at most", allocs)
	}
}

// smaps is read through a buffer smaller than the file: lines cut across reads are read whole,
// and a line longer than the buffer (a mapping's path) ends the mapping before it without
// handing that line's mapping out, and what follows it is read.
func TestReadSmapsThroughItsBuffer(t *testing.T) {
	var b strings.Builder
	want := 0
	for i := 0; b.Len() < 5*len(smaps.buf); i++ {
		fmt.Fprintf(&b, "%x-%x r-xp 00000000 fd:01 %d        /usr/bin/tickmux-%d\nSize: 4 kB\nRss:  %d kB\nAnonymous: %d kB\n", 0x1000*i, 0x1000*i+0x1000, 100+i, i, i, i%3)
		want++
		if i == 40 {
			fmt.Fprintf(&b, "7f00-7f01 rw-p 0 00:00 0 /%s\nRss: 999 kB\nAnonymous: 999 kB\n", strings.Repeat("x", len(smaps.buf)+10))
		}
	}
	ms := parseSmaps([]byte(b.String()))
	if len(ms) != want {
		t.Fatalf("%d mappings read, want %d", len(ms), want)
	}
	for i, m := range ms {
		if m.start != uintptr(0x1000*i) || m.inode != uint64(100+i) || m.rss != i || m.anon != i%3 || string(m.perms[:]) != "r-xp" {
			t.Fatalf("mapping %d read as %+v", i, m)
		}
	}
}

// After a release, WakeCode maps the binary's pages back in one go, without the process touching
// them (MADV_POPULATE_READ, Linux 5.14).
func TestWakeCodeMapsThePagesBack(t *testing.T) {
	if os.Getenv(envReleaseChild) == "1" {
		t.Skip("the parent's test")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReleaseCodeChild$")
	cmd.Env = append(os.Environ(), envReleaseChild+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	say := func(want string) {
		t.Helper()
		if line, err := out.ReadString('\n'); err != nil || !strings.HasPrefix(line, want) {
			t.Fatalf("the child said %q (%v), want %s", line, err, want)
		}
	}
	say("ready")
	pid := cmd.Process.Pid
	io.WriteString(stdin, "release\n")
	say("released")
	released, size := exeMappings(t, pid)
	io.WriteString(stdin, "wake\n")
	say("woken")
	for deadline := time.Now().Add(10 * time.Second); ; {
		got := exeResident(t, pid)
		if got >= size*9/10 {
			t.Logf("resident read-only pages of the executable: %d KiB released, %d KiB of %d after WakeCode", released, got, size)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d KiB of %d resident 10 s after WakeCode (%d after the release)", got, size, released)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
