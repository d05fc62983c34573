package host

// validDateTime reports whether b is an RFC 3339 date-time (§5.6), the form the spec gives `at`
// (2.2, 6.2, 8.2; H-RD3, H-U1):
//
//	date-time = full-date "T" full-time        ; T and Z may be lowercase (§5.6 NOTE)
//	full-date = 4DIGIT "-" 2DIGIT "-" 2DIGIT   ; month 01-12, day within the month and year
//	full-time = 2DIGIT ":" 2DIGIT ":" 2DIGIT ["." 1*DIGIT] ("Z" / ("+" / "-") 2DIGIT ":" 2DIGIT)
//	                                           ; hour 00-23, minute 00-59, second 00-60
//
// Second 60 is a leap second (§5.7): accepted when the time, moved to UTC by its offset, is
// 23:59, the only minute a leap second ends. Offsets are hours 00-23 and minutes 00-59, so
// "+24:00" is refused; the fraction needs a '.' and a digit ("00:00:00,5Z" is refused).
// time.Parse is both looser (it takes "+24:00" and ",5") and stricter (it refuses second 60).
// It works on the bytes in place, with no allocation: it runs for every update that has an at.
func validDateTime(b []byte) bool {
	// YYYY-MM-DDTHH:MM:SS is 19 bytes; the shortest offset, Z, one more.
	if len(b) < 20 {
		return false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	second, ok6 := digits(b[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || second > 60 {
		return false
	}
	rest := b[19:]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	offset := 0 // minutes east of UTC
	switch {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return false
	}
	if second == 60 {
		utc := ((hour*60+minute-offset)%(24*60) + 24*60) % (24 * 60)
		return utc == 23*60+59
	}
	return true
}

// digits reads a fixed-width run of ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
