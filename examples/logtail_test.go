package examples

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLevelOf(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"2026-01-01 ERROR disk full":      "error",
		"level=error msg=x":               "error",
		"[FATAL] gone":                    "error",
		"panic: runtime error":            "error",
		"WARN slow":                       "warn",
		"Warning: deprecated":             "warn",
		"INFO ok":                         "info",
		"debug: x=1":                      "debug",
		"TRACE enter":                     "debug",
		"no level here":                   "other",
		"errors_total=0 is not a level":   "other",
		strings.Repeat("x", 130) + " ERR": "other", // only the start of a line is searched
	} {
		if got := levelOf(line); got != want {
			t.Errorf("levelOf(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestLogtailFollows: lines appended to the file arrive as updates with counts by level and the
// newest lines; the lines tool queries ranges; truncation and rotation are followed.
func TestLogtailFollows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	appendRaw := func(s string) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	appendLog := func(lines ...string) {
		t.Helper()
		appendRaw(strings.Join(lines, "\n") + "\n")
	}
	c := startExample(t, "", "logtail", path)
	var st logState
	c.waitUpdate("waiting for the file", &st, func() bool { return strings.HasPrefix(st.Status, "waiting") })

	appendLog("INFO start", "DEBUG x=1", "WARN slow")
	c.waitUpdate("three lines", &st, func() bool { return st.Lines == 3 })
	if st.Levels != (logLevels{Info: 1, Debug: 1, Warn: 1}) || st.Status != "following" || len(st.Last) != 3 || st.Last[2].Text != "WARN slow" {
		t.Fatalf("state after three lines: %+v", st)
	}
	appendRaw("ERROR boom\npartial without newline...")
	c.waitUpdate("the error", &st, func() bool { return st.Lines == 4 })
	if st.LastError == nil || st.LastError.N != 4 || st.LastError.Text != "ERROR boom" {
		t.Fatalf("last error: %+v", st.LastError)
	}
	appendRaw(" done\n")
	c.waitUpdate("the partial line completed", &st, func() bool { return st.Lines == 5 })
	if got := st.Last[len(st.Last)-1].Text; got != "partial without newline... done" {
		t.Fatalf("a line written in two parts came out as %q", got)
	}

	var q logQueryResult
	c.mustCall("lines", map[string]any{"from": 2, "to": 4}, &q)
	if len(q.Lines) != 3 || q.Lines[0].N != 2 || q.Lines[2].N != 4 || q.Total != 5 || q.FirstKept != 1 {
		t.Fatalf("lines 2 to 4: %+v", q)
	}
	c.mustCall("lines", map[string]any{"level": "error"}, &q)
	if len(q.Lines) != 1 || q.Lines[0].N != 4 {
		t.Fatalf("error lines: %+v", q)
	}
	c.mustCall("lines", map[string]any{"contains": "SLOW", "limit": 5}, &q)
	if len(q.Lines) != 1 || q.Lines[0].Text != "WARN slow" {
		t.Fatalf("lines containing SLOW: %+v", q)
	}
	c.mustCall("lines", map[string]any{"limit": 2}, &q)
	if len(q.Lines) != 2 || q.Lines[1].N != 5 {
		t.Fatalf("the last two lines: %+v", q)
	}

	if err := os.WriteFile(path, []byte("INFO after truncation\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitUpdate("the truncation", &st, func() bool { return st.Truncated == 1 && st.Lines == 6 })

	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendLog("ERROR in the new file")
	c.waitUpdate("the rotated file", &st, func() bool { return st.Lines == 7 })
	if st.Last[len(st.Last)-1].Text != "ERROR in the new file" || st.Levels.Error != 2 {
		t.Fatalf("after rotation: %+v", st)
	}
}

// TestLogtailStartsNearTheEndOfABigFile: a long file is followed from its last MiB, the cut
// first line dropped.
func TestLogtailStartsNearTheEndOfABigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.log")
	var b strings.Builder
	for i := 0; b.Len() < 2*logStartBytes; i++ {
		fmt.Fprintf(&b, "INFO line %07d %s\n", i, strings.Repeat("-", 80))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startExample(t, "", "logtail", path)
	var st logState
	c.waitUpdate("the end of the file", &st, func() bool { return st.Lines > 0 })
	if st.Skipped != int64(b.Len()-logStartBytes) {
		t.Fatalf("skipped %d bytes, want %d", st.Skipped, b.Len()-logStartBytes)
	}
	var q logQueryResult
	c.mustCall("lines", map[string]any{"from": 1, "limit": 1}, &q)
	if !strings.HasPrefix(q.Lines[0].Text, "INFO line ") || len(q.Lines[0].Text) != len("INFO line 0000000 ")+80 {
		t.Fatalf("the first line read is cut: %q", q.Lines[0].Text)
	}
}

// Issue 42 item 14: in a pane two or three rows tall the logtail draws what fits, top down: the
// header (cut at the edge, never drawn over), then the newest line, then the status; the key
// legend only once a log line, the status and it all fit.
func TestLogtailDrawsWhatFitsInFewRows(t *testing.T) {
	t.Parallel()
	lt, err := newLogtail(filepath.Join(t.TempDir(), "app.log"))
	if err != nil {
		t.Fatal(err)
	}
	lt.record([]string{"INFO first", "WARN second", "ERROR third"}, pollEvent{status: "following"})
	cases := []struct {
		w, h int
		want string
	}{
		{40, 1, `
 Log  app.log   error 1  warn 1  info 1
`},
		{40, 2, `
 Log  app.log   error 1  warn 1  info 1
     3 ERROR third
`},
		{40, 3, `
 Log  app.log   error 1  warn 1  info 1
     3 ERROR third
 following
`},
		{40, 4, `
 Log  app.log   error 1  warn 1  info 1
     3 ERROR third
 following
 ↑↓ PgUp PgDn scroll   End follow   e e
`},
		{60, 5, `
 Log  app.log                       error 1  warn 1  info 1
     2 WARN second
     3 ERROR third
 following
 ↑↓ PgUp PgDn scroll   End follow   e errors only   Ctrl-C
`},
		{8, 2, `
 Log  a
     3 E
`},
	}
	for _, c := range cases {
		if got := render(t, c.w, c.h, lt.draw); got != picture(c.want) {
			t.Errorf("%dx%d:\n%s\nwant:\n%s", c.w, c.h, got, picture(c.want))
		}
	}
}
