package vt

//go:generate sh -c "python3 gen_widths.py > width_table.go"

// widthRange is a run of code points sharing one width (see width_table.go).
type widthRange struct {
	lo, hi rune
	w      int8
}

// RuneWidth is the number of cells r takes: 1 or 2; 0 for a mark that joins the previous cell;
// -1 for a code point that is not printed at all (controls, unassigned). The table comes from the
// C library's wcwidth, which is what tmux uses, so text lays out as it does there.
func RuneWidth(r rune) int {
	if r >= 0x20 && r < 0x7f {
		return 1
	}
	if r < 0 || r > 0x10FFFF {
		return -1
	}
	lo, hi := 0, len(widthRanges)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch rg := &widthRanges[m]; {
		case r < rg.lo:
			hi = m
		case r > rg.hi:
			lo = m + 1
		default:
			return int(rg.w)
		}
	}
	return 1
}
