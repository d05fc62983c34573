package jsonschema

import (
	"fmt"
	"time"

	"github.com/dlclark/regexp2"
)

// Patterns (pattern, patternProperties) are ECMA-262 regular expressions, as every draft says,
// run by github.com/dlclark/regexp2 in its ECMAScript mode with Unicode semantics (code points,
// \s as ECMA-262's white space and line terminators, \d and \w ASCII), so lookahead, lookbehind
// and backreferences work as a Tick's own JavaScript or Python validator runs them. Such an
// engine backtracks, so each match has a time budget; see evaluator.match.

// Limits on patterns.
const (
	maxPatternLen = 10_000                // bytes of one pattern's source; longer ones are not applied
	matchBudget   = 50 * time.Millisecond // one match; regexp2's clock ticks every 100 ms, so about 0.2 s
	patternBudget = time.Second           // all matches of one check: past it no pattern is run
)

type ecmaRegexp = regexp2.Regexp

// compileECMA compiles an ECMA-262 pattern; why says why it cannot be applied.
func compileECMA(src string) (*ecmaRegexp, string) {
	if len(src) > maxPatternLen {
		return nil, fmt.Sprintf("it is %d bytes long, over the %d this host runs", len(src), maxPatternLen)
	}
	re, err := regexp2.Compile(src, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, fmt.Sprintf("this host cannot read it as an ECMA-262 regular expression (%v)", err)
	}
	re.MatchTimeout = matchBudget
	return re, ""
}
