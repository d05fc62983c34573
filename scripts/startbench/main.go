// Command startbench is the timer of scripts/bench-start: it runs one command in a fresh PTY,
// feeds what the command draws to a terminal emulator (tickmux's vt, which answers queries as a
// terminal would), and prints how long after the exec the first byte, the first frame and the
// prompt showed, in milliseconds:
//
//	startbench [-size COLSxROWS] [-frame TEXT] [-prompt TEXT] [-keys KEYS] [-timeout D] -- CMD [ARG...]
//	first_byte=12.3 frame=30.1 prompt=41.0
//
// The frame is there when TEXT (a piece of the status bar, say) is on the emulated screen, the
// prompt when the prompt's TEXT is. Then KEYS (Go escapes, as "\x02d" for prefix d) are typed and
// the command is waited for; with no KEYS the PTY is closed (a hang-up). A figure that never
// showed within the timeout is printed as "-" and the exit status is 1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"

	"tickmux/vt"
)

func main() {
	size := flag.String("size", "160x45", "the terminal's COLSxROWS")
	frame := flag.String("frame", "", "text on the screen that means the first frame is drawn")
	prompt := flag.String("prompt", "", "text on the screen that means the prompt is visible")
	keys := flag.String("keys", "", "keys to type once the prompt shows (Go escapes), then wait for the command to end")
	timeout := flag.Duration("timeout", 10*time.Second, "how long to wait for each figure")
	trace := flag.String("trace", "", "append each read's time from the exec and its bytes (quoted) to this file")
	flag.Parse()
	var cols, rows int
	if _, err := fmt.Sscanf(*size, "%dx%d", &cols, &rows); err != nil || cols <= 0 || rows <= 0 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: startbench [-size COLSxROWS] [-frame TEXT] [-prompt TEXT] [-keys KEYS] [-timeout D] -- CMD [ARG...]")
		os.Exit(2)
	}
	typed, err := strconv.Unquote(`"` + *keys + `"`)
	if err != nil {
		fmt.Fprintf(os.Stderr, "startbench: -keys %q: %v\n", *keys, err)
		os.Exit(2)
	}
	var tw io.Writer
	if *trace != "" {
		f, err := os.OpenFile(*trace, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(os.Stderr, "startbench: -trace: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		tw = f
	}
	r, err := measure(flag.Args(), cols, rows, *frame, *prompt, typed, *timeout, tw)
	fmt.Println(r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "startbench: %v\n", err)
		os.Exit(1)
	}
}

// result holds the three figures; a negative one never showed.
type result struct{ firstByte, frame, prompt time.Duration }

func (r result) String() string {
	ms := func(d time.Duration) string {
		if d < 0 {
			return "-"
		}
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64)
	}
	return "first_byte=" + ms(r.firstByte) + " frame=" + ms(r.frame) + " prompt=" + ms(r.prompt)
}

func measure(argv []string, cols, rows int, frame, prompt, keys string, timeout time.Duration, trace io.Writer) (result, error) {
	r := result{-1, -1, -1}
	cmd := exec.Command(argv[0], argv[1:]...)
	// One read buffer, touched before the clock starts: a fresh 64 KiB a read would page-fault its
	// way in while the clock runs (on this kind of VM a fault costs 15-50 us), and the more for a
	// program whose frame comes in more reads.
	b := make([]byte, 64<<10)
	for i := range b {
		b[i] = 1
	}
	// The emulator too is made before: it answers the command's queries once the PTY is there.
	replies := &replyWriter{}
	term := vt.New(cols, rows, replies)
	t0 := time.Now()
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return r, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // owner: measure; returns when the command ends
	replies.w = master
	type chunk struct {
		at time.Time
		b  []byte
	}
	out := make(chan chunk, 64)
	go func() { // owner: measure; returns when the PTY closes
		defer close(out)
		for {
			n, err := master.Read(b)
			if n > 0 {
				at := time.Now()
				out <- chunk{at, append([]byte(nil), b[:n]...)}
			}
			if err != nil {
				return
			}
		}
	}()
	deadline := time.NewTimer(timeout)
	var failed error
wait:
	for r.prompt < 0 || (frame != "" && r.frame < 0) {
		select {
		case c, ok := <-out:
			if !ok {
				failed = errors.New("the command ended before the prompt showed")
				break wait
			}
			if r.firstByte < 0 {
				r.firstByte = c.at.Sub(t0)
			}
			if trace != nil {
				fmt.Fprintf(trace, "%8.3f %5d %q\n", float64(c.at.Sub(t0).Microseconds())/1000, len(c.b), c.b)
			}
			term.Write(c.b)
			text := term.Text()
			if frame != "" && r.frame < 0 && strings.Contains(text, frame) {
				r.frame = c.at.Sub(t0)
			}
			if r.prompt < 0 && (prompt == "" || strings.Contains(text, prompt)) {
				r.prompt = c.at.Sub(t0)
			}
		case <-deadline.C:
			failed = fmt.Errorf("after %v the screen shows:\n%s", timeout, term.Text())
			break wait
		}
	}
	go func() { // owner: measure; drains the PTY so the command never blocks writing to it
		for range out {
		}
	}()
	if keys != "" && failed == nil {
		master.Write([]byte(keys))
		select {
		case <-exited:
		case <-time.After(timeout):
			failed = fmt.Errorf("the command did not end after the keys %q", keys)
		}
	}
	master.Close()
	select {
	case <-exited:
	case <-time.After(timeout):
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	}
	return r, failed
}

// replyWriter sends what the emulator answers to the terminal's queries to w, once it is set.
type replyWriter struct{ w io.Writer }

func (r *replyWriter) Write(p []byte) (int, error) {
	if r.w == nil {
		return len(p), nil
	}
	return r.w.Write(p)
}
