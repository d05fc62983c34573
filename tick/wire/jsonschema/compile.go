// Package jsonschema checks JSON values against JSON Schema, every published draft a Tick may
// name (draft-04, -06, -07, 2019-09, and 2020-12, the default), for Tick protocol 3's
// input_schema (spec 5.2, 5.3, host rules H-D1 and H-K1).
//
// It is written for schemas that come from programs the host does not trust:
//   - Compile checks that a schema is a valid schema of its draft (what the draft's meta-schema
//     asks: a type is one of the seven names, minLength a non-negative integer, ...) and names
//     the keyword path of every problem ("at /properties/a/minLength: ...").
//   - References stay inside the schema: a $ref to anything the schema does not itself hold
//     (a file, a URL, another draft's meta-schema) is refused, so compiling reads nothing.
//   - A $ref cycle that would apply schemas to the same value without end is refused when
//     compiled; schemas nest at most maxDepth levels; Validate gives up with a clear error after
//     a number of steps proportional to the value's size, so no schema can make it run away.
//   - Patterns are ECMA-262, as every draft says (pattern.go): lookaround and backreferences
//     work. Such an engine backtracks, so each match has a time budget, and all the matches of
//     one check another; a pattern that runs past it is taken as matched and reported
//     (Schema.Check), never a reason to hang.
//   - What the package cannot apply is never a reason to refuse a schema: a pattern it cannot
//     run or longer than 10,000 bytes, a $schema it does not know (checked as 2020-12 when it
//     is valid as such; otherwise, and for draft-03, whose keywords mean other things, nothing is
//     checked). Schema.Unchecked lists each at its path; the program that receives the value
//     checks it itself (spec 7.2).
//   - Validate reports every part of the value that does not fit, each at its JSON Pointer.
//
// format and the content keywords are annotations, as draft 2020-12 has them by default: they
// are checked for shape, not applied, in every draft.
//
// Why our own package and not a library (STYLE.md 18), measured on 2026-12-02:
//   - Conformance: TestOfficialSuite runs the JSON-Schema-Test-Suite for every draft accepted,
//     from two copies fetched as Go modules, with the optional ECMA-262 regex files: all tests
//     pass (2020-12: 1051 and 1036, 2019-09: 1044, draft-07: 886 and 822, draft-06: 748,
//     draft-04: 584); only the 9 to 22 cases per draft whose schema refers outside itself are
//     refused, by design.
//   - Start-up: santhosh-tekuri/jsonschema/v6, which covers every draft too, was dropped for
//     compiling every draft's meta-schema at init in every tickmux process (10-20 ms, 1.7 MB).
//     This package has no init work; the pattern engine, dlclark/regexp2 v1.12, costs 0.06-0.09
//     ms and 29 KB of init (GODEBUG=inittrace=1 on tickmux --help) in every tickmux process.
//     regexp2/v2 (v2.13) was measured too: 0.17-1.3 ms and
//     140 KB of init for Unicode 17 tables this use does not need; v1.12's ECMAScript|Unicode
//     mode passes the suite's ECMA-262 tests.
//   - google/jsonschema-go, which the binary links through the MCP SDK, knows only 2020-12 and
//     draft-07 and runs patterns with Go's RE2 (no lookaround, no backreferences).
//   - Hostile schemas: the limits above, with tests (TestHostileSchemas, TestCatastrophicPattern
//     WithinBudget): nesting, cycles, products of anyOf behind $ref, catastrophic backtracking.
//
// The package has no init work: it builds nothing until a schema is compiled.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Draft is a JSON Schema draft this package checks.
type Draft int

const (
	Draft2020 Draft = iota // draft 2020-12, the default when $schema is absent
	Draft7                 // draft-07
	Draft4                 // draft-04
	Draft6                 // draft-06
	Draft2019              // draft 2019-09
)

func (d Draft) String() string {
	switch d {
	case Draft7:
		return "draft-07"
	case Draft4:
		return "draft-04"
	case Draft6:
		return "draft-06"
	case Draft2019:
		return "draft 2019-09"
	}
	return "draft 2020-12"
}

// at is the draft's place in time (4, 6, 7, 2019, 2020), so that "since draft-06" reads v >= 6.
func (d Draft) at() int {
	switch d {
	case Draft7:
		return 7
	case Draft4:
		return 4
	case Draft6:
		return 6
	case Draft2019:
		return 2019
	}
	return 2020
}

// Limits on what a schema may ask of the checker.
const (
	maxDepth = 200 // subschemas inside subschemas
)

// defaultBase is the URI a schema without $id is known by while references are resolved.
const defaultBase = "tick:///schema.json"

// Problem is one thing wrong, at a JSON Pointer into the schema (from Compile) or into the
// value (from Validate); "" is the whole document.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string {
	return clean("at " + showPath(p.Path) + ": " + p.Message)
}

// clean escapes control characters (a schema's or a value's text may carry terminal escapes):
// a message is shown to people, and no byte of it may drive their terminal.
func clean(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// showPath renders a pointer for a message: "/" for the whole document, long ones cut.
func showPath(p string) string {
	if p == "" {
		return "/"
	}
	if len(p) > 120 {
		return p[:60] + "…" + p[len(p)-50:]
	}
	return p
}

// schemaRef renders a schema location inside a message: "#/properties/a".
func schemaRef(p string) string {
	if len(p) > 120 {
		p = p[:60] + "…" + p[len(p)-50:]
	}
	return "#" + p
}

// maxListed bounds the problems an error's text lists.
const maxListed = 20

func listProblems(ps []Problem, more int) string {
	n := min(len(ps), maxListed)
	parts := make([]string, n)
	for i, p := range ps[:n] {
		parts[i] = p.String()
	}
	s := strings.Join(parts, "; ")
	if rest := len(ps) - n + more; rest > 0 {
		s += fmt.Sprintf("; and %d more", rest)
	}
	return s
}

// SchemaError lists why a schema is not one this package accepts.
type SchemaError struct {
	Problems []Problem
}

func (e *SchemaError) Error() string { return listProblems(e.Problems, 0) }

// Schema is a compiled schema. It never changes and may be used by many goroutines at once.
type Schema struct {
	root  *node
	draft Draft
	// annotations: the schema has unevaluatedItems or unevaluatedProperties, so evaluation must
	// note which items and properties each subschema looked at.
	annotations bool
	unchecked   []Problem
}

// Unchecked lists what of the schema is not applied, each at its path in the schema with why
// (a pattern this package cannot run, a $schema it does not know): a value always passes it, so
// the program that receives the value must check it itself (spec 7.2). Nil when everything is.
func (s *Schema) Unchecked() []Problem { return s.unchecked }

// Draft is the draft the schema was checked as.
func (s *Schema) Draft() Draft { return s.draft }

// node is one compiled schema (a boolean, or an object of keywords).
type node struct {
	path    string    // JSON Pointer in the document
	res     *resource // the schema resource it belongs to (for $dynamicRef)
	isBool  bool
	boolVal bool

	refOnly       bool // drafts 04 to 07: a $ref's siblings are ignored
	ref           *node
	dynamicRef    *node
	dynamicAnchor string // $dynamicRef resolves in the dynamic scope to this anchor

	types    typeSet
	enum     []any
	hasEnum  bool
	constant any
	hasConst bool

	multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum *bound
	exclusiveMinFlag, exclusiveMaxFlag                               bool // draft-04: the boolean forms
	minLength, maxLength                                             int  // -1: absent
	pattern                                                          *pattern

	allOf, anyOf, oneOf    []*node
	not, ifS, thenS, elseS *node

	prefixItems              []*node
	items                    *node
	additionalItems          *node // before 2020-12 only; folded into items once compiled
	itemsIsArray             bool  // before 2020-12, items held an array (now prefixItems)
	contains                 *node
	minItems, maxItems       int
	minContains, maxContains int
	uniqueItems              bool
	unevaluatedItems         *node

	properties            []property // sorted by name
	propIndex             map[string]*node
	patternProperties     []patternProperty
	additionalProperties  *node
	propertyNames         *node
	required              []string
	dependentRequired     []dependency // sorted by name
	dependentSchemas      []dependency // sorted by name
	minProperties         int
	maxProperties         int
	unevaluatedProperties *node
}

type bound struct {
	d    decimal
	text string // as the schema wrote it
}

type pattern struct {
	src string
	re  *ecmaRegexp
}

type property struct {
	name string
	n    *node
}

type patternProperty struct {
	p *pattern
	n *node
}

type dependency struct {
	name   string
	needs  []string // dependentRequired
	schema *node    // dependentSchemas
}

// resource is a schema resource: the document, or a subschema with an $id.
type resource struct {
	uri     string
	path    string
	value   any
	anchors map[string]anchor
}

type anchor struct {
	n       *node
	dynamic bool
	where   string
}

type refSite struct {
	n       *node
	keyword string // "$ref" or "$dynamicRef"
	ref     string
	base    *resource
	where   string
}

type compiler struct {
	draft       Draft
	v           int // draft.at()
	nodes       map[string]*node
	byURI       map[string]*resource
	byPath      map[string]*resource // the innermost resource rooted at each path
	dynamic     map[string][]*node   // $dynamicAnchor name → the schemas that declare it
	refs        []refSite
	probs       []Problem
	annotations bool
	unchecked   []Problem // keywords kept but not applied (see Schema.Unchecked)
}

// Compile reads a schema (a JSON object or boolean) and checks it (see the package comment).
// A schema that is not JSON gets the decoder's error; one that is not a valid schema gets a
// *SchemaError listing every problem.
func Compile(data []byte) (*Schema, error) {
	doc, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return CompileValue(doc)
}

// CompileValue is Compile of a value that Decode returned.
func CompileValue(doc any) (*Schema, error) {
	draft, note := Draft2020, ""
	if m, ok := doc.(map[string]any); ok {
		if v, ok := m["$schema"]; ok {
			d, known, why := draftOf(v)
			switch {
			case why != "":
				return nil, &SchemaError{Problems: []Problem{{Path: "/$schema", Message: why}}}
			case known:
				draft = d
			case d == draftNone:
				return uncheckedSchema(fmt.Sprintf("%s names draft-03, whose keywords mean other things than in "+
					"the drafts this host checks: nothing of this schema is checked", quote(v.(string))))
			default:
				note = fmt.Sprintf("%s is not a JSON Schema draft this host knows (draft-04, -06, -07, 2019-09, 2020-12): "+
					"the schema is checked as draft 2020-12", quote(v.(string)))
			}
		}
	}
	s, err := compileAs(doc, draft)
	if note == "" {
		return s, err
	}
	if err != nil {
		return uncheckedSchema(note + ", and is not valid as such (" + err.Error() + "): nothing of it is checked")
	}
	s.unchecked = append([]Problem{{Path: "/$schema", Message: note}}, s.unchecked...)
	return s, nil
}

// uncheckedSchema accepts every value and says why.
func uncheckedSchema(why string) (*Schema, error) {
	return &Schema{root: &node{isBool: true, boolVal: true}, unchecked: []Problem{{Path: "/$schema", Message: why}}}, nil
}

func compileAs(doc any, draft Draft) (*Schema, error) {
	c := &compiler{draft: draft, v: draft.at(), nodes: map[string]*node{}, byURI: map[string]*resource{}, byPath: map[string]*resource{},
		dynamic: map[string][]*node{}}
	root := &resource{uri: defaultBase, value: doc}
	c.byURI[defaultBase] = root
	c.byPath[""] = root
	rootNode := c.schema(doc, "", root, 0)
	for len(c.refs) > 0 {
		site := c.refs[0]
		c.refs = c.refs[1:]
		c.link(site)
	}
	if len(c.probs) == 0 {
		c.checkCycles()
	}
	if len(c.probs) > 0 {
		return nil, &SchemaError{Problems: c.probs}
	}
	for _, n := range c.nodes {
		if c.v < 2020 && n.itemsIsArray {
			n.items = n.additionalItems // items past the array's end
		}
	}
	slices.SortFunc(c.unchecked, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return &Schema{root: rootNode, draft: c.draft, annotations: c.annotations, unchecked: c.unchecked}, nil
}

// draftNone marks draft-03 in draftOf's answer.
const draftNone Draft = -1

// draftOf reads a $schema value: the draft and whether this package knows it (draftNone for
// draft-03); why says what is wrong with it when it is not a string.
func draftOf(v any) (d Draft, known bool, why string) {
	s, ok := v.(string)
	if !ok {
		return 0, false, fmt.Sprintf("must be a string (the URI of a draft), not %s", kindWords(v))
	}
	u := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://"), "#")
	switch u {
	case "json-schema.org/draft/2020-12/schema":
		return Draft2020, true, ""
	case "json-schema.org/draft/2019-09/schema":
		return Draft2019, true, ""
	case "json-schema.org/draft-07/schema":
		return Draft7, true, ""
	case "json-schema.org/draft-06/schema":
		return Draft6, true, ""
	case "json-schema.org/draft-04/schema":
		return Draft4, true, ""
	case "json-schema.org/draft-03/schema":
		return draftNone, false, ""
	}
	return Draft2020, false, ""
}

// notApplied notes a keyword kept but not applied.
func (c *compiler) notApplied(path, format string, args ...any) {
	c.unchecked = append(c.unchecked, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (c *compiler) problem(path, format string, args ...any) {
	c.probs = append(c.probs, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// schema compiles the schema v found at path, in resource res, depth subschemas deep.
func (c *compiler) schema(v any, path string, res *resource, depth int) *node {
	if n := c.nodes[path]; n != nil {
		return n
	}
	n := &node{path: path, res: res, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minContains: -1, maxContains: -1, minProperties: -1, maxProperties: -1}
	c.nodes[path] = n
	m, isObj := v.(map[string]any)
	switch {
	case !isObj:
		n.isBool = true
		b, isBool := v.(bool)
		if !isBool {
			c.problem(path, "must be a schema (an object, true or false), not %s", kindWords(v))
		}
		n.boolVal = b
		return n
	case depth > maxDepth:
		c.problem(path, "schemas nest more than %d levels deep", maxDepth)
		n.isBool = true
		return n
	}
	n.refOnly = c.v <= 7 && m["$ref"] != nil
	if v, ok := m["$schema"]; ok && path != "" {
		if d, known, why := draftOf(v); why != "" {
			c.problem(path+"/$schema", "%s", why)
		} else if !known || d != c.draft {
			c.notApplied(path+"/$schema", "names %s inside a %s schema: checked as %s", quote(v.(string)), c.draft, c.draft)
		}
	}
	idKeyword := "$id"
	if c.v == 4 {
		idKeyword = "id"
	}
	if id, ok := m[idKeyword]; ok && !n.refOnly {
		res = c.identify(id, n, m, path, idKeyword, res)
		n.res = res
	}
	if c.v >= 2019 {
		for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
			if v, ok := m[kw]; ok && (kw == "$anchor" || c.v >= 2020) {
				c.anchor(v, n, res, kw == "$dynamicAnchor", path+"/"+kw)
			}
		}
	}
	if v, ok := m["$recursiveAnchor"]; ok && c.v == 2019 {
		// draft 2019-09: a resource that says true is where "$recursiveRef": "#" may land.
		if b, _ := c.boolean(v, path+"/$recursiveAnchor"); b && res.path == path {
			c.addAnchor(res, recursiveAnchor, n, true, path+"/$recursiveAnchor")
			c.dynamic[recursiveAnchor] = append(c.dynamic[recursiveAnchor], n)
		}
	}
	for _, kw := range sortedKeys(m) {
		c.keyword(n, kw, m[kw], path+"/"+escapeToken(kw), res, depth)
	}
	// draft-04: exclusiveMaximum and exclusiveMinimum are booleans that make the bound exclusive.
	if n.exclusiveMaxFlag && n.maximum != nil {
		n.exclusiveMaximum, n.maximum = n.maximum, nil
	}
	if n.exclusiveMinFlag && n.minimum != nil {
		n.exclusiveMinimum, n.minimum = n.minimum, nil
	}
	return n
}

// recursiveAnchor is the anchor name a draft 2019-09 "$recursiveAnchor": true stands for; no
// $anchor can have it (an anchor name starts with a letter or _).
const recursiveAnchor = "#recursive"

// identify reads the $id of n (the schema m at path): a new resource, or (draft-07 "#name") an
// anchor in res.
func (c *compiler) identify(id any, n *node, m map[string]any, path, keyword string, res *resource) *resource {
	where := path + "/" + keyword
	s, ok := id.(string)
	if !ok {
		c.problem(where, "must be a string, not %s", kindWords(id))
		return res
	}
	u, err := url.Parse(s)
	if err != nil {
		c.problem(where, "%s is not a URI reference", quote(s))
		return res
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	if frag != "" && c.v >= 2019 {
		c.problem(where, "%s has a fragment; in %s name a subschema with $anchor", quote(s), c.draft)
		return res
	}
	if frag != "" && strings.HasPrefix(frag, "/") {
		c.problem(where, "%s has a JSON Pointer fragment; an $id may only name a plain anchor", quote(s))
		return res
	}
	if u.String() == "" {
		if frag != "" {
			c.addAnchor(res, frag, n, false, where)
		}
		return res
	}
	base, err := url.Parse(res.uri)
	if err != nil {
		c.problem(where, "%s cannot be resolved against %s", quote(s), quote(res.uri))
		return res
	}
	abs := base.ResolveReference(u)
	abs.Fragment, abs.RawFragment = "", ""
	key := abs.String()
	if prev := c.byURI[key]; prev != nil && prev.path != path {
		c.problem(where, "%s is also the $id of the schema at %s", quote(s), schemaRef(prev.path))
		return res
	}
	nr := &resource{uri: key, path: path, value: m}
	c.byURI[key] = nr
	c.byPath[path] = nr
	if frag != "" {
		c.addAnchor(nr, frag, n, false, where)
	}
	return nr
}

func (c *compiler) anchor(v any, n *node, res *resource, dynamic bool, where string) {
	s, ok := v.(string)
	if !ok {
		c.problem(where, "must be a string, not %s", kindWords(v))
		return
	}
	if !validAnchor(s) {
		c.problem(where, "%s is not an anchor name (a letter or _, then letters, digits, -, _ or .)", quote(s))
		return
	}
	c.addAnchor(res, s, n, dynamic, where)
	if dynamic {
		c.dynamic[s] = append(c.dynamic[s], n)
	}
}

func validAnchor(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		letter := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '_'
		if !letter && (i == 0 || !(ch >= '0' && ch <= '9' || ch == '-' || ch == '.')) {
			return false
		}
	}
	return true
}

func (c *compiler) addAnchor(res *resource, name string, n *node, dynamic bool, where string) {
	if res.anchors == nil {
		res.anchors = map[string]anchor{}
	}
	prev, ok := res.anchors[name]
	if ok && prev.n != n {
		c.problem(where, "the anchor %s is declared twice in one schema resource (also at %s)", quote(name), prev.where)
		return
	}
	res.anchors[name] = anchor{n: n, dynamic: dynamic || prev.dynamic, where: where}
}

// keyword compiles one keyword of n. Keywords the draft does not know are ignored, as the drafts
// ask; a $ref may still point into them.
func (c *compiler) keyword(n *node, kw string, v any, p string, res *resource, depth int) {
	v7 := c.v
	sub := func(v any, p string) *node { return c.schema(v, p, res, depth+1) }
	switch kw {
	case "$ref":
		c.ref(n, kw, v, p, res)
	case "$dynamicRef":
		if v7 >= 2020 {
			c.ref(n, kw, v, p, res)
		}
	case "$recursiveRef":
		if v7 == 2019 {
			c.ref(n, kw, v, p, res)
		}
	case "title", "description", "format":
		c.str(v, p)
	case "$comment", "contentEncoding", "contentMediaType":
		if v7 >= 7 {
			c.str(v, p)
		}
	case "$defs":
		if v7 >= 2019 {
			c.schemaMap(v, p, sub)
		}
	case "definitions":
		if v7 <= 7 {
			c.schemaMap(v, p, sub)
		}
	case "$vocabulary":
		if v7 >= 2019 {
			if m, ok := c.object(v, p); ok {
				for _, k := range sortedKeys(m) {
					if _, ok := m[k].(bool); !ok {
						c.problem(p+"/"+escapeToken(k), "must be true or false, not %s", kindWords(m[k]))
					}
				}
			}
		}
	case "readOnly", "writeOnly":
		if v7 >= 7 {
			c.boolean(v, p)
		}
	case "deprecated":
		if v7 >= 2019 {
			c.boolean(v, p)
		}
	case "examples":
		if _, ok := v.([]any); !ok && v7 >= 6 {
			c.problem(p, "must be an array, not %s", kindWords(v))
		}
	case "type":
		n.types = c.typeKeyword(v, p)
	case "enum":
		arr, ok := v.([]any)
		if !ok {
			c.problem(p, "must be an array of the allowed values, not %s", kindWords(v))
			return
		}
		n.enum, n.hasEnum = arr, true
	case "const":
		if v7 >= 6 {
			n.constant, n.hasConst = v, true
		}
	case "multipleOf":
		if b := c.number(v, p); b != nil {
			if b.d.sign() <= 0 {
				c.problem(p, "must be a number greater than 0, not %s", b.text)
				return
			}
			n.multipleOf = b
		}
	case "minimum":
		n.minimum = c.number(v, p)
	case "maximum":
		n.maximum = c.number(v, p)
	case "exclusiveMinimum":
		if v7 == 4 {
			n.exclusiveMinFlag, _ = c.boolean(v, p)
		} else {
			n.exclusiveMinimum = c.number(v, p)
		}
	case "exclusiveMaximum":
		if v7 == 4 {
			n.exclusiveMaxFlag, _ = c.boolean(v, p)
		} else {
			n.exclusiveMaximum = c.number(v, p)
		}
	case "minLength":
		n.minLength = c.count(v, p)
	case "maxLength":
		n.maxLength = c.count(v, p)
	case "minItems":
		n.minItems = c.count(v, p)
	case "maxItems":
		n.maxItems = c.count(v, p)
	case "minProperties":
		n.minProperties = c.count(v, p)
	case "maxProperties":
		n.maxProperties = c.count(v, p)
	case "minContains":
		if v7 >= 2019 {
			n.minContains = c.count(v, p)
		}
	case "maxContains":
		if v7 >= 2019 {
			n.maxContains = c.count(v, p)
		}
	case "pattern":
		if s, ok := c.str(v, p); ok {
			n.pattern = c.pattern(s, p)
		}
	case "uniqueItems":
		n.uniqueItems, _ = c.boolean(v, p)
	case "required":
		n.required = c.names(v, p)
	case "dependentRequired":
		if v7 < 2019 {
			return
		}
		if m, ok := c.object(v, p); ok {
			for _, k := range sortedKeys(m) {
				n.dependentRequired = append(n.dependentRequired, dependency{name: k, needs: c.names(m[k], p+"/"+escapeToken(k))})
			}
		}
	case "dependencies":
		if v7 >= 2019 {
			return
		}
		if m, ok := c.object(v, p); ok {
			for _, k := range sortedKeys(m) {
				kp := p + "/" + escapeToken(k)
				if _, isArr := m[k].([]any); isArr {
					n.dependentRequired = append(n.dependentRequired, dependency{name: k, needs: c.names(m[k], kp)})
				} else {
					n.dependentSchemas = append(n.dependentSchemas, dependency{name: k, schema: sub(m[k], kp)})
				}
			}
		}
	case "dependentSchemas":
		if v7 >= 2019 {
			m := c.schemaMap(v, p, sub)
			for _, k := range sortedKeys(m) {
				n.dependentSchemas = append(n.dependentSchemas, dependency{name: k, schema: m[k]})
			}
		}
	case "properties":
		m := c.schemaMap(v, p, sub)
		n.propIndex = m
		for _, k := range sortedKeys(m) {
			n.properties = append(n.properties, property{name: k, n: m[k]})
		}
	case "patternProperties":
		m := c.schemaMap(v, p, sub)
		for _, k := range sortedKeys(m) {
			if pat := c.pattern(k, p+"/"+escapeToken(k)); pat != nil {
				n.patternProperties = append(n.patternProperties, patternProperty{p: pat, n: m[k]})
			}
		}
	case "additionalProperties":
		n.additionalProperties = sub(v, p)
	case "propertyNames":
		if v7 >= 6 {
			n.propertyNames = sub(v, p)
		}
	case "not":
		n.not = sub(v, p)
	case "if":
		if v7 >= 7 {
			n.ifS = sub(v, p)
		}
	case "then":
		if v7 >= 7 {
			n.thenS = sub(v, p)
		}
	case "else":
		if v7 >= 7 {
			n.elseS = sub(v, p)
		}
	case "contains":
		if v7 >= 6 {
			n.contains = sub(v, p)
		}
	case "allOf":
		n.allOf = c.schemaList(v, p, sub)
	case "anyOf":
		n.anyOf = c.schemaList(v, p, sub)
	case "oneOf":
		n.oneOf = c.schemaList(v, p, sub)
	case "prefixItems":
		if v7 >= 2020 {
			n.prefixItems = c.schemaList(v, p, sub)
		}
	case "items":
		if _, isArr := v.([]any); isArr {
			if v7 >= 2020 {
				c.problem(p, "must be a schema; an array of schemas is the form of drafts before 2020-12 (in draft 2020-12 use prefixItems)")
				return
			}
			n.prefixItems, n.itemsIsArray = c.schemaList(v, p, sub), true
			return
		}
		n.items = sub(v, p)
	case "additionalItems":
		if v7 < 2020 {
			n.additionalItems = sub(v, p)
		}
	case "unevaluatedItems":
		if v7 >= 2019 {
			n.unevaluatedItems = sub(v, p)
			c.annotations = true
		}
	case "unevaluatedProperties":
		if v7 >= 2019 {
			n.unevaluatedProperties = sub(v, p)
			c.annotations = true
		}
	case "contentSchema":
		if v7 >= 2019 {
			sub(v, p) // an annotation: checked, never applied
		}
	}
}

func (c *compiler) str(v any, p string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		c.problem(p, "must be a string, not %s", kindWords(v))
	}
	return s, ok
}

func (c *compiler) boolean(v any, p string) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		c.problem(p, "must be true or false, not %s", kindWords(v))
	}
	return b, ok
}

func (c *compiler) object(v any, p string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.problem(p, "must be an object, not %s", kindWords(v))
	}
	return m, ok
}

func (c *compiler) number(v any, p string) *bound {
	num, ok := v.(json.Number)
	if !ok {
		c.problem(p, "must be a number, not %s", kindWords(v))
		return nil
	}
	return &bound{d: parseDecimal(string(num)), text: string(num)}
}

// count reads a non-negative integer; -1 when it is not one.
func (c *compiler) count(v any, p string) int {
	if num, ok := v.(json.Number); ok {
		if n, ok := parseDecimal(string(num)).toInt(); ok {
			return n
		}
	}
	c.problem(p, "must be a non-negative integer, not %s", show(v))
	return -1
}

// names reads an array of distinct strings (required, dependentRequired).
func (c *compiler) names(v any, p string) []string {
	arr, ok := v.([]any)
	if !ok {
		c.problem(p, "must be an array of property names, not %s", kindWords(v))
		return nil
	}
	out := make([]string, 0, len(arr))
	seen := make(map[string]bool, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		switch {
		case !ok:
			c.problem(p+"/"+strconv.Itoa(i), "must be a property name (a string), not %s", kindWords(e))
		case seen[s]:
			c.problem(p+"/"+strconv.Itoa(i), "repeats %s: the names must be distinct", name(s))
		default:
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (c *compiler) typeKeyword(v any, p string) typeSet {
	one := func(v any, p string) typeSet {
		s, ok := v.(string)
		t := typeByName(s)
		if !ok || t == 0 {
			c.problem(p, "%s is not a type (array, boolean, integer, null, number, object, string)", show(v))
		}
		return t
	}
	arr, isArr := v.([]any)
	if !isArr {
		return one(v, p)
	}
	if len(arr) == 0 {
		c.problem(p, "must name at least one type")
	}
	var set typeSet
	for i, e := range arr {
		t := one(e, p+"/"+strconv.Itoa(i))
		if t != 0 && set&t != 0 {
			c.problem(p+"/"+strconv.Itoa(i), "repeats the type %s", show(e))
		}
		set |= t
	}
	return set
}

func (c *compiler) schemaMap(v any, p string, sub func(any, string) *node) map[string]*node {
	m, ok := v.(map[string]any)
	if !ok {
		c.problem(p, "must be an object whose values are schemas, not %s", kindWords(v))
		return nil
	}
	out := make(map[string]*node, len(m))
	for _, k := range sortedKeys(m) {
		out[k] = sub(m[k], p+"/"+escapeToken(k))
	}
	return out
}

func (c *compiler) schemaList(v any, p string, sub func(any, string) *node) []*node {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		c.problem(p, "must be a non-empty array of schemas, not %s", show(v))
		return nil
	}
	out := make([]*node, len(arr))
	for i, e := range arr {
		out[i] = sub(e, p+"/"+strconv.Itoa(i))
	}
	return out
}

// pattern compiles a regular expression as ECMA-262 reads it (the dialect every draft names).
// One this package cannot run is not applied, never refused: the drafts only say a pattern SHOULD
// be a valid ECMA-262 expression, and the program that receives the value checks it too.
func (c *compiler) pattern(s, p string) *pattern {
	re, why := compileECMA(s)
	if why != "" {
		c.notApplied(p, "the pattern %s is not checked: %s", quoteLong(s), why)
		return nil
	}
	return &pattern{src: s, re: re}
}

func (c *compiler) ref(n *node, kw string, v any, p string, res *resource) {
	s, ok := c.str(v, p)
	if !ok {
		return
	}
	if _, err := url.Parse(s); err != nil {
		c.problem(p, "%s is not a URI reference", quote(s))
		return
	}
	c.refs = append(c.refs, refSite{n: n, keyword: kw, ref: s, base: res, where: p})
}

// link resolves a reference; only the schema's own resources are ever looked in.
func (c *compiler) link(site refSite) {
	u, _ := url.Parse(site.ref)
	base, err := url.Parse(site.base.uri)
	if err != nil {
		c.problem(site.where, "%s cannot be resolved against %s", quote(site.ref), quote(site.base.uri))
		return
	}
	abs := base.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	res := c.byURI[abs.String()]
	if res == nil {
		c.problem(site.where, "external reference %s is not allowed: a schema may refer only to itself "+
			"(a \"#/...\" pointer, or an $id or anchor it declares)", quoteLong(site.ref))
		return
	}
	var target *node
	switch {
	case frag == "":
		target = c.nodes[res.path]
		if site.keyword == "$recursiveRef" {
			// draft 2019-09: dynamic only when the target's resource says "$recursiveAnchor": true.
			if a, ok := res.anchors[recursiveAnchor]; ok && a.dynamic {
				site.n.dynamicAnchor = recursiveAnchor
			}
		}
	case frag[0] == '/':
		target = c.pointer(res, frag, site)
	default:
		a, ok := res.anchors[frag]
		if !ok {
			c.problem(site.where, "%s names the anchor %s, which the schema does not declare", quote(site.ref), quote(frag))
			return
		}
		target = a.n
		if site.keyword == "$dynamicRef" && a.dynamic {
			site.n.dynamicAnchor = frag
		}
	}
	if target == nil {
		return
	}
	if site.keyword == "$ref" {
		site.n.ref = target
	} else {
		site.n.dynamicRef = target
	}
}

// pointer finds the schema at a JSON Pointer fragment inside res, compiling it if it lies where
// no keyword of the draft put a schema (under "definitions" in draft 2020-12, say).
func (c *compiler) pointer(res *resource, frag string, site refSite) *node {
	v := res.value
	path := res.path
	for _, tok := range strings.Split(frag[1:], "/") {
		if !validToken(tok) {
			c.problem(site.where, "%s is not a JSON Pointer (~ only as ~0 or ~1)", quote(site.ref))
			return nil
		}
		tok = unescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				c.problem(site.where, "%s points to nothing: %s has no %s", quote(site.ref), schemaRef(path), quote(tok))
				return nil
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
				c.problem(site.where, "%s points to nothing: %s has no item %s", quote(site.ref), schemaRef(path), quote(tok))
				return nil
			}
			v = x[i]
		default:
			c.problem(site.where, "%s points to nothing: %s is %s", quote(site.ref), schemaRef(path), kindWords(v))
			return nil
		}
		path += "/" + escapeToken(tok)
	}
	if n := c.nodes[path]; n != nil {
		return n
	}
	switch v.(type) {
	case map[string]any, bool:
	default:
		c.problem(site.where, "%s points to %s, which is not a schema", quote(site.ref), kindWords(v))
		return nil
	}
	return c.schema(v, path, c.resourceAt(path), 0)
}

func validToken(tok string) bool {
	for i := 0; i < len(tok); i++ {
		if tok[i] == '~' && (i+1 == len(tok) || tok[i+1] != '0' && tok[i+1] != '1') {
			return false
		}
	}
	return true
}

func unescapeToken(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// resourceAt is the innermost resource holding the document location path.
func (c *compiler) resourceAt(path string) *resource {
	for {
		if r := c.byPath[path]; r != nil {
			return r
		}
		path = path[:max(strings.LastIndexByte(path, '/'), 0)]
	}
}

// inPlace lists the schemas n applies to the very value it is given (not to a part of it).
func (c *compiler) inPlace(n *node) []*node {
	if n.isBool {
		return nil
	}
	var out []*node
	add := func(ns ...*node) {
		for _, m := range ns {
			if m != nil {
				out = append(out, m)
			}
		}
	}
	add(n.ref)
	if n.refOnly {
		return out
	}
	add(n.dynamicRef)
	if n.dynamicAnchor != "" {
		add(c.dynamic[n.dynamicAnchor]...)
	}
	add(n.allOf...)
	add(n.anyOf...)
	add(n.oneOf...)
	add(n.not)
	if n.ifS != nil { // then and else apply only beside an if
		add(n.ifS, n.thenS, n.elseS)
	}
	for _, d := range n.dependentSchemas {
		add(d.schema)
	}
	return out
}

// checkCycles refuses a schema in which references lead back to a schema already being applied
// to the same value: checking would never end (core spec 9.4.1 leaves it undefined).
func (c *compiler) checkCycles() {
	const (
		unseen = iota
		open
		done
	)
	state := make(map[*node]uint8, len(c.nodes))
	var stack []*node
	var visit func(n *node) bool
	visit = func(n *node) bool {
		state[n] = open
		stack = append(stack, n)
		for _, m := range c.inPlace(n) {
			switch state[m] {
			case open:
				i := slices.Index(stack, m)
				loop := make([]string, 0, len(stack)-i+1)
				for _, s := range stack[i:] {
					loop = append(loop, schemaRef(s.path))
				}
				if len(loop) > 8 {
					loop = append(loop[:4], "…", loop[len(loop)-1])
				}
				loop = append(loop, schemaRef(m.path))
				c.problem(m.path, "a $ref cycle: %s applies schemas to the same value without end", strings.Join(loop, " → "))
				return false
			case unseen:
				if !visit(m) {
					return false
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return true
	}
	for _, p := range sortedKeys(c.nodes) {
		if n := c.nodes[p]; state[n] == unseen && !visit(n) {
			return
		}
	}
}
