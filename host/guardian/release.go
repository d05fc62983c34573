package guardian

import (
	"sync"
	"sync/atomic"
	"syscall"
)

// ReleaseCode gives back this process's resident pages of the executable's code and read-only
// data. A guardian, or a view client once its terminal is the server's, waits for nearly all its
// life; its start touched megabytes of the binary (the runtime's start and the package inits, and
// the kernel maps the pages around each one touched) that it will not touch again. The pages stay
// in the page cache, shared with the server; one that the process touches again comes back from
// there. Only mappings the process never wrote to are released (a page written after the binary
// was loaded, as a dynamic loader writes its relocations before protecting them, is the process's
// own copy, and would be lost): the executable's read-only mappings without an anonymous page.
// Dirty file pages (a binary just built, not yet written back) are the page cache's, not the
// process's, and stay there. Errors are ignored: the pages stay.
//
// It allocates nothing: /proc/self/smaps is read through a fixed buffer. A release that read the
// file whole and split it into strings left 100-300 KB of garbage on the heap each time, and in a
// process that allocates nothing else (the guardian, a view) no collection came to take it: the
// guardian's heap grew by that much at each pane opened or closed, the server's at each minute
// it spent quiet.
// It returns what it released, in KiB.
func ReleaseCode() (kib int) {
	var exe syscall.Stat_t
	if syscall.Stat("/proc/self/exe", &exe) != nil {
		return 0
	}
	fd, err := syscall.Open("/proc/self/smaps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	var found [8]mapping // an executable has two or three such mappings
	n := 0
	readSmaps(fd, func(m mapping) {
		if n < len(found) && m.inode == exe.Ino && m.major == devMajor(exe.Dev) && m.minor == devMinor(exe.Dev) &&
			m.anon == 0 && m.rss > 0 && (string(m.perms[:]) == "r-xp" || string(m.perms[:]) == "r--p") {
			found[n] = m
			n++
		}
	})
	syscall.Close(fd)
	given.Lock()
	defer given.Unlock()
	for _, m := range found[:n] {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); e == 0 {
			kib += m.rss
			given.add(m.start, m.end)
		}
	}
	if given.n > 0 {
		given.pending.Store(true)
	}
	return kib
}

// given are the mappings ReleaseCode gave back since WakeCode last mapped them back.
var given givenRanges

type givenRanges struct {
	sync.Mutex
	ranges  [8][2]uintptr
	n       int
	pending atomic.Bool // ranges holds something: WakeCode has work
}

// add records a range given back, once. Called with the lock held.
func (g *givenRanges) add(start, end uintptr) {
	for _, r := range g.ranges[:g.n] {
		if r == [2]uintptr{start, end} {
			return
		}
	}
	if g.n < len(g.ranges) {
		g.ranges[g.n] = [2]uintptr{start, end}
		g.n++
	}
}

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): map the pages of a range now, as reads.
const madvPopulateRead = 22

// WakeCode maps back, on a goroutine of its own, the pages of the binary that ReleaseCode gave
// back, when it gave back some since the last call: one system call per mapping instead of a
// page fault for each 64 KB that the work touches, each of them 50-100 µs on this VM (about 130
// of them in an attach to a server that had gone quiet). For work that wakes a quiet process:
// a view attaching, a key. It costs an atomic load when there is nothing to map back; an older
// kernel refuses the call, and the pages come back one fault at a time as before.
func WakeCode() {
	if given.pending.Load() && given.pending.CompareAndSwap(true, false) { // a load only, key after key
		go populate() // owner: none; ends once the pages are mapped
	}
}

// populate maps back the ranges given; what ReleaseCode gives back meanwhile waits for the next
// WakeCode.
func populate() {
	given.Lock()
	ranges := given.ranges
	n := given.n
	given.n = 0
	given.Unlock()
	for _, r := range ranges[:n] {
		syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], madvPopulateRead)
	}
}

// mapping is one mapping of /proc/PID/smaps: its range, permissions, device and inode, resident
// KiB, and the KiB of it that are the process's own copies (written to); anon is -1 until its
// line is read.
type mapping struct {
	start, end   uintptr
	perms        [4]byte
	major, minor uint64
	inode        uint64
	rss, anon    int
}

// smaps is the buffer readSmaps reads through; a line of smaps is at most a path (PATH_MAX)
// and a few numbers long.
var smaps struct {
	sync.Mutex
	buf [8192]byte
}

// readSmaps hands each mapping of smaps file fd to visit, whole, in order.

func readSmaps(fd int, visit func(mapping)) {
	smaps.Lock()
	defer smaps.Unlock()
	p := smapsParser{visit: visit}
	buf := smaps.buf[:]
	have, skipping := 0, false
	for {
		n, err := syscall.Read(fd, buf[have:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		have += n
		rest := buf[:have]
		for i := indexByte(rest, '\n'); i >= 0; i = indexByte(rest, '\n') {
			if !skipping {
				p.line(rest[:i])
			}
			skipping = false
			rest = rest[i+1:]
		}
		if len(rest) == len(buf) { // no line ends in the whole buffer: a mapping's line with a path too long to read
			p.flush() // what follows is not this mapping's
			have, skipping = 0, true
			continue
		}
		have = copy(buf, rest)
	}
	if have > 0 && !skipping {
		p.line(buf[:have])
	}
	p.flush()
}

// smapsParser reads smaps a line at a time; a mapping's line it cannot read ends its reading.
type smapsParser struct {
	cur    mapping
	have   bool // cur holds a mapping
	broken bool
	visit  func(mapping)
}

func (p *smapsParser) line(l []byte) {
	if p.broken {
		return
	}
	first, rest := field(l)
	if len(first) == 0 {
		return
	}
	if dash := indexByte(first, '-'); dash > 0 { // "start-end perms offset dev inode [path]"
		perms, rest := field(rest)
		_, rest = field(rest)
		dev, rest := field(rest)
		inode, _ := field(rest)
		if len(inode) == 0 {
			return
		}
		p.flush()
		start, ok1 := hex(first[:dash])
		end, ok2 := hex(first[dash+1:])
		ino, ok3 := dec(inode)
		colon := indexByte(dev, ':')
		major, ok4 := hex(dev[:max(colon, 0)])
		minor, ok5 := hex(dev[colon+1:])
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || colon < 0 || end < start || len(perms) != 4 {
			p.broken = true
			return
		}
		p.cur = mapping{start: uintptr(start), end: uintptr(end), major: major, minor: minor, inode: ino, anon: -1}
		copy(p.cur.perms[:], perms)
		p.have = true
		return
	}
	if !p.have {
		return
	}
	value, _ := field(rest)
	switch string(first) {
	case "Rss:":
		if n, ok := dec(value); ok && n < 1<<40 {
			p.cur.rss = int(n)
		}
	case "Anonymous:":
		if n, ok := dec(value); ok && n < 1<<40 {
			p.cur.anon = int(n)
		} else {
			p.cur.anon = 1 << 30 // unreadable: as if written
		}
	}
}

// flush hands the mapping read so far to visit.
func (p *smapsParser) flush() {
	if p.have && !p.broken {
		p.visit(p.cur)
	}
	p.have = false
}

// devMajor and devMinor split a device number as the kernel encodes it (smaps writes them as
// major:minor in hexadecimal).
func devMajor(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^0xfff }
func devMinor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^0xff }

// field is b's first field (up to a space) and what follows it.
func field(b []byte) (f, rest []byte) {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	end := 0
	for end < len(b) && b[end] != ' ' {
		end++
	}
	return b[:end], b[end:]
}

// dec reads a decimal number of at most 19 digits.
func dec[S string | []byte](s S) (uint64, bool) {
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// hex reads a hexadecimal number of at most 16 digits.
func hex(s []byte) (uint64, bool) {
	if len(s) == 0 || len(s) > 16 {
		return 0, false
	}
	var n uint64
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
