package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"tickmux/host"
	"tickmux/tick/wire"
)

// sendLint judges what the Tick sends beyond the host's own checks: credentials in its states
// (spec 10, C-S3) and sizes that leave no room for numbers another host spells out longer (spec
// 3.5, C-S4). States come from the instance-id watch's goroutine and from probes: it locks.
type sendLint struct {
	mu          sync.Mutex
	credentials []string // JSON Pointers of members that hold a credential, first few
	tight       []string // messages with no margin, first few
}

// state looks at a state's data (a tick/update's or a tick/read result's).
func (l *sendLint) state(what string, data json.RawMessage, limit int) {
	paths := credentialPaths(data)
	l.mu.Lock()
	for _, p := range paths {
		if !slices.Contains(l.credentials, p) && len(l.credentials) < 5 {
			l.credentials = append(l.credentials, p)
		}
	}
	l.mu.Unlock()
	// The state's own members (seq, at) add a few dozen bytes to data in an update.
	l.margin(what, data, limit-64)
}

// margin records raw when, with every number spelled as another host may re-encode it, it
// would pass limit.
func (l *sendLint) margin(what string, raw json.RawMessage, limit int) {
	if len(raw)*maxNumberGrowth <= limit {
		return // no number grows that much: skip the scan
	}
	here, elsewhere := wire.EncodedLen(raw), spelledOutLen(raw)
	if elsewhere <= limit {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tight) < 3 {
		l.tight = append(l.tight, fmt.Sprintf("%s is %d bytes here but %d with its numbers spelled out (1e15 as 1000000000000000.0), over the limit of %d", what, here, elsewhere, limit))
	}
}

func (c *checker) lintFindings() {
	l := c.lint
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.credentials) > 0 {
		c.r.find("C-S3", SevWarning, "the state holds what looks like a credential at %s; states reach models and logs, and should hold no credentials, tokens or sensitive personal data (spec 10)",
			host.Printable(strings.Join(l.credentials, ", "), false))
	}
	for _, t := range l.tight {
		c.r.find("C-S4", SevWarning, "%s; a Tick should leave room for numbers that re-encode longer (spec 3.5)", t)
	}
}

// credentialNames are member names (lowercase, without '_' and '-') that name a credential.
var credentialNames = []string{
	"token", "accesstoken", "authtoken", "refreshtoken", "bearertoken", "idtoken", "sessiontoken", "apitoken",
	"password", "passwd", "passphrase", "secret", "clientsecret", "apikey", "privatekey", "credential", "credentials",
}

// credentialPaths returns the JSON Pointers of the members of data named as a credential and
// holding a non-empty string.
func credentialPaths(data json.RawMessage) []string {
	if !bytes.Contains(data, []byte(`"`)) {
		return nil
	}
	v, ok := decodeJSON(data)
	if !ok {
		return nil
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
				norm := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
				if s, ok := e.(string); ok && s != "" && slices.Contains(credentialNames, norm) {
					out = append(out, p)
				}
				walk(p, e)
			}
		case []any:
			for i, e := range x {
				walk(path+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	return out
}

// maxNumberGrowth bounds how many times longer a number can get spelled out ("1e20" is 21 bytes
// in JavaScript).
const maxNumberGrowth = 6

// spelledOutLen is raw's size as the host re-encodes it, but with each number that has a fraction
// or an exponent (a float to most parsers) spelled as the longer of Python's repr and JavaScript's
// String: the re-encodings spec 3.5 warns of (1e15 becomes 1000000000000000.0).
func spelledOutLen(raw []byte) int {
	n := wire.EncodedLen(raw)
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '-' || c >= '0' && c <= '9'):
			j := i + 1
			for j < len(raw) && strings.IndexByte("0123456789.eE+-", raw[j]) >= 0 {
				j++
			}
			tok := raw[i:j]
			if bytes.ContainsAny(tok, ".eE") {
				n += spelledLen(string(tok)) - len(tok)
			}
			i = j - 1
		}
	}
	return n
}

// spelledLen is the longer of Python's repr and JavaScript's String of the float tok.
func spelledLen(tok string) int {
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil || math.IsInf(f, 0) {
		return len(tok)
	}
	a := math.Abs(f)
	py := strconv.FormatFloat(f, 'e', -1, 64) // 1e+16, 1.5e-05: Python's form too
	if a == 0 || a >= 1e-4 && a < 1e16 {
		py = strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(py, ".") {
			py += ".0"
		}
	}
	js := strings.Replace(strings.Replace(strconv.FormatFloat(f, 'e', -1, 64), "e+0", "e+", 1), "e-0", "e-", 1)
	if a == 0 || a >= 1e-6 && a < 1e21 {
		js = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return max(len(py), len(js))
}

// strictJSON makes raw JSON acceptable to every parser: a \u escape of a lone surrogate, which
// strict parsers (jq) refuse, becomes the six characters it was written as (its backslash
// escaped), and invalid UTF-8 becomes U+FFFD. Everything else is kept byte for byte.
func strictJSON(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	if !bytes.Contains(raw, []byte(`\u`)) {
		return raw
	}
	out := make([]byte, 0, len(raw)+8)
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			inStr = !inStr
		case inStr && c == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			r := hex4(raw[i+2:])
			switch {
			case r >= 0xD800 && r <= 0xDBFF && i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' && hex4(raw[i+8:]) >= 0xDC00 && hex4(raw[i+8:]) <= 0xDFFF:
				out = append(out, raw[i:i+12]...) // a pair
				i += 11
				continue
			case r >= 0xD800 && r <= 0xDFFF:
				out = append(out, '\\') // the backslash escaped: the text \ud83d
				out = append(out, raw[i:i+6]...)
				i += 5
				continue
			}
			out = append(out, raw[i:i+6]...)
			i += 5
			continue
		case inStr && c == '\\':
			out = append(out, c, raw[i+1])
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// hex4 is the value of four hex digits at the start of b, -1 if they are not.
func hex4(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return -1
	}
	return int(v)
}

// preciseRule is host.RuleOf(err), with the two rules the host files loosely named exactly: a
// read result whose seq is not an unsigned integer breaks 6.2's shape (C-S5), not the read floor
// (H-RD1); an error that is not {code: integer, message: string} breaks 3.2's shape (C-M4), not
// "exactly one of result and error" (H-M6).
func preciseRule(err error) string {
	rule := host.RuleOf(err)
	var re *host.RuleError
	switch {
	case rule == "H-RD1" && errors.As(err, &re) && !strings.Contains(re.Reason, "read floor"):
		return "C-S5"
	case rule == "H-M6" && errors.Is(err, host.ErrMalformedResponse) && strings.Contains(err.Error(), "response's error"):
		return "C-M4"
	}
	return rule
}

// retag replaces the host's rule id in its message with the precise one.
func retag(msg, hostRule, rule string) string {
	if hostRule == rule || hostRule == "" {
		return msg
	}
	return strings.ReplaceAll(msg, "("+hostRule+")", "("+rule+")")
}
