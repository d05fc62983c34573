package agent

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// maxEditedFile bounds the file an edit's diff is made against: a larger one is not read.
const maxEditedFile = 4 << 20

// errNoFile: the file an edit names is not there (a Write of a new file).
var errNoFile = errors.New("no such file")

// readEditedFile reads the file on disk an edit's diff is made against, or says in a card's words
// why it does not (errNoFile when there is none). Whatever the path names, it never blocks: a
// FIFO, a socket, a device or a directory is named, not read (an open(2) of a FIFO without
// O_NONBLOCK waits for a writer forever, and each such request held one of the server's threads
// until Go's 10,000-thread limit ended the server); a regular file is read up to maxEditedFile.
func readEditedFile(path string) (string, error) {
	// A look first, so that a device is not even opened (opening some has effects); the open
	// descriptor's fstat below decides, whatever the path became in between.
	var st unix.Stat_t
	switch err := unix.Stat(path, &st); {
	case errors.Is(err, unix.ENOENT):
		return "", errNoFile
	case err != nil:
		return "", fmt.Errorf("cannot read the file on disk: %w", &os.PathError{Op: "stat", Path: path, Err: err})
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "", notRegular(st.Mode)
	}
	return readRegular(path)
}

// readRegular opens path without waiting (O_NONBLOCK: a FIFO's open returns at once) and reads
// it only when the open descriptor is a regular file of at most maxEditedFile bytes.
func readRegular(path string) (string, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if errors.Is(err, unix.ENOENT) {
		return "", errNoFile
	}
	if err != nil {
		return "", fmt.Errorf("cannot read the file on disk: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", fmt.Errorf("cannot read the file on disk: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return "", notRegular(st.Mode)
	}
	if st.Size > maxEditedFile {
		return "", tooLarge(st.Size)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxEditedFile+1))
	if err != nil {
		return "", fmt.Errorf("cannot read the file on disk: %w", err)
	}
	if len(b) > maxEditedFile { // it grew as it was read
		return "", tooLarge(int64(len(b)))
	}
	return string(b), nil
}

func tooLarge(size int64) error {
	return fmt.Errorf("the file on disk is too large to diff (%s; the bound is %d MiB)", sizeText(size), maxEditedFile>>20)
}

func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// notRegular names what a path that is not a regular file is.
func notRegular(mode uint32) error {
	what := "not a file tickmux knows"
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		what = "a FIFO"
	case unix.S_IFSOCK:
		what = "a socket"
	case unix.S_IFCHR:
		what = "a character device"
	case unix.S_IFBLK:
		what = "a block device"
	case unix.S_IFDIR:
		what = "a directory"
	}
	return fmt.Errorf("not a regular file: %s", what)
}
