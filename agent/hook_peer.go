package agent

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"tickmux/host"
	pinned "tickmux/internal/peer"
)

// checkOwnServer makes sure the process listening at the other end of nc is the tickmux whose pane
// the hook runs in: one of the hook's own ancestors. A program in a pane can rename the socket
// $TICKMUX_SOCKET names and listen in its place; without this check the hook would print whatever
// that listener answered, an allow included. The listener is pinned with a pidfd (SO_PEERPIDFD,
// internal/peer) and the hook's ancestry walked with each parent pinned, so a listener that exited
// and whose pid went to one of the hook's ancestors cannot pass.
func checkOwnServer(nc net.Conn) error {
	if sandboxedServer(nc) {
		return nil
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return errors.New("cannot tell which process listens on the socket: not a socket connection")
	}
	server, err := pinned.Of(sc)
	if err != nil {
		return fmt.Errorf("cannot tell which process listens on the socket: %w", err)
	}
	defer server.Close()
	self, err := pinned.Self()
	if err != nil {
		return err
	}
	defer self.Close()
	found, err := self.Ancestry(func(pid int) bool { return pid == server.Pid })
	switch {
	case err != nil:
		return fmt.Errorf("cannot read this hook's ancestry: %w", err)
	case !found:
		return fmt.Errorf("the process listening on the socket (pid %d) is not the tickmux this hook runs under (none of its ancestors): "+
			"a program may have put its own socket in tickmux's place", server.Pid)
	case !server.Alive():
		return fmt.Errorf("the process listening on the socket (pid %d) exited while it was checked", server.Pid)
	}
	return nil
}

// sandboxedServer is the one exception to checkOwnServer: a hook in a sandboxed pane
// (TICKMUX_SANDBOX=1) whose server the kernel reports as pid 0, that is outside the hook's pid
// namespace. The sandbox reaches the server through a read-only bind mount of its socket, which no
// program in the sandbox can replace, and no ancestry reaches out of the namespace to check. Both
// conditions are needed: the variable alone (any program can set it) skips nothing.
func sandboxedServer(nc net.Conn) bool {
	if os.Getenv(host.EnvSandbox) != "1" {
		return false
	}
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return false
	}
	pid, err := peerPID(uc)
	return err == nil && pid == 0
}
