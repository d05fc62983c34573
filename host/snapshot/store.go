package snapshot

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// MaxScrollback is how many lines of a pane's scrollback a snapshot keeps (the caller trims).
const MaxScrollback = 2000

// maxFile bounds what a reader reads of one snapshot.
const maxFile = 64 << 20

// Retention: the newest keepNewest generations stay, and of the older ones at most one per clock
// hour of the last spacedFor (the oldest of that hour, so that a kept one stays kept).
const (
	keepNewest = 5
	spacedFor  = 24 * time.Hour
	staleTemp  = time.Minute // a temporary this old was left by a writer that died
)

// Names of the files: snapshot-20061207T180305.000Z-000042.json; the time is UTC, when the
// generation was written, to the millisecond; the sequence (modulo a million) breaks ties. Both
// are of fixed width, so the names sort as the generations were written. A temporary is
// .snapshot-<random>.tmp: readers never see it.
const (
	genPrefix  = "snapshot-"
	genSuffix  = ".json"
	timeLayout = "20060102T150405.000Z"
	seqDigits  = 6
	seqMod     = 1_000_000
	tmpPrefix  = ".snapshot-"
	tmpSuffix  = ".tmp"
)

// Dir is the directory that holds the snapshots of the server on socket: in stateDir (the
// caller's $XDG_STATE_HOME/tickmux), restore/NAME-HASH, NAME the socket's base name without
// ".sock" and HASH the first 8 hex digits of the SHA-256 of the socket's (cleaned) path, so that
// two sockets of one name in different directories do not share one.
func Dir(stateDir, socket string) string {
	socket = filepath.Clean(socket)
	name := strings.TrimSuffix(filepath.Base(socket), ".sock")
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "socket"
	}
	sum := sha256.Sum256([]byte(socket))
	return filepath.Join(stateDir, "restore", name+"-"+hex.EncodeToString(sum[:])[:8])
}

// Store writes the generations of one server's snapshot in its directory (Dir).
//
// Each Write that changes something is a new file, a generation, named
// snapshot-<UTC time, 20061207T180305.000Z>-<6-digit sequence>.json, so that the names sort as
// the generations were written (a clock set back does not reorder them: a name is never before
// the last one). A generation is written whole to a temporary in the same directory (0600,
// fsynced), then renamed to its name and the directory fsynced: a reader, or a start after a
// kill -9 or a power cut at any instant, sees either the previous generation or this one, never a
// torn one. Temporaries (.snapshot-*.tmp) are never read; those older than a minute, left by a
// writer that died, are removed at Open. After each write the oldest generations are removed:
// the 5 newest stay, and of the older ones of the last 24 hours one per clock hour, so at most
// 30 files remain. End writes a last generation that says how the server ended.
//
// A Store is safe for concurrent use.
type Store struct {
	dir string
	now func() time.Time // time.Now; tests set a clock

	mu       sync.Mutex
	dfd      int    // the directory, opened once and checked; -1 once closed
	lastName string // the newest generation's name: the next one sorts after it
	lastTime time.Time
	seq      int
	lastKey  [32]byte // SHA-256 of the last encoding written, its Time zeroed
	last     *Session // what was last written, for End; nil before the first Write
}

// Open opens (creating, 0700 with its parents) the store in dir. A dir that is a symbolic link
// or not a directory, or that belongs to another uid, is refused: someone may have planted it
// to read the snapshots or to have tickmux write where it should not. A dir of this uid's that
// others may use is made private. Close releases it.
func Open(dir string) (*Store, error) {
	mkErr := os.MkdirAll(dir, 0o700)
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR):
		return nil, fmt.Errorf("refusing the snapshots' directory %s: it is a symbolic link or not a directory; remove it", dir)
	case err != nil && mkErr != nil:
		return nil, fmt.Errorf("cannot create the snapshots' directory: %w", mkErr)
	case err != nil:
		return nil, fmt.Errorf("cannot open the snapshots' directory: %w", err)
	}
	if err := mine(dfd, dir); err != nil {
		unix.Close(dfd)
		return nil, err
	}
	s := &Store{dir: dir, now: time.Now, dfd: dfd}
	names, err := s.names()
	if err != nil {
		unix.Close(dfd)
		return nil, err
	}
	s.removeStale(names)
	if gens := generations(names); len(gens) > 0 {
		// Go on after the newest generation there is, whoever wrote it.
		s.lastName = gens[0]
		s.lastTime, s.seq, _ = parseName(gens[0])
	}
	return s, nil
}

// mine checks that the directory dfd (at dir) is a directory of this uid's, and makes it private
// when it is wider. Only a descriptor found to be ours is changed.
func mine(dfd int, dir string) error {
	var st unix.Stat_t
	if err := unix.Fstat(dfd, &st); err != nil {
		return fmt.Errorf("cannot check the snapshots' directory %s: %w", dir, err)
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return fmt.Errorf("refusing the snapshots' directory %s: it is not a directory; remove it", dir)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("refusing the snapshots' directory %s: it belongs to uid %d, not to you (uid %d); remove it", dir, st.Uid, os.Getuid())
	case st.Mode&0o077 != 0:
		if err := unix.Fchmod(dfd, 0o700); err != nil {
			return fmt.Errorf("cannot make the snapshots' directory %s private: %w", dir, err)
		}
	}
	return nil
}

// Close releases the directory. A closed Store writes nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dfd < 0 {
		return nil
	}
	err := unix.Close(s.dfd)
	s.dfd = -1
	return err
}

// Write stores sess as a new generation unless it is what the last Write of this Store stored
// (its Time aside), and reports whether it wrote. It sets the Version written (sess itself is
// not changed) and a zero Time to now. The Store keeps sess for End: build a new Session for
// each Write rather than changing one already written. It returns true with an error when the
// generation was written but its directory could not be synced or older ones removed.
func (s *Store) Write(sess *Session) (bool, error) {
	if sess == nil {
		return false, errors.New("cannot write a snapshot: no session")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.write(*sess, false)
}

// End writes the last Session written again, as a new generation, with Ended set to how
// ("quit", "kill-server", "last pane closed") and Time now; before any Write, a Session with
// only those. The next start reads that the server ended by itself.
func (s *Store) End(how string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sess Session
	if s.last != nil {
		sess = *s.last
	}
	sess.Ended, sess.Time = how, s.now()
	_, err := s.write(sess, true)
	return err
}

// write encodes sess and writes it unless unchanged (always when force). Called with mu.
func (s *Store) write(sess Session, force bool) (bool, error) {
	if s.dfd < 0 {
		return false, errors.New("cannot write a snapshot: the store is closed")
	}
	when := sess.Time
	if when.IsZero() {
		when = s.now()
	}
	sess.Version, sess.Time = Version, time.Time{}
	// Encoded once with no Time: what is compared; then its time put in.
	keyed, err := json.MarshalIndent(&sess, "", " ")
	if err != nil {
		return false, fmt.Errorf("cannot encode the snapshot: %w", err)
	}
	key := sha256.Sum256(keyed)
	if !force && s.last != nil && key == s.lastKey {
		return false, nil
	}
	data, err := withTime(keyed, when)
	if err != nil {
		return false, fmt.Errorf("cannot encode the snapshot: %w", err)
	}
	name, t, seq := s.nextName()
	renamed, err := s.writeFile(name, data)
	if !renamed {
		return false, err
	}
	sess.Time = when
	s.lastName, s.lastTime, s.seq, s.lastKey, s.last = name, t, seq, key, &sess
	if err != nil { // named, but its directory not synced
		return true, err
	}
	if err := s.prune(); err != nil {
		return true, err
	}
	return true, nil
}

// zeroTime is how a Session with no Time encodes its Time: one space of indent, so the
// Session's own field (a string value holding it would have its quotes escaped).
var zeroTime = []byte("\n \"time\": \"0001-01-01T00:00:00Z\",\n")

// withTime puts t in the encoding of a Session with no Time, as json.MarshalIndent would have
// written it, and a final newline.
func withTime(keyed []byte, t time.Time) ([]byte, error) {
	at := bytes.Index(keyed, zeroTime)
	if at < 0 {
		return nil, errors.New("no time field in the encoding")
	}
	tj, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	data := make([]byte, 0, len(keyed)+len(tj)+1)
	data = append(data, keyed[:at]...)
	data = append(data, "\n \"time\": "...)
	data = append(data, tj...)
	data = append(data, ",\n"...)
	data = append(data, keyed[at+len(zeroTime):]...)
	return append(data, '\n'), nil
}

// nextName names the next generation: now and the next sequence, unless that would not sort
// after the last one (the clock was set back): then the last one's time and a millisecond.
// Called with mu.
func (s *Store) nextName() (string, time.Time, int) {
	t := s.now().UTC().Truncate(time.Millisecond)
	seq := (s.seq + 1) % seqMod
	name := genName(t, seq)
	if name <= s.lastName { // the clock is behind the last one's, or the sequence wrapped
		t = s.lastTime.Add(time.Millisecond)
		name = genName(t, seq)
	}
	return name, t, seq
}

func genName(t time.Time, seq int) string {
	return fmt.Sprintf("%s%s-%0*d%s", genPrefix, t.Format(timeLayout), seqDigits, seq, genSuffix)
}

// parseName reads a generation's name; ok is false for any other name.
func parseName(name string) (t time.Time, seq int, ok bool) {
	rest, ok1 := strings.CutPrefix(name, genPrefix)
	rest, ok2 := strings.CutSuffix(rest, genSuffix)
	if !ok1 || !ok2 || len(rest) != len(timeLayout)+1+seqDigits || rest[len(timeLayout)] != '-' {
		return time.Time{}, 0, false
	}
	t, err := time.Parse(timeLayout, rest[:len(timeLayout)])
	if err != nil {
		return time.Time{}, 0, false
	}
	digits := rest[len(timeLayout)+1:]
	seq, err = strconv.Atoi(digits)
	if err != nil || seq < 0 || strings.ContainsAny(digits, "+-") {
		return time.Time{}, 0, false
	}
	return t, seq, true
}

// writeFile writes data to a temporary, fsyncs it, renames it to name and fsyncs the directory.
// renamed says whether name now holds data (err then says the directory could not be synced).
// Called with mu.
func (s *Store) writeFile(name string, data []byte) (renamed bool, err error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := tmpPrefix + hex.EncodeToString(rnd[:]) + tmpSuffix
	fd, err := unix.Openat(s.dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false, fmt.Errorf("cannot write a snapshot in %s: %w", s.dir, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(s.dir, tmp))
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(s.dfd, tmp, s.dfd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(s.dfd, tmp, 0)
		return false, fmt.Errorf("cannot write the snapshot %s: %w", filepath.Join(s.dir, name), err)
	}
	if err := unix.Fsync(s.dfd); err != nil {
		return true, fmt.Errorf("wrote the snapshot %s but cannot sync its directory: %w", filepath.Join(s.dir, name), err)
	}
	return true, nil
}

// names lists the directory's entries. Called with mu (or before the Store is shared).
func (s *Store) names() ([]string, error) {
	fd, err := unix.Openat(s.dfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot list the snapshots in %s: %w", s.dir, err)
	}
	d := os.NewFile(uintptr(fd), s.dir)
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("cannot list the snapshots in %s: %w", s.dir, err)
	}
	return names, nil
}

// generations picks the generations' names out of a directory's, newest first.
func generations(names []string) []string {
	var gens []string
	for _, n := range names {
		if _, _, ok := parseName(n); ok {
			gens = append(gens, n)
		}
	}
	slices.Sort(gens)
	slices.Reverse(gens)
	return gens
}

// removeStale removes the temporaries older than staleTemp: a writer died before renaming them.
func (s *Store) removeStale(names []string) {
	for _, n := range names {
		if !strings.HasPrefix(n, tmpPrefix) || !strings.HasSuffix(n, tmpSuffix) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(s.dfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		if s.now().Sub(time.Unix(st.Mtim.Unix())) > staleTemp {
			_ = unix.Unlinkat(s.dfd, n, 0)
		}
	}
}

// prune removes the generations retention does not keep. Called with mu.
func (s *Store) prune() error {
	names, err := s.names()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range drop(generations(names)) {
		if err := unix.Unlinkat(s.dfd, n, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("cannot remove the old snapshot %s: %w", filepath.Join(s.dir, n), err))
		}
	}
	return errors.Join(errs...)
}

// drop returns which of gens (newest first) retention removes: all but the keepNewest newest
// and, of those written in the spacedFor before the newest, the oldest of each clock hour.
func drop(gens []string) []string {
	if len(gens) <= keepNewest {
		return nil
	}
	newest, _, _ := parseName(gens[0])
	keep := map[string]string{} // hour -> the oldest generation of that hour seen so far
	var old []string
	for _, n := range gens[keepNewest:] {
		t, _, _ := parseName(n)
		if newest.Sub(t) >= spacedFor {
			old = append(old, n)
			continue
		}
		hour := t.Truncate(time.Hour).Format(time.RFC3339)
		if k, ok := keep[hour]; ok {
			old = append(old, k) // newest first: n is older than k
		}
		keep[hour] = n
	}
	return old
}

// Generation is one stored snapshot, as List reads it.
type Generation struct {
	Name string
	// Time is when it was written (from its name, UTC).
	Time time.Time
	// Tabs and Panes count what it holds; Ended is its Session.Ended.
	Tabs, Panes int
	Ended       string
	// Err says why it cannot be read: the others are zero then.
	Err error
}

// List reads the generations in dir, newest first. One that cannot be read is listed with Err
// set. A dir that does not exist holds none.
func List(dir string) ([]Generation, error) {
	gens, err := listNames(dir)
	if err != nil {
		return nil, err
	}
	list := make([]Generation, 0, len(gens))
	for _, n := range gens {
		t, _, _ := parseName(n)
		g := Generation{Name: n, Time: t}
		sess, err := load(filepath.Join(dir, n))
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // removed since: written over by a newer one
		case err != nil:
			g.Err = err
		default:
			g.Tabs, g.Panes, g.Ended = len(sess.Tabs), sess.Panes(), sess.Ended
		}
		list = append(list, g)
	}
	return list, nil
}

// listNames lists the generations' names in dir, newest first.
func listNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the snapshots: %w", err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return generations(names), nil
}

// Load reads the generation name in dir.
func Load(dir, name string) (*Session, error) {
	if _, _, ok := parseName(name); !ok {
		return nil, fmt.Errorf("cannot load the snapshot %q: not a snapshot's name (snapshot-TIME-SEQUENCE.json)", name)
	}
	path := filepath.Join(dir, name)
	sess, err := load(path)
	if err != nil {
		return nil, fmt.Errorf("cannot load the snapshot %s: %w", path, err)
	}
	return sess, nil
}

// Latest reads the newest generation in dir that can be read. skipped says, one sentence each,
// why each newer one could not be. With no generations at all it returns a nil sess and no
// error; when there are some but none can be read, an error.
func Latest(dir string) (sess *Session, name string, skipped []string, err error) {
	gens, err := listNames(dir)
	if err != nil {
		return nil, "", nil, err
	}
	var bad []string // the reasons, "is corrupt (…)", of the newer ones
	var badNames []string
	for _, n := range gens {
		s, err := load(filepath.Join(dir, n))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			var c *corruptError
			if errors.As(err, &c) && c.what == "not JSON" {
				bad = append(bad, "is corrupt ("+c.detail+")") // torn: "unexpected end of JSON input"
			} else if c != nil {
				bad = append(bad, "is corrupt ("+c.Error()+")")
			} else {
				bad = append(bad, "cannot be read ("+err.Error()+")")
			}
			badNames = append(badNames, n)
			continue
		}
		t, _, _ := parseName(n)
		return s, n, sentences(badNames, bad, "using the one of "+when(t)), nil
	}
	if len(bad) == 0 {
		return nil, "", nil, nil
	}
	return nil, "", sentences(badNames, bad, "no older one can be read"),
		fmt.Errorf("no snapshot in %s can be read (%d tried)", dir, len(bad))
}

// sentences words Latest's skipped generations.
func sentences(names, reasons []string, then string) []string {
	var out []string
	for i, n := range names {
		which := "the newest snapshot"
		if i > 0 {
			which = "the snapshot before it"
		}
		out = append(out, fmt.Sprintf("%s, %s, %s: %s", which, n, reasons[i], then))
	}
	return out
}

// when words t for a person: the local time of day, with the date when not today.
func when(t time.Time) string {
	t = t.Local()
	y, m, d := t.Date()
	if ty, tm, td := time.Now().Date(); y == ty && m == tm && d == td {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

// corruptError: the file's bytes are not a snapshot (torn, empty, not JSON, not of its shape).
type corruptError struct {
	what   string // "not JSON", "not a snapshot"; "" when detail says it all
	detail string // "unexpected end of JSON input", "empty file"
}

func (e *corruptError) Error() string {
	if e.what == "" {
		return e.detail
	}
	return e.what + ": " + e.detail
}

// load reads and decodes the snapshot at path, at most maxFile bytes, refusing a version newer
// than Version. Its error says why, without the path; one wrapping os.ErrNotExist when it is gone.
func load(path string) (*Session, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, errors.New("it is a symbolic link: not read")
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open: %w", err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file: not read")
	}
	if fi.Size() > maxFile {
		return nil, fmt.Errorf("%d MiB, over the %d MiB a snapshot may be: not read", fi.Size()>>20, maxFile>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("over the %d MiB a snapshot may be: not read", maxFile>>20)
	}
	return decode(data)
}

// decode parses a snapshot, checking its version first so that a newer format is said to be
// newer rather than corrupt.
func decode(data []byte) (*Session, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &corruptError{detail: "empty file"}
	}
	var sess Session
	err := json.Unmarshal(data, &sess)
	if err != nil {
		var v struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(data, &v) == nil && v.Version > Version {
			return nil, newer(v.Version)
		}
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, &corruptError{"not JSON", err.Error()}
		}
		return nil, &corruptError{"not a snapshot", err.Error()}
	}
	switch {
	case sess.Version > Version:
		return nil, newer(sess.Version)
	case sess.Version < 1:
		return nil, &corruptError{"not a snapshot", "no version"}
	}
	return &sess, nil
}

func newer(v int) error {
	return fmt.Errorf("version %d is newer than this tickmux reads (%d)", v, Version)
}
