package check

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// spec 5.5 — a Tick whose catalog moves to a new revision (a tool added) while check probes it is
// followed: the probes describe it again on -32004 and are prepared again against the new revision,
// so no probe takes the legal refusal for a wrong answer.
func TestProbesFollowACatalogThatMoves(t *testing.T) {
	t.Parallel()
	r, mutated := runFakeWith(t, "catalogmoves", Options{exitWait: conformingExit})
	if !r.OK || len(r.Findings) > 0 {
		t.Fatalf("ok %v, findings %+v", r.OK, r.Findings)
	}
	if mutated != "" {
		t.Fatalf("check called a mutating tool: %q", mutated)
	}
	for _, s := range r.Steps {
		if s.Name == "unknown tool gets -32602" && strings.Contains(s.Detail, `revision "2"`) {
			return
		}
	}
	t.Fatalf("no step says the unknown-tool probe followed the catalog to revision 2: %+v", r.Steps)
}

// spec 7.3 — C-K5 rests on the host's 60 s timeout only: a refusal that came after the bound is
// a warning with its time (the bound is lowered here so the test does not wait a minute).
func TestLateCallWarns(t *testing.T) {
	t.Parallel()
	r, _ := runFakeWith(t, "slowrefusal", Options{lateCall: time.Second})
	if !hasFinding(r, "C-K5", SevWarning) || !r.OK {
		t.Fatalf("ok %v, findings %+v", r.OK, r.Findings)
	}
}

// spec 8.3 — the warning about updates that repeat their predecessor's data says how many.
func TestRepeatedUpdatesCounted(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "repeatupdates")
	for _, f := range r.Findings {
		if f.Rule == "C-U3" && strings.Contains(f.Message, "2 of ") {
			return
		}
	}
	t.Fatalf("no C-U3 finding counting 2 repeats: %+v", r.Findings)
}

// spec 3.1, 3.6 — a last update without its newline, written as stdin ends, is judged every
// time: the reader reaches the end of the Tick's stdout before check judges. Run with -count=30.
func TestLastLineWithoutNewlineAlwaysJudged(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "lastnonl")
	if r.OK || !hasFinding(r, "H-V2", SevViolation) {
		t.Fatalf("ok %v, findings %+v, ended %+v", r.OK, r.Findings, r.Ended)
	}
}

// spec 5.5, 7.2 — a Tick written in a third style (Perl, core modules only, one select loop; see
// testdata/ticker.pl) whose catalog moves on a second after start passes check with no finding.
func TestPerlTickPasses(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err != nil || exec.Command(perl, "-MJSON::PP", "-e", "1").Run() != nil {
		t.Skip("needs perl with JSON::PP (a core module)")
	}
	for _, watch := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond} {
		// The catalog moves during the probes with the short watch, before them with the long one.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		r, err := Run(ctx, Options{Argv: []string{perl, "testdata/ticker.pl"}, Watch: watch, exitWait: conformingExit})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK || len(r.Findings) > 0 {
			t.Errorf("watch %v: ok %v, findings %+v", watch, r.OK, r.Findings)
		}
		followed := false
		for _, s := range r.Steps {
			if !s.OK {
				t.Errorf("watch %v: step %q failed: %s", watch, s.Name, s.Detail)
			}
			followed = followed || s.Name == "follow the catalog"
		}
		if !followed {
			t.Errorf("watch %v: check never followed the catalog to r2: %+v", watch, r.Steps)
		}
	}
}

// spec 3.1 — what on stderr is a log line (C-L1) and what is a UI drawn there.
func TestStderrDrawingOrLogging(t *testing.T) {
	t.Parallel()
	for in, drawing := range map[string]bool{
		"debug: listening\n":                              false,
		"\x1b[2m12:00:01\x1b[0m \x1b[32mINFO\x1b[0m up\n": false, // colour is still a log line
		"\x1b[1;38;5;208mWARN\x1b[m slow\r\n":             false,
		"\x1b[38:2::255:0:0mred\x1b[0m\n":                 false,
		"\x1b[H\x1b[2JNotes\r\n":                          true, // home, clear
		"\x1b[?1049hscreen":                               true, // the alternate screen
		"\x1b[5;1Hrow five":                               true,
		"working 40%\rworking 80%\r":                      true, // a line drawn over
		"\x1b]0;title\x07":                                true,
	} {
		if got := draws([]byte(in)); got != drawing {
			t.Errorf("draws(%q) = %v, want %v", in, got, drawing)
		}
	}
	if got := string(stripSGR([]byte("\x1b[32mINFO\x1b[0m up"))); got != "INFO up" {
		t.Errorf("stripSGR: %q", got)
	}
}
