package views

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// complete completes the word before the end of the focused prompt field: a program name from
// PATH as the command's first word, else a path (relative to the directory field); directories
// only in the directory field. One match completes whole; several complete their common
// beginning and are listed.
func (p *promptView) complete() {
	f := p.field()
	text := f.GetText()
	start := strings.LastIndexAny(text, " \t") + 1
	word := text[start:]
	var matches []string
	switch {
	case p.active == 1:
		matches = completePath(word, "", true)
	case strings.TrimLeft(text[:start], " !") == "" && !strings.Contains(strings.TrimPrefix(word, "!"), "/"):
		bang := strings.HasPrefix(word, "!")
		name := strings.TrimPrefix(word, "!")
		if name == "" {
			return
		}
		for _, m := range completeProgram(name) {
			if bang {
				m = "!" + m
			}
			matches = append(matches, m+" ")
		}
	default:
		bang := start == 0 && strings.HasPrefix(word, "!")
		matches = completePath(strings.TrimPrefix(word, "!"), expandHome(strings.TrimSpace(p.dir.GetText())), false)
		if bang {
			for i := range matches {
				matches[i] = "!" + matches[i]
			}
		}
	}
	p.err = ""
	switch len(matches) {
	case 0:
		p.err = "nothing to complete"
		return
	case 1:
		f.SetText(text[:start] + matches[0])
		return
	}
	common := matches[0]
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m, common) {
			common = common[:len(common)-1]
		}
	}
	for !utf8.ValidString(common) { // never half a character
		common = common[:len(common)-1]
	}
	if len(common) > len(word) {
		f.SetText(text[:start] + common)
	}
	shown := matches
	if len(shown) > 12 {
		shown = shown[:12]
	}
	p.err = strings.Join(shown, "  ")
	if len(matches) > len(shown) {
		p.err += "  …"
	}
}

// completeProgram lists the programs in PATH whose names start with prefix, sorted, once each.
func completeProgram(prefix string) []string {
	seen := map[string]bool{}
	var out []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, prefix) || seen[name] {
				continue
			}
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				continue
			}
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// completePath lists the paths that word could become, relative to base when it is relative;
// directories end with a slash.
func completePath(word, base string, dirsOnly bool) []string {
	dirPart, name := filepath.Split(word)
	dir := expandHome(dirPart)
	if dir == "" {
		dir = "."
	}
	if !filepath.IsAbs(dir) && base != "" {
		dir = filepath.Join(base, dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, name) || strings.HasPrefix(n, ".") && !strings.HasPrefix(name, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil {
				isDir = fi.IsDir()
			}
		}
		switch {
		case isDir:
			out = append(out, dirPart+n+"/")
		case !dirsOnly:
			out = append(out, dirPart+n+" ")
		}
	}
	sort.Strings(out)
	return out
}
