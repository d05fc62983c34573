package server

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"tickmux/internal/peer"
)

// Views come from the person's terminals, never from inside tickmux. A program in a pane has
// TICKMUX_SOCKET and `tickmux` on its PATH (so that it can use the CLI verbs), and could
// otherwise attach a view of its own (`script -c 'tickmux attach'` with keys piped in) and
// answer its own cards; a view attached in one of tickmux's own panes reads that pane's keys
// and draws into the pane it reads, for ever. As tmux refuses a nested client, the server
// refuses such a view; unlike tmux it decides itself, from what the kernel says, not from an
// environment variable the client could unset:
//
//   - the process that connected (pinned by a pidfd, internal/peer) descends from the server:
//     every program in a
//     pane is a child of the server, and the host is a child subreaper (host/reaper.go), so what
//     a program leaves behind (double-forked, setsid, daemonised) is reparented to the server,
//     not to init, and still descends from it;
//   - the terminal the view passes is one of the server's own PTYs (host.HoldsTerminal).
//
// What it does not catch: a program that asks a process outside tickmux to attach for it
// (another terminal multiplexer's server, systemd-run, ssh to this machine): that process is
// the person's code running outside tickmux, which can attach a terminal as it can with tmux.

// errNested is the refusal's message, on the refused terminal and in the log.
const errNested = "cannot attach from inside tickmux (this view would run in one of its own panes): attach from a terminal outside tickmux"

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	state byte // R, S, T (stopped), ...
	ppid  int
	pgrp  int
	sid   int
	ttyNr uint64 // its controlling terminal's device number; 0: none
	tpgid int    // the foreground process group of its controlling terminal; -1: none
}

// readProcStat reads /proc/PID/stat.
func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(b)
}

// errProcStat is the error for a /proc stat line that does not read as one.
var errProcStat = errors.New("unreadable /proc stat")

// parseProcStat reads a /proc/PID/stat line without allocating (the view's check runs before
// every read and every frame). The command name, in parentheses, may hold anything, so the
// fields are read after its last parenthesis.
func parseProcStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errProcStat
	}
	b = b[i+1:]
	var f [6][]byte // state ppid pgrp session tty_nr tpgid
	for k := range f {
		b = bytes.TrimLeft(b, " ")
		j := bytes.IndexAny(b, " \n")
		if j < 0 {
			j = len(b)
		}
		if j == 0 {
			return procStat{}, errProcStat
		}
		f[k], b = b[:j], b[j:]
	}
	if len(f[0]) != 1 {
		return procStat{}, errProcStat
	}
	var st procStat
	st.state = f[0][0]
	var tty int
	for k, p := range []*int{&st.ppid, &st.pgrp, &st.sid, &tty, &st.tpgid} {
		n, ok := atoi(f[1+k])
		if !ok {
			return procStat{}, errProcStat
		}
		*p = n
	}
	st.ttyNr = uint64(uint32(tty))
	return st, nil
}

// atoi reads a decimal int, maybe negative (tpgid is -1 with no terminal), without allocating.
func atoi(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// insideServer reports whether the pinned process p is this server or descends from it; an
// error when its ancestry cannot be read, or when p has exited (peer.ErrGone): a process that
// connected and exited cannot be told from a later one that took its pid, which is how a pane's
// program once passed as a process outside tickmux.
func insideServer(p *peer.Process) (bool, error) {
	self := os.Getpid()
	inside, err := p.Ancestry(func(pid int) bool { return pid == self })
	if errors.Is(err, peer.ErrGone) {
		return false, errors.New("the process that asked to attach has exited")
	}
	if err != nil {
		return false, fmt.Errorf("cannot read the view's process: %w", err)
	}
	return inside, nil
}
