package check

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// spec 4.2 (H-I1) — a Tick that closes its stdout right after its describe answer, while the host
// still validates its large catalog, ends the session before initialization sends its read. The
// failure says why the session ended, never "context canceled" from initialization's own wait,
// which won that race about one run in three.
func TestInitFailureKeepsTheSessionsReason(t *testing.T) {
	t.Parallel()
	for i := 0; i < 12; i++ {
		r, _ := runFake(t, "initcloseout")
		if !hasFinding(r, "H-I1", SevFailure) {
			t.Fatalf("run %d: findings %+v, want H-I1", i, r.Findings)
		}
		for _, f := range r.Findings {
			if strings.Contains(f.Message, "context canceled") || !strings.Contains(f.Message, "closed its stdout") {
				t.Fatalf("run %d: %s %q, want the session's own reason", i, f.Rule, f.Message)
			}
		}
	}
}

// spec 3.2 — a lone surrogate escape (\ud83d) the Tick wrote in its descriptor and state is legal
// JSON text, but strict parsers refuse it: the JSON report escapes it, so jq reads the report.
// A pair (\ud83d\ude00) stays as written.
func TestJSONReportHasNoLoneSurrogates(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "surrogate")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as cmd_check.go prints it
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if lone := loneSurrogate.FindString(out); lone != "" {
		t.Errorf("the report holds the lone surrogate escape %s", lone)
	}
	if !strings.Contains(out, `\\ud83d`) || !strings.Contains(out, `\ud83d\ude00`) {
		t.Errorf("the lone escape should show as text and the pair stay: %s", r.Descriptor)
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("jq is not installed (scripts/install-test-deps installs it)")
		}
		t.Skip("jq is not installed: the report was checked for lone surrogates only")
	}
	cmd := exec.Command(jq, "-e", ".descriptor.description")
	cmd.Stdin = strings.NewReader(out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jq refuses the report: %v: %s", err, b)
	}
}

// loneSurrogate matches a \u escape of a surrogate that is not part of a pair (a high one not
// followed by a low one, or a low one not preceded by a high one), not itself escaped.
var loneSurrogate = regexp.MustCompile(`(?i)(?:^|[^\\])(?:\\\\)*(\\ud[89ab][0-9a-f]{2}(?:[^\\]|\\[^u]|\\u[^d]|\\ud[^c-f])|(?:[^0-9a-f]|^)\\ud[c-f][0-9a-f]{2})`)

// spec 3.2, 6.2 — rules the host files loosely are named exactly: a read result's fractional seq
// breaks 6.2's shape (C-S5), not the read floor (H-RD1); an error with a string code breaks 3.2's
// ResponseError (C-M4), not "exactly one of result and error" (H-M6).
func TestLooseRulesNamedExactly(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{"readseqfrac": "C-S5", "errcodestring": "C-M4"} {
		r, _ := runFake(t, mode)
		if !hasFinding(r, want, SevFailure) {
			t.Errorf("%s: no %s in %+v", mode, want, r.Findings)
		}
		for _, f := range r.Findings {
			if f.Rule == "H-RD1" || f.Rule == "H-M6" || strings.Contains(f.Message, "(H-RD1)") || strings.Contains(f.Message, "(H-M6)") {
				t.Errorf("%s: loose finding %+v", mode, f)
			}
		}
	}
}

// spec 6.4 — the 4 KiB figure is "illustrative advice": a large state is a note, and a note
// leaves the Tick ok; the text report counts notes apart from warnings.
func TestLargeStateIsANote(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "bigstate")
	if !r.OK || !hasFinding(r, "C-S1", SevNote) || hasFinding(r, "C-S1", SevWarning) {
		t.Fatalf("ok %v, findings %+v", r.OK, r.Findings)
	}
	var sb strings.Builder
	WriteText(&sb, []string{"fake"}, r)
	if !strings.Contains(sb.String(), "0 warnings, 1 notes") {
		t.Errorf("text report:\n%s", sb.String())
	}
}

// spec 10, 3.5 — SHOULDs check now looks at: no credential in the state (a count named
// tokens_used is none), and room under 512 KiB for numbers another host spells out longer.
func TestStateShoulds(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "credstate")
	found := false
	for _, f := range r.Findings {
		found = found || f.Rule == "C-S3" && f.Severity == SevWarning && strings.Contains(f.Message, "/account/api_key") && !strings.Contains(f.Message, "tokens_used")
	}
	if !found || !r.OK {
		t.Errorf("credstate: ok %v, findings %+v", r.OK, r.Findings)
	}
	r, _ = runFake(t, "tightupdate")
	if !hasFinding(r, "C-S4", SevWarning) || !r.OK {
		t.Errorf("tightupdate: ok %v, findings %+v", r.OK, r.Findings)
	}
	for in, want := range map[string]int{"1e15": 18, "1e20": 21, "1.5": 3, "1e-7": 5, "2.5e1": 4, "-0.0": 4} {
		if got := spelledLen(in); got != want {
			t.Errorf("spelledLen(%s) = %d, want %d", in, got, want)
		}
	}
}

// spec 4.4 — a describe that hands out a new revision each time has a side effect: every call
// prepared against the revision before is void (5.5). Nothing else happens between the describes,
// so this is C-R1, not an ordinary catalog change. The Perl ticker, whose revision moves once by
// itself, passes (TestPerlTickPasses).
func TestDescribeHandingOutRevisions(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "describerev")
	if r.OK || !hasFinding(r, "C-R1", SevFailure) {
		t.Fatalf("ok %v, findings %+v", r.OK, r.Findings)
	}
}

// spec 5.6 — a query that writes a file in the Tick's working directory must be declared
// mutates: true. check calls every query it can build args for (find takes a required q), not
// only the first that takes {}, and compares the directory before and after.
func TestQueryThatWritesAFile(t *testing.T) {
	t.Parallel()
	r, _ := runFakeWith(t, "querywrites", Options{Dir: t.TempDir()})
	found := false
	for _, f := range r.Findings {
		found = found || f.Rule == "C-K6" && strings.Contains(f.Message, `"find"`) && strings.Contains(f.Message, ".find-cache")
	}
	if !found || r.OK {
		t.Fatalf("ok %v, findings %+v", r.OK, r.Findings)
	}
}

// spec 4.4 — "answer within a few milliseconds" times the Tick: from the request going out to
// the answer's bytes reaching the host's line reader. A 3 MB describe of \u escapes (legal: 500 KB
// re-encoded), answered at once, takes the host and check far longer to parse and validate than
// the Tick took to answer; that is no C-R2.
func TestDescribeTimedOnTheTick(t *testing.T) {
	t.Parallel()
	r, _ := runFakeWith(t, "bigescaped", Options{exitWait: conformingExit})
	if hasFinding(r, "C-R2", SevWarning) || !r.OK {
		t.Fatalf("ok %v, findings %+v", r.OK, r.Findings)
	}
}
