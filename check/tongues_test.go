package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Two Ticks of our own in styles no other fixture uses, each with variants whose authors decided,
// from the draft, what check must find: a bash + jq to-do list (testdata/shtodo.sh) and a C lap
// counter built with cc (testdata/lapc.c). check must find exactly that, no more.
func TestOwnTicksInOtherLanguages(t *testing.T) {
	type verdict struct {
		rule, severity string
	}
	type variant struct {
		env  string
		ok   bool
		want []verdict
	}
	abs, _ := filepath.Abs("testdata")
	run := func(t *testing.T, argv []string, v variant) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		opts := Options{Argv: argv, Dir: t.TempDir(), Env: []string{v.env}, Watch: 300 * time.Millisecond}
		if v.ok && len(v.want) == 0 {
			opts.exitWait = conformingExit
		}
		r, err := Run(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []verdict
		for _, f := range r.Findings {
			if !slices.Contains(got, verdict{f.Rule, f.Severity}) {
				got = append(got, verdict{f.Rule, f.Severity})
			}
		}
		slices.SortFunc(got, func(a, b verdict) int { return compareStrings(a.rule, b.rule) })
		if r.OK != v.ok || !slices.Equal(got, v.want) {
			t.Errorf("%s: ok %v, findings %+v; its author decided ok %v, %v", v.env, r.OK, r.Findings, v.ok, v.want)
		}
	}

	t.Run("bash", func(t *testing.T) {
		bash, errB := exec.LookPath("bash")
		_, errJ := exec.LookPath("jq")
		if errB != nil || errJ != nil {
			if os.Getenv("CI") == "true" && errJ != nil {
				t.Fatal("jq is not installed; scripts/install-test-deps installs it")
			}
			t.Skip("needs bash and jq (scripts/install-test-deps installs jq)")
		}
		argv := []string{bash, filepath.Join(abs, "shtodo.sh")}
		for _, v := range []variant{
			{"SHTODO_VARIANT=good", true, nil},
			{"SHTODO_VARIANT=describerev", false, []verdict{{"C-R1", SevFailure}}}, // spec 4.4
			{"SHTODO_VARIANT=queryfile", false, []verdict{{"C-K6", SevFailure}}},   // spec 5.6
			{"SHTODO_VARIANT=token", true, []verdict{{"C-S3", SevWarning}}},        // spec 10
		} {
			t.Run(v.env, func(t *testing.T) { run(t, argv, v) })
		}
	})

	t.Run("c", func(t *testing.T) {
		cc, err := exec.LookPath("cc")
		if err != nil {
			t.Skip("needs a C compiler (cc) to build testdata/lapc.c")
		}
		bin := filepath.Join(t.TempDir(), "lapc")
		if out, err := exec.Command(cc, "-O", "-o", bin, filepath.Join(abs, "lapc.c")).CombinedOutput(); err != nil {
			t.Fatalf("cc: %v\n%s", err, out)
		}
		for _, v := range []variant{
			{"LAPC_VARIANT=good", true, nil},
			{"LAPC_VARIANT=stale", false, []verdict{{"C-K1", SevFailure}, {"C-K4", SevFailure}}}, // spec 7.2
			{"LAPC_VARIANT=bigstate", true, []verdict{{"C-S1", SevNote}}},                        // spec 6.4
			{"LAPC_VARIANT=wrongcode", true, []verdict{{"C-M2", SevWarning}}},                    // JSON-RPC 2.0, spec 3.2
		} {
			t.Run(v.env, func(t *testing.T) { run(t, []string{bin}, v) })
		}
	})
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
