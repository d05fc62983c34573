package host

import (
	"strings"
	"testing"
	"time"
)

// spec: H-RD3, H-U1 — at is an RFC 3339 §5.6 date-time, exactly.
func TestValidDateTime(t *testing.T) {
	t.Parallel()
	good := []string{
		"2026-11-30T10:00:00Z",
		"2026-11-30t10:00:00z",
		"2026-11-30T10:00:00.123456789Z",
		"2026-11-30T10:00:00.5+01:00",
		"2026-11-30T10:00:00-23:59",
		"2024-02-29T00:00:00Z",
		"2000-02-29T00:00:00Z",
		"0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59Z",
		"2016-12-31T23:59:60Z",      // a leap second
		"2016-12-31T23:59:60.999Z",  // with a fraction
		"2017-01-01T00:59:60+01:00", // 23:59:60 UTC, seen from +01:00
		"2016-12-31T18:29:60-05:30", // and from -05:30
		"2015-06-30T23:59:60Z",
		"2026-11-30T10:00:00.00000000000000000001Z", // any number of fraction digits
	}
	bad := []string{
		"",
		"yesterday",
		"2026-11-30",
		"2026-11-30T10:00:00",       // no offset
		"2026-11-30 10:00:00Z",      // the space of the RFC's note is not in its grammar
		"2026-11-30T10:00:00+24:00", // offset hour 24
		"2026-11-30T10:00:00+01:60", // offset minute 60
		"2026-11-30T10:00:00+0100",
		"2026-11-30T10:00:00+01",
		"2026-11-30T00:00:00,5Z", // a comma fraction
		"2026-11-30T00:00:00.Z",  // a point without digits
		"2026-11-30T24:00:00Z",
		"2026-11-30T10:60:00Z",
		"2026-11-30T10:00:61Z",
		"2016-12-31T12:30:60Z", // second 60 away from 23:59 UTC
		"2016-12-31T23:59:60+01:00",
		"2026-13-01T00:00:00Z",
		"2026-00-01T00:00:00Z",
		"2026-04-31T00:00:00Z",
		"2026-02-29T00:00:00Z",
		"1900-02-29T00:00:00Z",
		"2026-11-00T00:00:00Z",
		"+2026-11-30T10:00:00Z",
		"2026-11-30T10:00:00Z ",
		"2026-11-30T10:00:00ZZ",
		"２026-11-30T10:00:00Z",
		"2026-1a-30T10:00:00Z",
	}
	for _, s := range good {
		if !validDateTime([]byte(s)) {
			t.Errorf("refused %q", s)
		}
	}
	for _, s := range bad {
		if validDateTime([]byte(s)) {
			t.Errorf("accepted %q", s)
		}
	}
}

func FuzzValidDateTime(f *testing.F) {
	f.Add("2016-12-31T23:59:60Z")
	f.Add("2026-11-30T10:00:00.5+01:00")
	f.Add("2026-11-30T10:00:00+24:00")
	f.Fuzz(func(t *testing.T, s string) {
		if !validDateTime([]byte(s)) || len(s) < 19 || s[17:19] == "60" {
			return
		}
		// Whatever it takes (leap seconds aside) time.Parse takes too, once t and z are upper case.
		up := strings.Map(func(r rune) rune {
			if r == 't' || r == 'z' {
				return r - 'a' + 'A'
			}
			return r
		}, s)
		if _, err := time.Parse(time.RFC3339Nano, up); err != nil {
			t.Fatalf("accepted %q, which time.Parse refuses: %v", s, err)
		}
	})
}
