package server

import (
	"testing"

	"tickmux/internal/sockpath"
)

// After a detach the view says how to come back, with a command that works for the build in use.
func TestComeBack(t *testing.T) {
	t.Setenv(sockpath.EnvSocket, "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	def := sockpath.Path("")
	for _, c := range []struct{ exe, argv0, socket, want string }{
		// go run . demo: the build is in the go command's cache, and not on PATH.
		{"/root/.cache/go-build/ab/abcd-d/tickmux", "/root/.cache/go-build/ab/abcd-d/tickmux", def,
			"go run . attach   (in tickmux's source directory)"},
		{"/tmp/go-build123/b001/exe/tickmux", "/tmp/go-build123/b001/exe/tickmux", "/tmp/my sock",
			"go run . attach --socket '/tmp/my sock'   (in tickmux's source directory)"},
		// Found on PATH: by its name.
		{"/usr/local/bin/tickmux", "tickmux", def, "tickmux attach"},
		// Started by a path: that executable, wherever the person is.
		{"/home/me/src/tickmux/tickmux", "./tickmux", def, "/home/me/src/tickmux/tickmux attach"},
		{"/usr/local/bin/tickmux", "tickmux", "/tmp/s.sock", "tickmux attach --socket /tmp/s.sock"},
	} {
		if got := comeBack(c.exe, c.argv0, c.socket); got != c.want {
			t.Errorf("comeBack(%q, %q, %q) = %q, want %q", c.exe, c.argv0, c.socket, got, c.want)
		}
	}
}
