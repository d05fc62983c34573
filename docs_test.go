package main

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tickmux/config"
	"tickmux/keymap"
	"tickmux/themes"
)

// docs/reference.md is the manual. The parts of it that list what the code has (each command's
// usage as `tickmux help CMD` prints it, the global options, every default key binding, the
// colour roles) sit between markers and are made from the code:
//
//	<!-- generated: help call -->
//	...
//	<!-- end generated -->
//
// TestReferenceIsTheCode makes each part again and compares. After changing a command, a flag, a
// key binding or a colour role, rewrite them with
//
//	TICKMUX_WRITE_DOCS=1 go test -run TestReferenceIsTheCode .
//
// and write the prose around a new one by hand.
const referencePath = "docs/reference.md"

var generatedPart = regexp.MustCompile(`(?s)<!-- generated: ([a-z-]+) ?([a-z-]*) -->\n(.*?)<!-- end generated -->\n`)

// generate makes the text of one generated part.
func generate(t *testing.T, kind, arg string) string {
	t.Helper()
	switch kind {
	case "help":
		args := []string{"help"}
		if arg != "" {
			args = append(args, arg)
		}
		var out bytes.Buffer
		if code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &out}); code != 0 {
			t.Fatalf("tickmux %q exited %d: %s", args, code, out.String())
		}
		return "```text\n" + out.String() + "```\n"
	case "keys":
		return keyTable(keymap.Mode(arg))
	case "colour-roles":
		var b strings.Builder
		for i, r := range themes.Roles() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + r + "`")
		}
		return b.String() + ".\n"
	}
	t.Fatalf("%s: unknown generated part %q", referencePath, kind)
	return ""
}

// keyTable is the default bindings of one mode: a row per action, in the help overlay's order,
// with every key bound to it.
func keyTable(mode keymap.Mode) string {
	type row struct {
		keys   []string
		action keymap.Action
	}
	var rows []row
	for _, b := range keymap.Default().Bindings() {
		if b.Mode != mode {
			continue
		}
		key := "`" + strings.ReplaceAll(b.Key.String(), "|", `\|`) + "`"
		if n := len(rows); n > 0 && rows[n-1].action == b.Action {
			rows[n-1].keys = append(rows[n-1].keys, key)
			continue
		}
		rows = append(rows, row{[]string{key}, b.Action})
	}
	if len(rows) == 0 {
		return "(none by default)\n"
	}
	var b strings.Builder
	b.WriteString("| keys | action | what it does |\n| --- | --- | --- |\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r.keys, " ") + " | `" + string(r.action) + "` | " + r.action.Help() + " |\n")
	}
	return b.String()
}

// TestReferenceIsTheCode: docs/reference.md lists every command of mainCommands, in the help's
// order, each with its usage and flags exactly as `tickmux help CMD` prints them; the global
// help; the default key bindings of every mode of keymap.Modes; the colour roles; and exactly the
// settings of config.File. A command, flag, key, action, mode, role or setting added to the code
// and not to the reference fails, and so does one the reference lists that the code lacks.
func TestReferenceIsTheCode(t *testing.T) {
	// The defaults that name paths print them as the reference writes them, whoever runs this.
	t.Setenv("XDG_CONFIG_HOME", "$XDG_CONFIG_HOME")
	t.Setenv("NO_COLOR", "")
	b, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)

	// The generated parts, each equal to what the code makes now.
	seen := map[string]bool{}
	var failed bool
	rewritten := generatedPart.ReplaceAllStringFunc(doc, func(part string) string {
		m := generatedPart.FindStringSubmatch(part)
		kind, arg, got := m[1], m[2], m[3]
		seen[kind+" "+arg] = true
		want := generate(t, kind, arg)
		if got != want {
			failed = true
			t.Errorf("%s: the part %q differs from the code; it should read:\n%s\nit reads:\n%s", referencePath, kind+" "+arg, want, got)
		}
		return "<!-- generated: " + strings.TrimSpace(kind+" "+arg) + " -->\n" + want + "<!-- end generated -->\n"
	})
	if failed && os.Getenv("TICKMUX_WRITE_DOCS") == "1" {
		if err := os.WriteFile(referencePath, []byte(rewritten), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the generated parts of %s: run the test again", referencePath)
	}

	// Every command has its section, in the help's order, with its usage; none is extra.
	var want []string
	for _, c := range mainCommands() {
		want = append(want, c.name)
		if !seen["help "+c.name] {
			t.Errorf("%s has no usage of %q (a part <!-- generated: help %s -->)", referencePath, c.name, c.name)
		}
	}
	var headed []string
	for _, m := range regexp.MustCompile("(?m)^### `tickmux ([a-z-]+)`").FindAllStringSubmatch(doc, -1) {
		headed = append(headed, m[1])
	}
	if !slices.Equal(headed, want) {
		t.Errorf("%s's command sections (### `tickmux NAME`) are %q; the commands are %q", referencePath, headed, want)
	}
	for k := range seen {
		kind, arg, _ := strings.Cut(k, " ")
		if kind == "help" && arg != "" && !slices.Contains(want, arg) {
			t.Errorf("%s shows the usage of %q, which is no command", referencePath, arg)
		}
	}
	if !seen["help "] {
		t.Errorf("%s lacks the global help (<!-- generated: help -->)", referencePath)
	}

	// Every mode's keys.
	for _, m := range keymap.Modes {
		if !seen["keys "+string(m)] {
			t.Errorf("%s has no table of the %s mode's keys (<!-- generated: keys %s -->)", referencePath, m, m)
		}
	}
	if !seen["colour-roles "] {
		t.Errorf("%s lacks the colour roles (<!-- generated: colour-roles -->)", referencePath)
	}

	// The settings table of the CONFIGURATION section names exactly config.File's keys.
	var keys []string
	ft := reflect.TypeOf(config.File{})
	for i := 0; i < ft.NumField(); i++ {
		keys = append(keys, ft.Field(i).Tag.Get("toml"))
	}
	_, sec, ok := strings.Cut(doc, "\n## CONFIGURATION\n")
	if !ok {
		t.Fatalf("%s has no CONFIGURATION section", referencePath)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, table, ok := strings.Cut(sec, "\n| setting | default | what it does |\n| --- | --- | --- |\n")
	if !ok {
		t.Fatalf("%s's CONFIGURATION has no table headed | setting | default | what it does |", referencePath)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `\\[*([a-z_]+)").FindAllStringSubmatch(table, -1) {
		listed = append(listed, m[1])
	}
	slices.Sort(keys)
	slices.Sort(listed)
	if !slices.Equal(listed, keys) {
		t.Errorf("%s's settings are %q; config.File has %q", referencePath, listed, keys)
	}
}

// README "Two commands": CI (.ci/run) runs exactly the README's test command, so what a newcomer
// runs is what CI runs.
func TestCIRunsTheReadmeTestCommand(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "\n## Two commands\n")
	if !ok {
		t.Fatal(`README has no "## Two commands" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)\n```").FindAllStringSubmatch(sec, -1)
	if len(blocks) != 2 {
		t.Fatalf(`README's "Two commands" has %d sh blocks, want 2 (run the demo, run the tests)`, len(blocks))
	}
	want := strings.TrimSpace(blocks[1][1])
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(ci)), "\n")
	if got := strings.TrimSpace(lines[len(lines)-1]); got != want {
		t.Errorf(".ci/run runs %q; the README's test command is %q", got, want)
	}
}
