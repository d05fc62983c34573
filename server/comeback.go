package server

import (
	"os"
	"path/filepath"
	"strings"

	"tickmux/internal/sockpath"
)

// comeBack is the command that shows the server on socket again after a detach, for the build in
// use: `go run . attach` for a build the go command made and keeps in its cache (`go run . demo`:
// no tickmux is on the person's PATH), else the executable as it was started, by its name when
// PATH found it, by its path when not. The socket is named when it is not the one tickmux would
// find by itself.
func comeBack(exe, argv0, socket string) string {
	cmd := exe + " attach"
	switch {
	case strings.Contains(exe, "/go-build"):
		cmd = "go run . attach"
	case argv0 != "" && !strings.Contains(argv0, "/"):
		cmd = argv0 + " attach"
	case exe == "":
		cmd = "tickmux attach"
	}
	if socket != sockpath.Path("") {
		cmd += " --socket " + shellQuote(socket)
	}
	if strings.Contains(exe, "/go-build") {
		cmd += "   (in tickmux's source directory)"
	}
	return cmd
}

// comeBackHint is comeBack for this process.
func comeBackHint(socket string) string {
	exe, _ := os.Executable()
	argv0 := ""
	if len(os.Args) > 0 {
		argv0 = os.Args[0]
	}
	if exe != "" && !filepath.IsAbs(exe) {
		exe = ""
	}
	return comeBack(exe, argv0, socket)
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain path characters.
func shellQuote(s string) string {
	plain := s != ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '.' || c == '-' || c == '_' || c == '+' || c == ':' || c == ',' || c == '@' || c == '%') {
			plain = false
		}
	}
	if plain {
		return s
	}
	q := "'"
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			q += `'\''`
		} else {
			q += s[i : i+1]
		}
	}
	return q + "'"
}
