package agent

import (
	"errors"

	"golang.org/x/sys/unix"

	"tickmux/host"
	"tickmux/host/journal"
	"tickmux/tick/wire"
)

// peer is the connection's other end as the kernel saw it (SO_PEERCRED), for the journal.
func (c *conn) peer() host.Peer {
	p := host.Peer{UID: -1}
	raw, err := c.nc.SyscallConn()
	if err != nil {
		return p
	}
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			p.PID, p.UID = int(cred.Pid), int(cred.Uid)
		}
	})
	return p
}

// journalOutcome is the journal's outcome of an open, close or send that was allowed.
func journalOutcome(err error) journal.Outcome {
	if err == nil {
		return journal.Outcome{Status: journal.StatusOK}
	}
	o := journal.Outcome{Status: journal.StatusError, Message: err.Error(), Effect: string(wire.EffectNone)}
	var e *Error
	if errors.As(err, &e) {
		o.Message = e.Message
		if e.Effect != "" {
			o.Effect = string(e.Effect)
		}
	}
	if o.Effect == string(wire.EffectUnknown) {
		o.Status = journal.StatusUnknown
	}
	return o
}
