package jsonschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ValidationError lists every part of a value that does not fit a schema, each at its JSON
// Pointer in the value.
type ValidationError struct {
	Problems []Problem
	More     int // problems found beyond those kept
}

func (e *ValidationError) Error() string { return listProblems(e.Problems, e.More) }

// CostError says that checking a value was given up: the schema makes the work grow faster than
// the value (anyOf inside anyOf behind a $ref, say), and the value was too large for it.
type CostError struct {
	Steps int
}

func (e *CostError) Error() string {
	return fmt.Sprintf("checking this value against the schema was given up after %d steps "+
		"(its anyOf, oneOf and $ref multiply the work): refused", e.Steps)
}

// Budget: steps a check may take, a base plus a share per value in the instance. A step is a
// schema applied to a value, or a pattern run on 10,000 bytes (patterns also have a time budget).
const (
	baseSteps     = 100_000
	stepsPerValue = 50
	patternCost   = 10_000
)

// maxKept bounds the problems a check keeps (the rest are counted).
const maxKept = 1000

// ValidateJSON decodes data (see Decode) and validates it.
func (s *Schema) ValidateJSON(data []byte) error {
	v, err := Decode(data)
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// Validate checks v, a value as Decode returns them, against the schema: nil when it fits, a
// *ValidationError listing every misfit, or a *CostError.
func (s *Schema) Validate(v any) error {
	_, err := s.Check(v)
	return err
}

// Check is Validate that also lists, at their paths in v, the patterns it could not run on v
// within their time budget (a pattern that backtracks without end, such as "(a+)+$" on a long
// string): those were taken as matched, so the program that receives v must check them itself.
func (s *Schema) Check(v any) (skipped []Problem, err error) {
	e := &evaluator{annotations: s.annotations, containsMarks: s.draft != Draft2019,
		budget: baseSteps + stepsPerValue*countValues(v, 0)}
	var out problems
	ok := e.eval(s.root, v, &out, nil)
	switch {
	case e.over:
		return e.skipped, &CostError{Steps: e.budget}
	case ok:
		return e.skipped, nil
	}
	return e.skipped, &ValidationError{Problems: out.list, More: out.more}
}

func countValues(v any, n int) int {
	n++
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			n = countValues(e, n)
		}
	case map[string]any:
		for _, e := range v {
			n = countValues(e, n)
		}
	}
	return n
}

type problems struct {
	list []Problem
	more int
}

type token struct {
	key   string
	index int // -1: key
}

type evaluator struct {
	annotations   bool
	containsMarks bool // contains marks the items it matched as evaluated (not in draft 2019-09)
	patternTime   time.Duration
	skipped       []Problem
	steps         int
	budget        int
	over          bool
	scope         []*resource // the dynamic scope, outermost first
	path          []token     // where in the value the check is
}

// annots notes which properties and items the subschemas applied to a value looked at (for
// unevaluatedProperties and unevaluatedItems).
type annots struct {
	props    map[string]bool
	allProps bool
	items    int // items [0, items) were looked at
	allItems bool
	itemSet  map[int]bool // and these (contains)
}

func (a *annots) prop(k string) {
	if a.props == nil {
		a.props = map[string]bool{}
	}
	a.props[k] = true
}

func (a *annots) merge(b *annots) {
	if a == nil || b == nil {
		return
	}
	a.allProps = a.allProps || b.allProps
	if !a.allProps {
		for k := range b.props {
			a.prop(k)
		}
	}
	a.allItems = a.allItems || b.allItems
	a.items = max(a.items, b.items)
	for i := range b.itemSet {
		if a.itemSet == nil {
			a.itemSet = map[int]bool{}
		}
		a.itemSet[i] = true
	}
}

func (e *evaluator) fresh(parent *annots) *annots {
	if parent == nil {
		return nil
	}
	return &annots{}
}

// where renders the current path in the value as a JSON Pointer.
func (e *evaluator) where() string {
	var b strings.Builder
	for _, t := range e.path {
		b.WriteByte('/')
		if t.index >= 0 {
			b.WriteString(strconv.Itoa(t.index))
		} else {
			b.WriteString(escapeToken(t.key))
		}
	}
	return b.String()
}

func (e *evaluator) report(out *problems, format string, args ...any) {
	if len(out.list) >= maxKept {
		out.more++
		return
	}
	out.list = append(out.list, Problem{Path: e.where(), Message: fmt.Sprintf(format, args...)})
}

// charge counts steps; false once the budget is spent.
func (e *evaluator) charge(n int) bool {
	e.steps += n
	if e.steps > e.budget {
		e.over = true
	}
	return !e.over
}

// match runs a pattern within its budget (pattern.go). One that runs past it, or comes after the
// check's patterns have used theirs, is skipped (and noted in e.skipped): the caller takes it as
// passed.
// A key (patternProperties) is named in the note as the property it is.
func (e *evaluator) match(p *pattern, s string, key bool) (matched, skipped bool) {
	if !e.charge(1 + len(s)/patternCost) {
		return false, false
	}
	if e.patternTime >= patternBudget {
		e.skip(p, s, key, fmt.Sprintf("the patterns of this check used their %v", patternBudget))
		return false, true
	}
	start := time.Now()
	ok, err := p.re.MatchString(s)
	e.patternTime += time.Since(start)
	if err != nil {
		e.skip(p, s, key, fmt.Sprintf("the match ran past its time budget of %v", matchBudget))
		return false, true
	}
	return ok, false
}

// fits is match for the pattern keyword: a skipped pattern passes.
func (e *evaluator) fits(p *pattern, s string) bool {
	matched, skipped := e.match(p, s, false)
	return matched || skipped
}

func (e *evaluator) skip(p *pattern, s string, key bool, why string) {
	if len(e.skipped) >= maxKept {
		return
	}
	path, what := e.where(), "not checked against the pattern"
	if key {
		path, what = path+"/"+escapeToken(s), "the property name is not checked against the pattern"
	}
	e.skipped = append(e.skipped, Problem{Path: path, Message: fmt.Sprintf("%s %s: %s", what, quoteLong(p.src), why)})
}

// eval reports whether v fits n. With out nil it stops at the first misfit and says nothing;
// otherwise it adds every misfit to out. ann, when not nil, collects what n looked at; it
// matters only when v fits.
func (e *evaluator) eval(n *node, v any, out *problems, ann *annots) bool {
	if !e.charge(1) {
		return false
	}
	if n.isBool {
		if !n.boolVal && out != nil {
			e.report(out, "no value is allowed here (the schema at %s is false)", schemaRef(n.path))
		}
		return n.boolVal
	}
	if len(e.scope) == 0 || e.scope[len(e.scope)-1] != n.res {
		e.scope = append(e.scope, n.res)
		defer func() { e.scope = e.scope[:len(e.scope)-1] }()
	}
	if n.refOnly {
		return e.eval(n.ref, v, out, ann)
	}
	var a *annots
	if e.annotations {
		a = &annots{}
	}
	ok := e.evalKeywords(n, v, out, a)
	if ok {
		ann.merge(a)
	}
	return ok && !e.over
}

func (e *evaluator) evalKeywords(n *node, v any, out *problems, a *annots) bool {
	ok := true
	// miss notes a misfit (in this ok, also when arrayKeywords and objectKeywords call it); it
	// answers whether to go on looking for more.
	miss := func(format string, args ...any) bool {
		ok = false
		if out == nil || e.over {
			return false
		}
		e.report(out, format, args...)
		return true
	}
	// sub applies a schema to the same value; the same "go on" answer.
	sub := func(m *node, ann *annots) bool {
		if e.eval(m, v, out, ann) {
			return true
		}
		ok = false
		return out != nil && !e.over
	}

	if n.ref != nil && !sub(n.ref, a) {
		return false
	}
	if n.dynamicRef != nil {
		target := n.dynamicRef
		if n.dynamicAnchor != "" {
			for _, r := range e.scope {
				if an, found := r.anchors[n.dynamicAnchor]; found && an.dynamic {
					target = an.n
					break
				}
			}
		}
		if !sub(target, a) {
			return false
		}
	}

	if n.types != 0 {
		k := kindOf(v)
		fits := n.types&k != 0
		if !fits && k == tNumber && n.types&tInteger != 0 {
			fits = parseDecimal(string(v.(json.Number))).isInteger()
		}
		if !fits && !miss("must be %s, not %s", typeWords(n.types), kindWords(v)) {
			return false
		}
	}
	if n.hasEnum && !e.inEnum(n.enum, v) && !e.over && !miss("must be one of %s, not %s", showList(n.enum), show(v)) {
		return false
	}
	if n.hasConst && !e.equal(n.constant, v) && !e.over && !miss("must be %s, not %s", show(n.constant), show(v)) {
		return false
	}
	if num, isNum := v.(json.Number); isNum && (n.minimum != nil || n.maximum != nil || n.exclusiveMinimum != nil ||
		n.exclusiveMaximum != nil || n.multipleOf != nil) {
		if !e.numberKeywords(n, parseDecimal(string(num)), string(num), miss) {
			return false
		}
	}
	if s, isStr := v.(string); isStr {
		if n.minLength >= 0 || n.maxLength >= 0 {
			e.charge(len(s) / 4096)
			l := utf8.RuneCountInString(s)
			if n.minLength >= 0 && l < n.minLength && !miss("must be at least %d characters long, not %d", n.minLength, l) {
				return false
			}
			if n.maxLength >= 0 && l > n.maxLength && !miss("must be at most %d characters long, not %d", n.maxLength, l) {
				return false
			}
		}
		if n.pattern != nil && !e.fits(n.pattern, s) && !e.over && !miss("must match the pattern %s, not %s", quote(n.pattern.src), quote(s)) {
			return false
		}
	}

	// Subschemas applied to the value itself.
	for _, m := range n.allOf {
		if !sub(m, a) {
			return false
		}
	}
	if len(n.anyOf) > 0 {
		matched := false
		for _, m := range n.anyOf {
			ma := e.fresh(a)
			if e.eval(m, v, nil, ma) {
				matched = true
				a.merge(ma)
				if a == nil {
					break
				}
			}
		}
		if !matched && !e.over && !miss("%s", e.alternatives("anyOf", n.anyOf, v)) {
			return false
		}
	}
	if len(n.oneOf) > 0 {
		first, second := -1, -1
		var firstAnn *annots
		for i, m := range n.oneOf {
			ma := e.fresh(a)
			if e.eval(m, v, nil, ma) {
				if first >= 0 {
					second = i
					break
				}
				first, firstAnn = i, ma
			}
		}
		switch {
		case e.over:
			return false
		case first < 0:
			if !miss("%s", e.alternatives("oneOf", n.oneOf, v)) {
				return false
			}
		case second >= 0:
			if !miss("fits alternatives %d and %d of oneOf (%s); it must fit exactly one", first+1, second+1, schemaRef(n.path+"/oneOf")) {
				return false
			}
		default:
			a.merge(firstAnn)
		}
	}
	if n.not != nil && e.eval(n.not, v, nil, nil) && !e.over && !miss("must not fit the schema at %s", schemaRef(n.not.path)) {
		return false
	}
	if n.ifS != nil && (n.thenS != nil || n.elseS != nil || a != nil) {
		ia := e.fresh(a)
		next := n.elseS
		if e.eval(n.ifS, v, nil, ia) {
			a.merge(ia)
			next = n.thenS
		}
		if next != nil && !sub(next, a) {
			return false
		}
	}
	if len(n.dependentSchemas) > 0 {
		if obj, isObj := v.(map[string]any); isObj {
			for _, d := range n.dependentSchemas {
				if _, has := obj[d.name]; has && !sub(d.schema, a) {
					return false
				}
			}
		}
	}
	if e.over {
		return false
	}

	switch x := v.(type) {
	case []any:
		if !e.arrayKeywords(n, x, out, a, miss) {
			return false
		}
	case map[string]any:
		if !e.objectKeywords(n, x, out, a, miss) {
			return false
		}
	}
	return ok && !e.over
}

func (e *evaluator) inEnum(enum []any, v any) bool {
	for _, x := range enum {
		if e.equal(x, v) {
			return true
		}
	}
	return false
}

// equal is equal, its work charged: a step per 16 values compared.
func (e *evaluator) equal(a, b any) bool {
	n := 0
	eq := equal(a, b, &n)
	e.charge(n / 16)
	return eq
}

func (e *evaluator) numberKeywords(n *node, d decimal, text string, miss func(string, ...any) bool) bool {
	if b := n.minimum; b != nil && d.cmp(b.d) < 0 && !miss("must be at least %s, not %s", b.text, text) {
		return false
	}
	if b := n.maximum; b != nil && d.cmp(b.d) > 0 && !miss("must be at most %s, not %s", b.text, text) {
		return false
	}
	if b := n.exclusiveMinimum; b != nil && d.cmp(b.d) <= 0 && !miss("must be greater than %s, not %s", b.text, text) {
		return false
	}
	if b := n.exclusiveMaximum; b != nil && d.cmp(b.d) >= 0 && !miss("must be less than %s, not %s", b.text, text) {
		return false
	}
	if b := n.multipleOf; b != nil {
		is, checked := d.multipleOf(b.d)
		if !checked && !miss("has too many digits to check that it is a multiple of %s", b.text) {
			return false
		}
		if checked && !is && !miss("must be a multiple of %s, not %s", b.text, text) {
			return false
		}
	}
	return true
}

func (e *evaluator) arrayKeywords(n *node, arr []any, out *problems, a *annots, miss func(string, ...any) bool) bool {
	ok := true
	item := func(i int, m *node, ann *annots) bool {
		e.path = append(e.path, token{index: i})
		fits := e.eval(m, arr[i], out, ann)
		e.path = e.path[:len(e.path)-1]
		if !fits {
			ok = false
		}
		return fits || out != nil && !e.over
	}
	prefix := min(len(n.prefixItems), len(arr))
	for i := range prefix {
		if !item(i, n.prefixItems[i], nil) {
			return false
		}
	}
	if a != nil {
		a.items = max(a.items, prefix)
	}
	if n.items != nil && len(arr) > prefix {
		if n.items.isBool && !n.items.boolVal {
			if !miss("must have at most %d items, not %d (the schema at %s is false)", prefix, len(arr), schemaRef(n.items.path)) {
				return false
			}
		} else {
			for i := prefix; i < len(arr); i++ {
				if !item(i, n.items, nil) {
					return false
				}
			}
		}
	}
	if n.items != nil && a != nil {
		a.allItems = true
	}
	if n.contains != nil {
		found := 0
		for i := range arr {
			e.path = append(e.path, token{index: i})
			fits := e.eval(n.contains, arr[i], nil, nil)
			e.path = e.path[:len(e.path)-1]
			if fits {
				found++
				if a != nil && e.containsMarks {
					if a.itemSet == nil {
						a.itemSet = map[int]bool{}
					}
					a.itemSet[i] = true
				}
			}
		}
		if e.over {
			return false
		}
		least := 1
		if n.minContains >= 0 {
			least = n.minContains
		}
		if found < least && !miss("must have at least %d item(s) that fit the schema at %s, not %d", least, schemaRef(n.contains.path), found) {
			return false
		}
		if n.maxContains >= 0 && found > n.maxContains && !miss("must have at most %d item(s) that fit the schema at %s, not %d", n.maxContains, schemaRef(n.contains.path), found) {
			return false
		}
	}
	if n.minItems >= 0 && len(arr) < n.minItems && !miss("must have at least %d items, not %d", n.minItems, len(arr)) {
		return false
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems && !miss("must have at most %d items, not %d", n.maxItems, len(arr)) {
		return false
	}
	if n.uniqueItems && len(arr) > 1 {
		if !e.charge(len(arr)) {
			return false
		}
		seen := make(map[string]int, len(arr))
		var b strings.Builder
		for i, x := range arr {
			b.Reset()
			canonical(&b, x)
			if !e.charge(b.Len() / 256) {
				return false
			}
			if j, dup := seen[b.String()]; dup {
				if !miss("items %d and %d are equal; the items must be unique", j, i) {
					return false
				}
				break
			}
			seen[b.String()] = i
		}
	}
	if n.unevaluatedItems != nil && !a.allItems {
		var extra []int
		for i := a.items; i < len(arr); i++ {
			if a.itemSet[i] {
				continue
			}
			if n.unevaluatedItems.isBool && !n.unevaluatedItems.boolVal {
				extra = append(extra, i)
			} else if !item(i, n.unevaluatedItems, nil) {
				return false
			}
		}
		if len(extra) > 0 && !miss("must not have the items %s: no subschema allows them (the schema at %s is false)",
			showInts(extra), schemaRef(n.unevaluatedItems.path)) {
			return false
		}
		a.allItems = true
	}
	return ok
}

func (e *evaluator) objectKeywords(n *node, obj map[string]any, out *problems, a *annots, miss func(string, ...any) bool) bool {
	ok := true
	prop := func(k string, m *node) bool {
		e.path = append(e.path, token{key: k, index: -1})
		fits := e.eval(m, obj[k], out, nil)
		e.path = e.path[:len(e.path)-1]
		if !fits {
			ok = false
		}
		return fits || out != nil && !e.over
	}
	// Keys in order when problems are reported, so that messages come out the same every time.
	var keys []string
	if out != nil || len(n.patternProperties) > 0 || n.additionalProperties != nil || n.propertyNames != nil || n.unevaluatedProperties != nil {
		keys = make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		if out != nil {
			slices.Sort(keys)
		}
	}

	for _, p := range n.properties {
		if _, has := obj[p.name]; has {
			if !prop(p.name, p.n) {
				return false
			}
			if a != nil {
				a.prop(p.name)
			}
		}
	}
	var byPattern map[string]bool
	if len(n.patternProperties) > 0 {
		byPattern = map[string]bool{}
		for _, k := range keys {
			for _, pp := range n.patternProperties {
				matched, skipped := e.match(pp.p, k, true)
				if !matched && !skipped {
					if e.over {
						return false
					}
					continue
				}
				byPattern[k] = true // a skipped pattern: not additional, and its schema not applied
				if a != nil {
					a.prop(k)
				}
				if matched && !prop(k, pp.n) {
					return false
				}
			}
		}
	}
	if n.additionalProperties != nil {
		var extra []string
		for _, k := range keys {
			if n.propIndex[k] != nil || byPattern[k] {
				continue
			}
			if n.additionalProperties.isBool && !n.additionalProperties.boolVal {
				extra = append(extra, k)
			} else if !prop(k, n.additionalProperties) {
				return false
			}
		}
		if len(extra) > 0 && !miss("%s", notAllowed(extra)) {
			return false
		}
		if a != nil {
			a.allProps = true
		}
	}
	if n.propertyNames != nil {
		for _, k := range keys {
			var inner *problems
			if out != nil {
				inner = &problems{}
			}
			if !e.eval(n.propertyNames, k, inner, nil) {
				if e.over {
					return false
				}
				why := "does not fit the schema at " + schemaRef(n.propertyNames.path)
				if inner != nil && len(inner.list) > 0 {
					why = joinInner(inner.list, e.where())
				}
				if !miss("the property name %s %s", name(k), why) {
					return false
				}
			}
		}
	}
	if len(n.required) > 0 {
		var missing []string
		for _, r := range n.required {
			if _, has := obj[r]; !has {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 && !miss("missing the required %s %s", plural(len(missing), "property", "properties"), names(missing)) {
			return false
		}
	}
	for _, d := range n.dependentRequired {
		if _, has := obj[d.name]; !has {
			continue
		}
		var missing []string
		for _, r := range d.needs {
			if _, has := obj[r]; !has {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 && !miss("has %s, so it must also have %s", name(d.name), names(missing)) {
			return false
		}
	}
	if n.minProperties >= 0 && len(obj) < n.minProperties && !miss("must have at least %d properties, not %d", n.minProperties, len(obj)) {
		return false
	}
	if n.maxProperties >= 0 && len(obj) > n.maxProperties && !miss("must have at most %d properties, not %d", n.maxProperties, len(obj)) {
		return false
	}
	if n.unevaluatedProperties != nil && !a.allProps {
		var extra []string
		for _, k := range keys {
			if a.props[k] {
				continue
			}
			if n.unevaluatedProperties.isBool && !n.unevaluatedProperties.boolVal {
				extra = append(extra, k)
			} else if !prop(k, n.unevaluatedProperties) {
				return false
			}
		}
		if len(extra) > 0 && !miss("%s (no subschema declares %s)", notAllowed(extra), plural(len(extra), "it", "them")) {
			return false
		}
		a.allProps = true
	}
	return ok
}

// alternatives explains why a value fits none of anyOf's or oneOf's schemas: what each one
// found, a few problems each.
func (e *evaluator) alternatives(keyword string, alts []*node, v any) string {
	const shown, perAlt = 5, 3
	here := e.where()
	var b strings.Builder
	fmt.Fprintf(&b, "fits none of the %d alternatives of %s:", len(alts), keyword)
	for i, m := range alts[:min(len(alts), shown)] {
		var inner problems
		e.eval(m, v, &inner, nil)
		if e.over {
			break
		}
		fmt.Fprintf(&b, " (%d) ", i+1)
		list := inner.list
		extra := inner.more
		if len(list) > perAlt {
			extra += len(list) - perAlt
			list = list[:perAlt]
		}
		b.WriteString(joinInner(list, here))
		if extra > 0 {
			fmt.Fprintf(&b, ", and %d more", extra)
		}
	}
	if len(alts) > shown {
		fmt.Fprintf(&b, " (and %d more alternatives)", len(alts)-shown)
	}
	return b.String()
}

// joinInner joins problems found below here, naming their paths only where they differ.
func joinInner(list []Problem, here string) string {
	parts := make([]string, len(list))
	for i, p := range list {
		if p.Path == here {
			parts[i] = p.Message
		} else {
			parts[i] = p.String()
		}
	}
	return strings.Join(parts, ", ")
}

func notAllowed(keys []string) string {
	if len(keys) == 1 {
		return "the property " + name(keys[0]) + " is not allowed"
	}
	return "the properties " + names(keys) + " are not allowed"
}

func names(keys []string) string {
	const shown = 10
	parts := make([]string, 0, min(len(keys), shown)+1)
	for _, k := range keys[:min(len(keys), shown)] {
		parts = append(parts, name(k))
	}
	if len(keys) > shown {
		parts = append(parts, fmt.Sprintf("and %d more", len(keys)-shown))
	}
	return strings.Join(parts, ", ")
}

func showList(vals []any) string {
	const shown = 10
	parts := make([]string, 0, min(len(vals), shown)+1)
	for _, v := range vals[:min(len(vals), shown)] {
		parts = append(parts, show(v))
	}
	if len(vals) > shown {
		parts = append(parts, fmt.Sprintf("… (%d values)", len(vals)))
	}
	return strings.Join(parts, ", ")
}

func showInts(is []int) string {
	const shown = 10
	parts := make([]string, 0, min(len(is), shown)+1)
	for _, i := range is[:min(len(is), shown)] {
		parts = append(parts, strconv.Itoa(i))
	}
	if len(is) > shown {
		parts = append(parts, fmt.Sprintf("and %d more", len(is)-shown))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
