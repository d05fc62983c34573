package host

import (
	"errors"
	"strings"
	"testing"

	"tickmux/tick/wire"
)

type classifyCase struct {
	name string
	line string
	rule string  // the violation's rule, "" when the line is acceptable
	kind msgKind // when acceptable
}

var classifyCases = []classifyCase{
	// spec: H-V2 — not JSON, not UTF-8, jsonrpc missing or wrong.
	{"not json", `this is not json`, "H-V2", 0},
	{"truncated json", `{"jsonrpc":"2.0","id":1`, "H-V2", 0},
	{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"\xff\"}}", "H-V2", 0},
	{"jsonrpc missing", `{"id":1,"result":{}}`, "H-V2", 0},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"result":{}}`, "H-V2", 0},
	{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"result":{}}`, "H-V2", 0},
	{"batch", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, "H-V2", 0},
	// spec: H-M5 — neither an integer id nor a method.
	{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, "H-M5", 0},
	{"string id", `{"jsonrpc":"2.0","id":"1","result":{}}`, "H-M5", 0},
	{"fractional id", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, "H-M5", 0},
	{"no id no method", `{"jsonrpc":"2.0","result":{}}`, "H-M5", 0},
	{"bare number", `42`, "H-M5", 0},
	{"bare string", `"hello"`, "H-M5", 0},
	{"empty line", ``, "H-M5", 0},
	{"method not a string", `{"jsonrpc":"2.0","method":5,"params":{}}`, "H-M5", 0},
	// spec: H-U1 — a non-conforming update is a violation.
	{"update data null", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":null}}`, "H-U1", 0},
	{"update no data", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1}}`, "H-U1", 0},
	{"update no seq", `{"jsonrpc":"2.0","method":"tick/update","params":{"data":{}}}`, "H-U1", 0},
	{"update negative seq", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":-1,"data":{}}}`, "H-U1", 0},
	{"update fractional seq", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1.5,"data":{}}}`, "H-U1", 0},
	{"update seq beyond 2^53", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":9007199254740992,"data":{}}}`, "H-U1", 0},
	{"update bad at", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":"yesterday"}}`, "H-U1", 0},
	{"update at not a string", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":5}}`, "H-U1", 0},
	{"update no params", `{"jsonrpc":"2.0","method":"tick/update"}`, "H-U1", 0},
	{"update params array", `{"jsonrpc":"2.0","method":"tick/update","params":[1]}`, "H-U1", 0},
	{"update too big", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":"` + strings.Repeat("z", MaxUpdateBytes) + `"}}`, "H-U1", 0},

	{"response", `{"jsonrpc":"2.0","id":3,"result":{"a":1}}`, "", msgResponse},
	{"response with null result", `{"jsonrpc":"2.0","id":3,"result":null}`, "", msgResponse},
	{"response id 1.0", `{"jsonrpc":"2.0","id":1.0,"result":{}}`, "", msgResponse},
	{"negative id (matches nothing)", `{"jsonrpc":"2.0","id":-4,"result":{}}`, "", msgResponse},
	{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad args"}}`, "", msgResponse},
	// spec: H-M6 — both or neither: acceptable lines that fail their request only.
	{"both result and error", `{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"x"}}`, "", msgResponse},
	{"neither result nor error", `{"jsonrpc":"2.0","id":3}`, "", msgResponse},
	{"update", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":0,"data":{"v":1},"at":"2026-11-30T10:00:00.5+01:00"}}`, "", msgUpdate},
	{"update lowercase t and z", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":0,"data":[],"at":"2026-11-30t10:00:00z"}}`, "", msgUpdate},
	{"update with unknown fields", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":7,"data":1,"extra":true},"x":1}`, "", msgUpdate},
	// spec: H-M3 — other notifications are ignored, not violations.
	{"other notification", `{"jsonrpc":"2.0","method":"tick/log","params":{"msg":"hi"}}`, "", msgNotification},
	// spec: H-M7 — a request from the Tick is ignored: a method and an id member of any value.
	{"request from the tick", `{"jsonrpc":"2.0","id":9,"method":"host/exec","params":{}}`, "", msgTickRequest},
	{"update with an id is a request", `{"jsonrpc":"2.0","id":9,"method":"tick/update","params":{"seq":1,"data":{}}}`, "", msgTickRequest},
	{"update with a null id is a request", `{"jsonrpc":"2.0","id":null,"method":"tick/update","params":{"seq":1,"data":{}}}`, "", msgTickRequest},
	{"update with a string id is a request", `{"jsonrpc":"2.0","id":"u1","method":"tick/update","params":{"seq":1,"data":{}}}`, "", msgTickRequest},
	{"notification with null id is a request", `{"jsonrpc":"2.0","id":null,"method":"tick/other"}`, "", msgTickRequest},
	{"a request's bad params are not judged", `{"jsonrpc":"2.0","id":null,"method":"tick/update","params":{"seq":-1,"data":null,"at":"x"}}`, "", msgTickRequest},
	// spec: H-U1 — at is an RFC 3339 §5.6 date-time: leap seconds in, time.Parse's extras out.
	{"update at leap second", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":"2016-12-31T23:59:60Z"}}`, "", msgUpdate},
	{"update at leap second with offset", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":"2016-12-31T15:59:60.5-08:00"}}`, "", msgUpdate},
	{"update at escaped", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":"2016-12-31T23:59:59\u005a"}}`, "", msgUpdate},
	{"update at null", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":null}}`, "H-U1", 0},
	{"update at +24:00", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":"2026-11-30T10:00:00+24:00"}}`, "H-U1", 0},
	{"update at comma fraction", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":"2026-11-30T00:00:00,5Z"}}`, "H-U1", 0},
	{"update at not a leap minute", `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":{},"at":"2016-12-31T12:30:60Z"}}`, "H-U1", 0},
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, c := range classifyCases {
		t.Run(c.name, func(t *testing.T) {
			m, err := classify([]byte(c.line))
			if c.rule != "" {
				var v *Violation
				if !errors.As(err, &v) {
					t.Fatalf("no violation (kind %d), want %s", m.kind, c.rule)
				}
				if v.Rule != c.rule {
					t.Fatalf("violation of %s (%v), want %s", v.Rule, v, c.rule)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected violation: %v", err)
			}
			if m.kind != c.kind {
				t.Fatalf("kind %d, want %d", m.kind, c.kind)
			}
		})
	}
}

// spec: H-M6
func TestClassifyMalformedResponsesFailTheirRequestOnly(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":3}`,
		`{"jsonrpc":"2.0","id":3,"error":{"message":"no code"}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":1.5,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":3,"error":"boom"}`,
	} {
		m, err := classify([]byte(line))
		if err != nil || m.kind != msgResponse || m.malformed == "" || m.id != 3 {
			t.Errorf("%s: kind %d malformed %q err %v", line, m.kind, m.malformed, err)
		}
	}
}

func TestClassifyErrorCodes(t *testing.T) {
	t.Parallel()
	m, err := classify([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"changed","data":{"rev":"2"}}}`))
	if err != nil || m.respErr == nil {
		t.Fatalf("err %v, respErr %v", err, m.respErr)
	}
	if m.respErr.Code != wire.CodeCatalogChanged || m.respErr.Message != "changed" || string(m.respErr.Data) != `{"rev":"2"}` {
		t.Fatalf("parsed %+v", m.respErr)
	}
}

// spec: H-V2
func TestViolationMessagesQuoteUntrustedText(t *testing.T) {
	t.Parallel()
	_, err := classify([]byte("\x1b]0;pwned\x07 not json"))
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Fatalf("violation message carries raw control characters: %q", err)
	}
}

func FuzzClassify(f *testing.F) {
	for _, c := range classifyCases {
		if len(c.line) < 4096 {
			f.Add([]byte(c.line))
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := classify(line)
		if err != nil {
			var v *Violation
			if !errors.As(err, &v) || v.Rule == "" {
				t.Fatalf("error that is not a violation: %v", err)
			}
			return
		}
		if m.kind == msgUpdate && string(m.update.Data) == "null" {
			t.Fatal("accepted an update with data null")
		}
		if m.kind == msgResponse && m.malformed == "" && (m.result == nil) == (m.respErr == nil) {
			t.Fatal("well-formed response without exactly one of result and error")
		}
	})
}
