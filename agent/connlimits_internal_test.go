package agent

import (
	"syscall"
	"testing"
)

// The connections leave a reserve of descriptors for views and PTYs: at least 256, or a quarter
// of the soft limit when that is more, and never more than maxConnsCeiling connections.
func TestConnsLeaveAReserve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		nofile uint64
		want   int
	}{
		{1024, 768}, {20000, 4096}, {4000, 3000}, {300, 44}, {256, minConns}, {100, minConns}, {1 << 20, maxConnsCeiling},
	} {
		if got := connsFor(tc.nofile); got != tc.want {
			t.Errorf("connsFor(%d) = %d, want %d", tc.nofile, got, tc.want)
		}
	}
}

// Go's runtime raised RLIMIT_NOFILE's soft limit at start (to the hard limit minus one, so it can
// give the programs it starts the original back); raiseFileLimit leaves that as it is, and the
// default bounds come from it.
func TestFileLimitRaisedAtStart(t *testing.T) {
	t.Parallel()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur+1 < lim.Max {
		t.Fatalf("the soft limit %d was not raised towards the hard limit %d", lim.Cur, lim.Max)
	}
	if got := raiseFileLimit(); got != lim.Cur {
		t.Errorf("raiseFileLimit changed an already raised limit: %d, was %d", got, lim.Cur)
	}
	d := DefaultConnLimits()
	if d.Total != connsFor(lim.Cur) || d.PerUID != d.Total || d.PerClient > d.Total || d.Silence != defaultSilence {
		t.Errorf("default limits under a soft limit of %d: %+v", lim.Cur, d)
	}
}
