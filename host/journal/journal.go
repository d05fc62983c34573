package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// DefaultMaxTotal bounds all the journal's files together when the config says nothing.
const DefaultMaxTotal = 32 << 20

// Files is how many files the journal keeps: journal.jsonl and journal.1.jsonl up to
// journal.3.jsonl, each at most a quarter of the total.
const Files = 4

// MaxLine bounds one entry. A larger one loses its change (ChangeOmitted says how large it
// was), then its args and text, so the line still says who asked what and what was decided.
const MaxLine = 256 << 10

// Name is the current file's name; older ones are journal.N.jsonl.
const Name = "journal.jsonl"

// Journal appends entries. One mutex orders the writers of a process; each line goes out in one
// write on an O_APPEND descriptor, so lines from two processes never interleave within a line.
type Journal struct {
	dir     string
	perFile int64
	run     string
	mu      sync.Mutex
	f       *os.File
	size    int64
	needsNL bool // the file may end in a torn line: start the next one on a line of its own
}

// DefaultDir is $XDG_STATE_HOME/tickmux, or ~/.local/state/tickmux.
func DefaultDir() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find the journal: no XDG_STATE_HOME and no home directory: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "tickmux"), nil
}

// Open opens (creating) the journal in dir, keeping at most maxTotal bytes in all its files
// (0: DefaultMaxTotal). When it cannot, it says why and still returns a Journal, which tries
// again at each Append (and returns why it cannot): a journal never stops the server.
func Open(dir string, maxTotal int64) (*Journal, error) {
	if maxTotal <= 0 {
		maxTotal = DefaultMaxTotal
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	j := &Journal{dir: dir, perFile: max(maxTotal/Files, 4096), run: hex.EncodeToString(b[:])}
	return j, j.open()
}

// open opens journal.jsonl as logfile.go opens a log in a shared place: a directory or a file
// by that name that is a symbolic link, or not this uid's, is refused (someone may have planted
// it to have tickmux write, or chmod, where it should not), and only what was found to be ours
// is made private. Called with mu (or before the Journal is shared).
func (j *Journal) open() error {
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the journal's directory: %w", err)
	}
	dfd, err := unix.Open(j.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return fmt.Errorf("refusing the journal's directory %s: it is a symbolic link or not a directory; remove it", j.dir)
	}
	if err != nil {
		return fmt.Errorf("cannot open the journal's directory: %w", err)
	}
	defer unix.Close(dfd)
	if err := mine(dfd, "the journal's directory "+j.dir, unix.S_IFDIR, 0o700); err != nil {
		return err
	}
	name := path(j.dir, 0)
	fd, err := unix.Openat(dfd, Name, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return fmt.Errorf("refusing the journal %s: it is a symbolic link; remove it", name)
	}
	if err != nil {
		return fmt.Errorf("cannot open the journal: %w", err)
	}
	f := os.NewFile(uintptr(fd), name)
	if err := mine(fd, "the journal "+name, unix.S_IFREG, 0o600); err != nil {
		f.Close()
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("cannot open the journal: %w", err)
	}
	j.f, j.size, j.needsNL = f, st.Size(), false
	if st.Size() > 0 {
		// A server killed in the middle of a write left a torn last line.
		var last [1]byte
		if _, err := f.ReadAt(last[:], st.Size()-1); err == nil && last[0] != '\n' {
			j.needsNL = true
		}
	}
	return nil
}

// mine checks that fd (what names says) is of type typ and this uid's, and makes it private
// (perm) when it is wider: made so by hand, or by an older tickmux. Only a descriptor found to be
// ours is changed.
func mine(fd int, names string, typ uint32, perm uint32) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("cannot check %s: %w", names, err)
	}
	switch {
	case st.Mode&unix.S_IFMT != typ:
		return fmt.Errorf("refusing %s: it is not a %s; remove it", names, map[uint32]string{unix.S_IFDIR: "directory", unix.S_IFREG: "regular file"}[typ])
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("refusing %s: it belongs to uid %d, not to you (uid %d)", names, st.Uid, os.Getuid())
	case st.Mode&0o077 != 0:
		if err := unix.Fchmod(fd, perm); err != nil {
			return fmt.Errorf("cannot make %s private: %w", names, err)
		}
	}
	return nil
}

// Run names this server's life (card numbers are per run).
func (j *Journal) Run() string { return j.run }

// Append writes e as one line, with e.Run and (if zero) e.Time filled in by the caller's
// Journal. It returns why it could not; the caller goes on all the same.
func (j *Journal) Append(e Entry) error {
	e.Run = j.run
	return j.append(e)
}

// AppendOfRun writes e as Append does but under e.Run, another server's run: the outcome line of
// a card that a server which died left waiting (its waiting line is of its run).
func (j *Journal) AppendOfRun(e Entry) error {
	if e.Run == "" {
		e.Run = j.run
	}
	return j.append(e)
}

func (j *Journal) append(e Entry) error {
	line, err := encode(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil && !j.current() {
		j.f.Close() // another process rotated the files: follow it to the new journal.jsonl
		j.f = nil
	}
	if j.f == nil {
		if err := j.open(); err != nil {
			return err
		}
	}
	if j.size > 0 && j.size+int64(len(line)) > j.perFile {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	if j.needsNL {
		line = append([]byte{'\n'}, line...)
	}
	n, err := j.f.Write(line)
	j.size += int64(n)
	if err != nil {
		j.needsNL = n > 0 || j.needsNL
		return fmt.Errorf("cannot write the journal %s: %w", j.f.Name(), err)
	}
	j.needsNL = false
	return nil
}

// current reports whether the open file is still journal.jsonl. Called with mu.
func (j *Journal) current() bool {
	fi, err := os.Stat(path(j.dir, 0))
	if err != nil {
		return false
	}
	mine, err := j.f.Stat()
	return err == nil && os.SameFile(fi, mine)
}

// rotate shifts journal.jsonl to journal.1.jsonl and so on, dropping the oldest. Called with mu.
func (j *Journal) rotate() error {
	j.f.Close()
	j.f = nil
	for i := Files - 1; i >= 1; i-- {
		from := path(j.dir, i-1)
		if err := os.Rename(from, path(j.dir, i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot rotate the journal: %w", err)
		}
	}
	return j.open()
}

// Close closes the current file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// path is the i-th file: 0 the current one.
func path(dir string, i int) string {
	if i == 0 {
		return filepath.Join(dir, Name)
	}
	return filepath.Join(dir, "journal."+strconv.Itoa(i)+".jsonl")
}

// encode marshals e on one line within MaxLine.
func encode(e Entry) ([]byte, error) {
	line, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("cannot encode a journal entry: %w", err)
	}
	if len(line) >= MaxLine && e.Change != nil {
		e.ChangeOmitted, e.Change = len(line), nil
		line, _ = json.Marshal(e)
	}
	if len(line) >= MaxLine {
		e.Args, e.Text, e.Argv = json.RawMessage(`"(omitted: too large for the journal)"`), "", nil
		line, _ = json.Marshal(e)
	}
	return append(line, '\n'), nil
}

// Read returns the entries of all the journal's files in dir, oldest first, skipping lines that
// are not whole entries; skipped counts them.
func Read(dir string) (entries []Entry, skipped int, err error) {
	for i := Files - 1; i >= 0; i-- {
		data, err := os.ReadFile(path(dir, i))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("cannot read the journal: %w", err)
		}
		es, n := Parse(data)
		entries = append(entries, es...)
		skipped += n
	}
	return entries, skipped, nil
}

// Entries reads the journal back (Read, then Collapse).
func (j *Journal) Entries() ([]Entry, error) {
	es, _, err := Read(j.dir)
	return Collapse(es), err
}

// Parse reads entries from JSON Lines, skipping lines that are not whole entries.
func Parse(data []byte) (entries []Entry, skipped int) {
	for len(data) > 0 {
		line := data
		i := bytes.IndexByte(data, '\n')
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil || e.Decision == "" || e.Time.IsZero() {
			skipped++
			continue
		}
		entries = append(entries, e)
	}
	return entries, skipped
}

var _ io.Closer = (*Journal)(nil)
