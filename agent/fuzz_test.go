package agent

import (
	"bufio"
	"encoding/json"
	"net"
	"path/filepath"
	"testing"
	"time"

	"tickmux/host"
)

// FuzzRequestLine sends one arbitrary line to the server, then a hello on the same connection: the
// server must answer the hello (a bad line never ends a connection nor the server), and every
// line it writes must be one JSON object.
func FuzzRequestLine(f *testing.F) {
	for _, seed := range []string{
		`{"id":1,"method":"list"}`, `{"id":2,"method":"read","params":{"id":"hosted:1"}}`,
		`{"id":3,"method":"call","params":{"id":"hosted:1","tool":"x","args":[1]}}`, `{"method":"cancel","params":{"request":9}}`,
		`{"id":4,"method":"wait","params":{"timeout_s":0}}`, `{"id":5,"method":"nope"}`, `{"id":"x"}`, `[]`, `null`, `{`,
		`{"id":6,"method":"open","params":{"command":[]}}`, `{"id":7,"method":"wait","params":{"ids":[""]}}`,
		`{"id":8,"method":"list","params":{"extra":1}}`, "\x00\xff",
	} {
		f.Add(seed)
	}
	h := host.New(host.Config{})
	defer h.Close()
	path := filepath.Join(f.TempDir(), "s.sock")
	srv, err := Serve(h, path, Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 1<<16 {
			return
		}
		nc, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		const helloID = 1 << 40
		hello, _ := json.Marshal(Request{ID: helloID, Method: MethodHello, Params: json.RawMessage(`{"client":"fuzz"}`)})
		if _, err := nc.Write([]byte(line + "\n" + string(hello) + "\n")); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(nc)
		sc.Buffer(nil, maxAnswerLine)
		for sc.Scan() {
			var m Message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("the server wrote a line that is not a message: %q", sc.Bytes())
			}
			if m.ID == helloID {
				if m.Error != nil {
					t.Fatalf("hello failed after %q: %v", line, m.Error)
				}
				return
			}
		}
		t.Fatalf("no answer to hello after %q: %v", line, sc.Err())
	})
}
