package guardian

import (
	"slices"
	"testing"
)

func TestFieldsAndAtoi(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want []string
	}{
		{"watch 123 hup", []string{"watch", "123", "hup"}},
		{"  forget   7 ", []string{"forget", "7"}},
		{"", nil},
	} {
		if got := fields([]byte(c.msg)); !slices.Equal(got, c.want) {
			t.Errorf("fields(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
	for s, want := range map[string]int{"123": 123, "0": 0, "-5": 0, "1x": 0, "": 0, "99999999999999999999": 0} {
		if got := atoi(s); got != want {
			t.Errorf("atoi(%q) = %d, want %d", s, got, want)
		}
	}
}
