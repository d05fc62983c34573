package flagusage

import (
	"bytes"
	"flag"
	"testing"
	"time"
)

func TestPrint(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("no-wait", false, "print a ticket that `tickmux wait --call` collects")
	fs.Duration("call-wait", 25*time.Second, "how long")
	fs.String("socket", "", "the `PATH` of the socket")
	fs.Func("open", "open this", func(string) error { return nil })
	var out bytes.Buffer
	Print(&out, fs)
	want := `  --call-wait DURATION
        how long (default 25s)
  --no-wait
        print a ticket that ` + "`tickmux wait --call`" + ` collects
  --open VALUE
        open this
  --socket PATH
        the PATH of the socket
`
	if out.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
