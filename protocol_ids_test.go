package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docs/protocol.md is the repository's account of Tick protocol 3: each rule is a paragraph that
// starts with its id in bold and the draft's section it rests on, "**H-V2** (3.1, 3.6) ...".
// Tests name the rule they test in a comment ("// spec: H-V2", "// spec: H-U1, H-U2",
// "// spec: H-SUB1 H-U2 H-RC1 (...)", "// spec: H-RD3, beside H-I1"); check's own rules (C-K1,
// C-X1, ...) are defined in docs/ticks.md's findings table and named by check's code and tests
// ("// C-K1", Rule: "C-K1").
const (
	protocolPath = "docs/protocol.md"
	ticksPath    = "docs/ticks.md"
)

// ruleID is how a rule id is spelled wherever it is cited: the host's H-…, check's C-….
var ruleID = regexp.MustCompile(`\b[HC]-[A-Z]+[0-9]+\b`)

// ruleLine is a rule's definition in docs/protocol.md: its id in bold at the start of a line,
// then the draft's section numbers in parentheses.
var ruleLine = regexp.MustCompile(`^\*\*([HC]-[A-Z]+[0-9]+)\*\*(.*)$`)

var sectionRef = regexp.MustCompile(`^ \([0-9]+(\.[0-9]+)?[,;) ]`)

// findingRow is a row of docs/ticks.md's findings table: "| C-K1 | failure | ...".
var findingRow = regexp.MustCompile(`^\| ([HC]-[A-Z]+[0-9]+) \|`)

// TestProtocolIDs: every rule id cited in a Go file of the repository is defined (in
// docs/protocol.md, or for check's C-… ids in docs/ticks.md's findings table); every rule
// docs/protocol.md defines is defined once, names the draft's section, and is cited by at least
// one test; so is every C-… finding of docs/ticks.md; and docs/protocol.md mentions no id it
// does not define.
func TestProtocolIDs(t *testing.T) {
	protocol, err := os.ReadFile(protocolPath)
	if err != nil {
		t.Fatal(err)
	}
	ticks, err := os.ReadFile(ticksPath)
	if err != nil {
		t.Fatal(err)
	}

	defined := map[string]string{} // id -> where
	var rules []string             // docs/protocol.md's, in order
	sc := bufio.NewScanner(bytes.NewReader(protocol))
	for n := 1; sc.Scan(); n++ {
		m := ruleLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		id := m[1]
		if _, dup := defined[id]; dup {
			t.Errorf("%s:%d defines %s a second time", protocolPath, n, id)
		}
		if !sectionRef.MatchString(m[2]) {
			t.Errorf("%s:%d: %s names no section of the draft, as in \"**%s** (3.6) ...\"", protocolPath, n, id, id)
		}
		defined[id] = protocolPath
		rules = append(rules, id)
	}
	if len(rules) == 0 {
		t.Fatalf("%s defines no rule (a line starting with **H-…**)", protocolPath)
	}
	var findings []string // docs/ticks.md's C-… rows
	for _, line := range strings.Split(string(ticks), "\n") {
		if m := findingRow.FindStringSubmatch(line); m != nil && strings.HasPrefix(m[1], "C-") {
			defined[m[1]] = ticksPath
			findings = append(findings, m[1])
		}
	}
	if len(findings) == 0 {
		t.Fatalf("%s has no findings table rows (| C-… |)", ticksPath)
	}

	// Every id mentioned in docs/protocol.md is one it or the findings table defines.
	for _, id := range uniq(ruleID.FindAllString(string(protocol), -1)) {
		if defined[id] == "" {
			t.Errorf("%s mentions %s, which no rule defines", protocolPath, id)
		}
	}

	// The ids the Go files cite, and those the tests cite.
	cited := map[string][]string{}   // id -> Go files citing it
	inTests := map[string][]string{} // id -> test files citing it
	self := "protocol_ids_test.go"   // its own ids are examples, not citations
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || path == self {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, id := range uniq(ruleID.FindAllString(string(b), -1)) {
			cited[id] = append(cited[id], path)
			if strings.HasSuffix(path, "_test.go") {
				inTests[id] = append(inTests[id], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	for _, id := range sortedKeys(cited) {
		if defined[id] == "" {
			t.Errorf("%s cites %s, which neither %s nor %s's findings table defines", strings.Join(cited[id], ", "), id, protocolPath, ticksPath)
		}
	}
	for _, id := range append(rules, findings...) {
		if len(inTests[id]) == 0 {
			t.Errorf("no test cites %s (defined in %s): write a test that names it (// spec: %s)", id, defined[id], id)
		}
	}
}

func uniq(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
