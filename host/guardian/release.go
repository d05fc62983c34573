package guardian

import (
	"os"
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
// It returns what it released, in KiB.
func ReleaseCode() (kib int) {
	var exe syscall.Stat_t
	if syscall.Stat("/proc/self/exe", &exe) != nil {
		return 0
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	for _, m := range parseSmaps(b) {
		if m.inode != exe.Ino || m.dev != devString(exe.Dev) || m.anon != 0 || m.rss == 0 {
			continue
		}
		if m.perms != "r-xp" && m.perms != "r--p" {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); e == 0 {
			kib += m.rss
		}
	}
	return kib
}

// mapping is one mapping of /proc/PID/smaps: its range, permissions, device ("fd:01") and inode,
// resident KiB, and the KiB of it that are the process's own copies (written to); anon is -1
// until its line is read.
type mapping struct {
	start, end uintptr
	perms, dev string
	inode      uint64
	rss, anon  int
}

// parseSmaps reads the mappings of an smaps file; a line it cannot read ends the list there.
func parseSmaps(b []byte) []mapping {
	var out []mapping
	for len(b) > 0 {
		line := b
		if i := indexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		f := fields(line)
		if len(f) == 0 {
			continue
		}
		if dash := indexByte([]byte(f[0]), '-'); dash > 0 && len(f) >= 5 { // a mapping's first line
			start, ok1 := hex(f[0][:dash])
			end, ok2 := hex(f[0][dash+1:])
			inode, ok3 := dec(f[4])
			if !ok1 || !ok2 || !ok3 || end < start {
				return out
			}
			out = append(out, mapping{start: uintptr(start), end: uintptr(end), perms: f[1], dev: f[3], inode: inode, anon: -1})
			continue
		}
		if len(out) == 0 || len(f) < 2 {
			continue
		}
		m := &out[len(out)-1]
		switch f[0] {
		case "Rss:":
			m.rss = atoi(f[1])
		case "Anonymous:":
			if n, ok := dec(f[1]); ok && n < 1<<40 {
				m.anon = int(n)
			} else {
				m.anon = 1 << 30 // unreadable: as if written
			}
		}
	}
	return out
}

// devString is device number dev as smaps writes it: major:minor in hexadecimal, two digits at
// least each.
func devString(dev uint64) string {
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	return hexPad(major) + ":" + hexPad(minor)
}

func hexPad(n uint64) string {
	const digits = "0123456789abcdef"
	var buf [16]byte
	i := len(buf)
	for n > 0 || i > len(buf)-2 {
		i--
		buf[i] = digits[n&0xf]
		n >>= 4
	}
	return string(buf[i:])
}

// dec reads a decimal number of at most 19 digits.
func dec(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// hex reads a hexadecimal number of at most 16 digits.
func hex(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 16 {
		return 0, false
	}
	var n uint64
	for _, c := range []byte(s) {
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
