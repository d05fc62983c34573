// Command startfloor is the floor under any Go view client's start, for scripts/bench-start: it
// writes the marks a view's first frame and prompt would show, and nothing else, then waits for
// its terminal to close. Its time to the first byte is the Go runtime's own start on this machine.
package main

import (
	"io"
	"os"
)

func main() {
	os.Stdout.WriteString(os.Args[1])
	io.Copy(io.Discard, os.Stdin)
}
