package check

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envMode); mode != "" {
		os.Exit(fakeMain(mode))
	}
	waitBoundParallel(8)
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("tickmux/host.reapLoop"), goleak.IgnoreTopFunction("tickmux/host.exitLoop"), goleak.IgnoreTopFunction("os/signal.signal_recv"))
}

// waitBoundParallel lets n parallel tests run at once unless -parallel says otherwise. The
// verdict cases spend their seconds waiting on a Tick that does little (check watches it for 2 s),
// so more of them than cores fit at once (go test's default is GOMAXPROCS).
func waitBoundParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

func runFake(t *testing.T, mode string) (*Report, string) {
	return runFakeWith(t, mode, Options{})
}

// runFakeWith checks the test binary playing mode; opts may set CallTimeout.
func runFakeWith(t *testing.T, mode string, opts Options) (*Report, string) {
	t.Helper()
	self, _ := os.Executable()
	log := filepath.Join(t.TempDir(), "mutating.log")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts.Argv = []string{self}
	opts.Env = []string{envMode + "=" + mode, envLog + "=" + log}
	opts.Watch = 300 * time.Millisecond
	r, err := Run(ctx, opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	b, _ := os.ReadFile(log)
	return r, string(b)
}

// conformingExit is how long a test that wants no finding gives a conforming Tick to end (C-X1,
// C-X2): it ends in milliseconds, but on a machine loaded by the whole -race suite it once took
// over the spec's 2 s. Such a test judges the Tick's steps, not the machine.
const conformingExit = 30 * time.Second

func hasFinding(r *Report, rule, severity string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule && f.Severity == severity {
			return true
		}
	}
	return false
}

func TestCheckVerdicts(t *testing.T) {
	cases := []struct {
		mode, rule, severity string
		ok                   bool
	}{
		{"good", "", "", true},
		{"free", "", "", true},                        // every free choice the draft leaves, taken the other way
		{"noisy", "H-V2", SevViolation, false},        // spec: H-V2
		{"updregress", "H-U1", SevViolation, false},   // spec: H-U1
		{"updplus24", "H-U1", SevViolation, false},    // spec: H-U1 (at "+24:00", which time.Parse takes)
		{"updcomma", "H-U1", SevViolation, false},     // spec: H-U1 (at "00:00:00,5Z")
		{"updnullid", "H-M7", SevFailure, false},      // spec: H-M7 (tick/update with id null)
		{"updstringid", "H-M7", SevFailure, false},    // spec: H-M7 (tick/update with a string id)
		{"badversion", "H-I2", SevFailure, false},     // spec: H-I2
		{"protostring", "H-I2", SevFailure, false},    // spec: H-I2
		{"crash", "H-I1", SevFailure, false},          // spec: H-I1
		{"readatnull", "H-RD3", SevFailure, false},    // spec: H-RD3, beside H-I1
		{"readfloor", "H-RD1", SevFailure, false},     // spec: H-RD1, beside H-I1
		{"describeboth", "H-M6", SevFailure, false},   // spec: H-M6, beside H-I1
		{"schemastring", "H-D1", SevFailure, false},   // spec: H-D1 (input_schema {"type":"string"})
		{"dupspaces", "H-D1", SevFailure, false},      // spec: H-D1 ("get" and " get ")
		{"badpointer", "H-D1", SevFailure, false},     // spec: H-D1, beside H-I1
		{"staleok", "C-K1", SevFailure, false},        // C-K1
		{"unknowntoolok", "C-K2", SevFailure, false},  // C-K2
		{"badargsrun", "C-K3", SevFailure, false},     // C-K3, spec 7.2: runs get with n a string
		{"toolfirst", "C-K4", SevFailure, false},      // C-K4
		{"slowrefusal", "", "", true},                 // spec 7.3: a 1.2 s refusal is no finding (only calls past 60 s should go to the background)
		{"catalogmoves", "", "", true},                // spec 5.5: the catalog moves on at the first call; probes follow it
		{"extraok", "C-K3", SevWarning, true},         // spec 7.2 and Appendix B: unknown members accepted, types checked
		{"querymutates", "C-K6", SevFailure, false},   // spec 5.6: a mutates: false tool that changes the state
		{"leakiderrdata", "C-S2", SevFailure, false},  // spec 4.1: the instance id in an error's data
		{"leakiderrmsg", "C-S2", SevFailure, false},   // spec 4.1: the instance id in an error's message
		{"stderrcolour", "C-L1", SevWarning, true},    // spec 3.1: a coloured log line is still a log line
		{"repeatupdates", "C-U3", SevWarning, true},   // spec 8.3: updates whose data repeats the one before
		{"lastnonl", "H-V2", SevViolation, false},     // spec 3.1, 3.6: the last line lacks its newline
		{"dupreply", "C-M1", SevFailure, false},       // C-M1
		{"tickrequest", "H-M7", SevFailure, false},    // spec: H-M7
		{"revnochange", "C-D3", SevFailure, false},    // C-D3
		{"sideeffect", "C-R1", SevFailure, false},     // C-R1
		{"blockdescribe", "C-R3", SevWarning, true},   // C-R3
		{"strictparams", "C-M3", SevWarning, true},    // C-M3
		{"leakid", "C-S2", SevFailure, false},         // C-S2
		{"stderrlog", "C-L1", SevWarning, true},       // C-L1
		{"needstty", "", "", true},                    // C-X3 kept: a Tick that needs its stderr on the terminal
		{"stderrui", "", "", true},                    // C-L1 kept: drawing on fd 2 is not logging
		{"readclock", "", "", true},                   // C-R1 kept: data may change between reads, seq may not
		{"eofdrop", "C-X4", SevWarning, true},         // C-X4
		{"eofwait", "", "", true},                     // C-X4 kept: a slow call at EOF is answered
		{"exitafterinit", "C-X5", SevFailure, false},  // C-X5
		{"unknownmethodok", "C-M2", SevWarning, true}, // C-M2
		{"slow", "C-R2", SevWarning, true},            // C-R2
		{"bigstate", "C-S1", SevNote, true},           // spec 6.4: illustrative advice, a note
		{"chatty", "C-U2", SevWarning, true},          // C-U2
		{"ignoreeof", "C-X1", SevWarning, true},       // C-X1
		{"ignoreterm", "C-X2", SevNote, true},         // spec 4.5: no MUST or SHOULD, a note
		{"lint", "C-D4", SevWarning, true},            // C-D4
		{"mutatingonly", "", "", true},
		{"credstate", "C-S3", SevWarning, true},      // spec 10: an api_key in the state
		{"tightupdate", "C-S4", SevWarning, true},    // spec 3.5: 1e15s leave no room under 512 KiB
		{"readseqfrac", "C-S5", SevFailure, false},   // spec 6.2: seq 1.5 in a read result
		{"errcodestring", "C-M4", SevFailure, false}, // spec 3.2: an error's code "-32601", a string
		{"surrogate", "", "", true},                  // spec 3.2: a lone \ud83d is legal JSON text
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			var opts Options
			if c.rule == "" {
				opts.exitWait = conformingExit
			}
			r, mutated := runFakeWith(t, c.mode, opts)
			if r.OK != c.ok {
				t.Errorf("ok %v, want %v; findings %+v", r.OK, c.ok, r.Findings)
			}
			if c.rule != "" && !hasFinding(r, c.rule, c.severity) {
				t.Errorf("no %s %s finding in %+v; steps %+v", c.severity, c.rule, r.Findings, r.Steps)
			}
			if c.rule == "" && len(r.Findings) > 0 {
				t.Errorf("findings for a conforming Tick: %+v", r.Findings)
			}
			if c.rule == "" {
				for _, s := range r.Steps {
					if !s.OK {
						t.Errorf("step %q failed for a conforming Tick: %s", s.Name, s.Detail)
					}
				}
			}
			if r.Ended == nil || r.Ended.Reason == "" {
				t.Error("no end reason")
			}
			reportAgrees(t, r)
			// check never calls a mutating tool with a valid revision.
			if mutated != "" {
				t.Errorf("check called a mutating tool: %q", mutated)
			}
		})
	}
}

// spec: H-I1 — a failed initialization names H-I1 and, beside it, the precise rule, sorted by
// the host's typed errors.
func TestInitFailureNamesThePreciseRule(t *testing.T) {
	for mode, rule := range map[string]string{"readatnull": "H-RD3", "readfloor": "H-RD1", "describeboth": "H-M6", "badpointer": "H-D1"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			r, _ := runFake(t, mode)
			if !hasFinding(r, "H-I1", SevFailure) || !hasFinding(r, rule, SevFailure) {
				t.Fatalf("findings %+v, want H-I1 and %s", r.Findings, rule)
			}
		})
	}
}

// spec: H-I2 — protocol "3" (a string) says what is wrong, not "version 3; this host speaks 3".
func TestVersionMessage(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "protostring")
	for _, f := range r.Findings {
		if f.Rule == "H-I2" {
			if !strings.Contains(f.Message, `protocol must be the number 3, got the string "3"`) || strings.Contains(f.Message, "version 3;") {
				t.Fatalf("message %q", f.Message)
			}
			return
		}
	}
	t.Fatalf("no H-I2 finding: %+v", r.Findings)
}

// C-X5 — a Tick that exits right after initialization is not ok, and the report lists what it
// skipped and why.
func TestExitAfterInitListsSkippedProbes(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "exitafterinit")
	if r.OK {
		t.Fatal("ok")
	}
	for _, s := range r.Steps {
		if s.Name == "probes skipped" && strings.Contains(s.Detail, "unknown tool gets -32602") && strings.Contains(s.Detail, "exited") {
			return
		}
	}
	t.Fatalf("no step listing the skipped probes with the reason: %+v", r.Steps)
}

// C-M1 — a call never answered is missing after --call-timeout; a slow one is not (C-K5 above).
func TestCallTimeout(t *testing.T) {
	start := time.Now()
	r, _ := runFakeWith(t, "neveranswer", Options{CallTimeout: 500 * time.Millisecond})
	if !hasFinding(r, "C-M1", SevFailure) || r.OK {
		t.Fatalf("findings %+v", r.Findings)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("check took %v with a 500ms call timeout", took)
	}
}

func TestReportShapes(t *testing.T) {
	t.Parallel()
	r, _ := runFake(t, "crash")
	b, _ := json.Marshal(r)
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	for _, k := range []string{"ok", "descriptor", "state", "findings", "ended"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON report lacks %q: %s", k, b)
		}
	}
	if string(m["descriptor"]) != "null" || string(m["state"]) != "null" {
		t.Errorf("a Tick that never initialized has descriptor %s state %s, want null", m["descriptor"], m["state"])
	}
	if !strings.Contains(r.Ended.Screen, "check fake crash") || !strings.Contains(r.Ended.Screen, "panic: cannot find config") {
		t.Errorf("screen %q lacks what the Tick drew", r.Ended.Screen)
	}
	var sb strings.Builder
	WriteText(&sb, []string{"fake"}, r)
	if !strings.Contains(sb.String(), "FAIL") || !strings.Contains(sb.String(), "H-I1") {
		t.Errorf("text report:\n%s", sb.String())
	}
}

func TestCannotStart(t *testing.T) {
	_, err := Run(context.Background(), Options{Argv: []string{"/no/such/tick"}})
	if err == nil || !strings.Contains(err.Error(), "/no/such/tick") {
		t.Fatalf("err %v", err)
	}
}

// reportAgrees checks what the text report says against the verdict (issue 42 item 3): a step
// marked FAIL only when the verdict is FAIL, a step that missed a SHOULD marked WARN, and each
// finding printed with its rule's id and the draft's sentence.
func reportAgrees(t *testing.T, r *Report) {
	t.Helper()
	var sb strings.Builder
	WriteText(&sb, []string{"fake"}, r)
	text := sb.String()
	for _, s := range r.Steps {
		if r.OK && s.Mark() == "FAIL" {
			t.Errorf("step %q is marked FAIL in a report that passes:\n%s", s.Name, text)
		}
		if !strings.Contains(text, "  "+fmt.Sprintf("%-4s", s.Mark())+" "+s.Name+": ") {
			t.Errorf("step %q is not printed with its mark %s:\n%s", s.Name, s.Mark(), text)
		}
	}
	for _, f := range r.Findings {
		draft := DraftOf(f.Rule)
		if draft == "" {
			t.Errorf("finding %s has no sentence of the draft in Rules", f.Rule)
		} else if !strings.Contains(text, f.Rule+" ") || !strings.Contains(text, "the draft, "+draft+"\n") {
			t.Errorf("finding %s is printed without its id or the draft's sentence %q:\n%s", f.Rule, draft, text)
		}
	}
	verdict := "\nPASS: "
	if !r.OK {
		verdict = "\nFAIL: "
	}
	if !strings.Contains(text, verdict) {
		t.Errorf("the verdict is not %q:\n%s", verdict, text)
	}
}
