//go:build !unix

package tick

import "os"

// takeStdio on systems without dup2 serves on the standard files as they are; a stray print
// there still reaches the protocol.
func takeStdio() (in, out *os.File, err error) {
	return os.Stdin, os.Stdout, nil
}
