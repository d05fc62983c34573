package tick

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end a Tick at once. SIGTERM is how the host ends it (spec 4.5); SIGHUP comes when
// its terminal goes away; SIGINT when a person runs it in a shell without the UI's raw mode.
var stopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, os.Interrupt}

// notifyStop returns a context that ends when a stop signal arrives. Calling release restores
// the default actions, so a second signal during shutdown kills the process outright.
func notifyStop(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, stopSignals...)
}
