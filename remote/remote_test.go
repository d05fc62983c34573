package remote

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"tickmux/config"
	"tickmux/internal/remotewire"
)

// quick are the clocks of most tests: the defaults' shape, shorter.
var quick = timing{pingEvery: 300 * time.Millisecond, pingTimeout: time.Second, helloTimeout: 5 * time.Second,
	backoffMin: 50 * time.Millisecond, backoffMax: 400 * time.Millisecond, stableAfter: time.Second}

// fakeHost makes a fake host's directory with files (mode, cards.json, ...).
func fakeHost(t *testing.T, name string, files map[string]string) (config.Host, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, text := range files {
		write(t, dir, f, text)
	}
	return config.Host{Name: name, SSH: dir, Tickmux: "tickmux"}, dir
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	// Through a rename: the fake never reads half a file.
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func cardsJSON(t *testing.T, cards ...remotewire.Card) string {
	t.Helper()
	for i := range cards {
		cards[i].Digest = remotewire.CardDigest(cards[i])
	}
	b, err := json.Marshal(remotewire.CardsResult{Cards: cards})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

func stateOf(m *Manager, name string) HostState { return m.Link(name).State() }

func isUp(m *Manager, name string) func() bool {
	return func() bool { return stateOf(m, name).State == Up }
}

func pids(t *testing.T, dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

func newManager(t *testing.T, hosts []config.Host, opts Options) *Manager {
	t.Helper()
	if opts.SSH == "" {
		opts.SSH = fakeSSH
	}
	if opts.timing == (timing{}) {
		opts.timing = quick
	}
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	m := NewManager(hosts, opts)
	t.Cleanup(m.Close)
	m.Start()
	return m
}

// A link says hello with this side's version and features, comes up with the remote's hostname,
// and the cards of every host flow into one queue ordered by when they started waiting; a
// notification's new list replaces the host's and calls Changed.
func TestHelloAndCardsFlow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a, aDir := fakeHost(t, "a", map[string]string{
		"cards.json": cardsJSON(t, remotewire.Card{ID: 1, Since: t0.Add(2 * time.Second), Action: "call", Instance: "hosted:1", Tool: "deploy"}),
	})
	a.Socket = "/run/tick mux/it's.sock"
	a.SSHArgs = []string{"-o", "User=person"}
	b, bDir := fakeHost(t, "b", map[string]string{
		"mode":       "banner",
		"cards.json": cardsJSON(t, remotewire.Card{ID: 7, Since: t0.Add(time.Second), Action: "agent", Text: "rm -rf build"}),
	})
	var changes atomic.Int64
	m := newManager(t, []config.Host{a, b}, Options{Changed: func() { changes.Add(1) }})
	waitFor(t, "both up", 10*time.Second, func() bool { return isUp(m, "a")() && isUp(m, "b")() })

	args := strings.Split(readFile(t, aDir, "args"), "\x00")
	want := []string{"-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"}
	if !slices.Equal(args[:len(want)], want) {
		t.Errorf("ssh's arguments start %q, want %q", args, want)
	}
	tailWant := []string{"-o", "User=person", aDir, "tickmux", "proxy", "--socket", `'/run/tick mux/it'\''s.sock'`}
	if got := args[len(args)-len(tailWant):]; !slices.Equal(got, tailWant) {
		t.Errorf("ssh's arguments end %q, want %q", got, tailWant)
	}
	var hp remotewire.HelloParams
	if err := json.Unmarshal([]byte(readFile(t, aDir, "hello")), &hp); err != nil || hp.Version != remotewire.Version || !slices.Equal(hp.Features, []string{"cards", "ls", "panes"}) {
		t.Errorf("hello %+v (%v)", hp, err)
	}
	if st := stateOf(m, "a"); st.Hostname != "fake-a" || st.Reason != "" {
		t.Errorf("a's state %+v", st)
	}

	waitFor(t, "both hosts' cards", 5*time.Second, func() bool { return len(m.Cards()) == 2 })
	cards := m.Cards()
	if cards[0].Host != "b" || cards[0].Card.ID != 7 || cards[1].Host != "a" || cards[1].Card.ID != 1 || !cards[0].Reachable || !cards[1].Reachable {
		t.Errorf("cards %+v", cards)
	}
	// a's list changes: a card older than b's comes, the other stays.
	before := changes.Load()
	write(t, aDir, "cards.json", cardsJSON(t,
		remotewire.Card{ID: 1, Since: t0.Add(2 * time.Second), Action: "call", Instance: "hosted:1", Tool: "deploy"},
		remotewire.Card{ID: 2, Since: t0, Action: "open", Argv: []string{"vim"}}))
	waitFor(t, "a's new card", 5*time.Second, func() bool { return len(m.Cards()) == 3 })
	var order []string
	for _, c := range m.Cards() {
		order = append(order, c.Host+":"+strconv.FormatUint(c.Card.ID, 10))
	}
	if !slices.Equal(order, []string{"a:2", "b:7", "a:1"}) {
		t.Errorf("the queue is %v", order)
	}
	waitFor(t, "Changed after the notification", 5*time.Second, func() bool { return changes.Load() > before })

	ls := m.Ls(context.Background())
	if len(ls) != 2 || ls["a"].Ticks[0].Title != "a" || ls["b"].Ticks[0].Title != "b" {
		t.Errorf("ls %+v", ls)
	}
	if len(pids(t, bDir)) != 2 { // b's fake ssh and its child: one connection
		t.Errorf("b connected %d times", len(pids(t, bDir))/2)
	}
}

// A host that hangs (its proxy reads on and answers nothing) is unreachable within the ping's
// clocks (the defaults: a ping every 5 s, 3 s to answer), its ssh killed; meanwhile another host
// stays up and answers, and a call to the hung one returns at its own context's end.
func TestHungHostBecomesUnreachable(t *testing.T) {
	t.Parallel()
	hung, hungDir := fakeHost(t, "hung", nil)
	fine, _ := fakeHost(t, "fine", nil)
	m := newManager(t, []config.Host{hung, fine}, Options{timing: timing{backoffMin: 10 * time.Second}}) // default pings
	waitFor(t, "both up", 10*time.Second, func() bool { return isUp(m, "hung")() && isUp(m, "fine")() })
	first := pids(t, hungDir)

	write(t, hungDir, "freeze", "")
	frozen := time.Now()
	// Before it is found out, a call to it waits only as long as its context.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	start := time.Now()
	err := m.Link("hung").Call(ctx, remotewire.MethodLs, struct{}{}, nil)
	cancel()
	var lost *LostError
	if !errors.As(err, &lost) {
		t.Errorf("a call to the hung host: %v", err)
	}
	t.Logf("a call to the hung host gave up with its context after %v: %v", time.Since(start).Round(time.Millisecond), err)

	var calls int
	var slowest time.Duration
	for stateOf(m, "hung").State == Up {
		if time.Since(frozen) > 20*time.Second {
			t.Fatal("the hung host still up after 20 s")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		start := time.Now()
		var r remotewire.LsResult
		if err := m.Link("fine").Call(ctx, remotewire.MethodLs, struct{}{}, &r); err != nil {
			t.Errorf("the fine host, while the other hangs: %v", err)
		}
		cancel()
		slowest = max(slowest, time.Since(start))
		calls++
		if st := stateOf(m, "fine"); st.State != Up {
			t.Errorf("the fine host is %s: %s", st.State, st.Reason)
		}
		time.Sleep(20 * time.Millisecond)
	}
	detected := time.Since(frozen)
	st := stateOf(m, "hung")
	t.Logf("hung host unreachable %v after it froze (%s); the other host answered %d calls meanwhile, the slowest in %v",
		detected.Round(time.Millisecond), st.Reason, calls, slowest.Round(time.Microsecond))
	if st.State != Unreachable || !strings.HasPrefix(st.Reason, "no answer from hung in 3") || !st.NextTry.Equal(st.Since.Add(10*time.Second)) {
		t.Errorf("hung's state %+v", st)
	}
	// Unreachable: a call fails at once, saying why, and sends nothing.
	start = time.Now()
	err = m.Link("hung").Call(context.Background(), remotewire.MethodLs, struct{}{}, nil)
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no answer from hung") {
		t.Errorf("a call to the unreachable host: %v", err)
	}
	t.Logf("a call to the unreachable host failed in %v: %v", time.Since(start), err)
	waitFor(t, "the hung connection's processes gone", 5*time.Second, func() bool {
		return !slices.ContainsFunc(first, alive)
	})
	if st := stateOf(m, "fine"); st.State != Up {
		t.Errorf("fine: %+v", st)
	}
}

// observer records every state a link takes.
type observer struct {
	mu     sync.Mutex
	states []HostState
}

func (o *observer) add(s HostState) {
	o.mu.Lock()
	o.states = append(o.states, s)
	o.mu.Unlock()
}

// waits are the waits of the unreachable states so far.
func (o *observer) waits() []time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []time.Duration
	for _, s := range o.states {
		if s.State == Unreachable {
			out = append(out, s.NextTry.Sub(s.Since))
		}
	}
	return out
}

func (o *observer) count(state State) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, s := range o.states {
		if s.State == state {
			n++
		}
	}
	return n
}

// Failed connections wait 1, 2, 4 … times the first wait, up to the longest; a connection that
// stayed up less than stableAfter keeps the wait growing, one that stayed up longer resets it.
func TestBackoffGrowsAndResets(t *testing.T) {
	t.Parallel()
	h, dir := fakeHost(t, "flaky", map[string]string{"mode": "refused"})
	var o observer
	m := newManager(t, []config.Host{h}, Options{observe: o.add})
	ms := func(d ...int) []time.Duration {
		var out []time.Duration
		for _, x := range d {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	waitFor(t, "five failures", 10*time.Second, func() bool { return len(o.waits()) >= 5 })
	write(t, dir, "mode", "ok")
	waitFor(t, "up", 10*time.Second, isUp(m, "flaky"))
	if got := o.waits()[:5]; !slices.Equal(got, ms(50, 100, 200, 400, 400)) {
		t.Errorf("waits %v", got)
	}
	// One spell down: each try and failure says the host was lost at the first failure.
	o.mu.Lock()
	var lost time.Time
	for _, s := range o.states {
		if s.State == Up {
			if !s.Down.IsZero() {
				t.Errorf("up, and lost at %v", s.Down)
			}
			break
		}
		if lost.IsZero() && s.State == Unreachable {
			lost = s.Since
		}
		if !s.Down.Equal(lost) {
			t.Errorf("%s since %v: lost at %v, the first failure at %v", s.State, s.Since, s.Down, lost)
		}
	}
	o.mu.Unlock()
	n := len(o.waits())
	kill := func() {
		p := pids(t, dir)
		unix.Kill(p[len(p)-2], unix.SIGKILL) // the fake ssh (the last is its child)
	}
	// Up for less than stableAfter (1 s): the wait goes on growing (it is at its longest).
	kill()
	waitFor(t, "down", 5*time.Second, func() bool { return len(o.waits()) > n })
	if got := o.waits()[n]; got != 400*time.Millisecond {
		t.Errorf("after a short connection the wait is %v", got)
	}
	waitFor(t, "up again", 10*time.Second, isUp(m, "flaky"))
	time.Sleep(1200 * time.Millisecond)
	if stateOf(m, "flaky").State != Up {
		t.Fatalf("not up: %+v", stateOf(m, "flaky"))
	}
	kill()
	waitFor(t, "down again", 5*time.Second, func() bool { return len(o.waits()) > n+1 })
	st := stateOf(m, "flaky")
	if got := o.waits()[n+1]; got != 50*time.Millisecond {
		t.Errorf("after a stable connection the wait is %v", got)
	}
	if !strings.Contains(st.Reason, "was killed") {
		t.Errorf("reason %q", st.Reason)
	}
	t.Logf("waits %v", o.waits())
}

// Why a host is unreachable, in the person's words, from what ssh or the remote said.
func TestReasons(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		ssh   string
		want  string // DEST and NAME stand for the destination and the host's name
	}{
		{"denied", map[string]string{"mode": "denied"}, "",
			"ssh needs a password or a key for DEST: add your key to its authorized_keys (ssh-copy-id DEST), or load it in ssh-agent"},
		{"hostkey", map[string]string{"mode": "hostkey"}, "",
			"DEST's host key is unknown or changed: run `ssh DEST` once in a terminal to check and accept it"},
		{"notfound", map[string]string{"mode": "notfound"}, "",
			`tickmux is not installed on DEST (or not on its PATH for non-interactive ssh): set tickmux = "/path" in its [[hosts]] entry`},
		{"old", map[string]string{"mode": "old"}, "",
			"the tickmux on DEST is too old to be reached this way: update it"},
		{"noserver", map[string]string{"mode": "noserver"}, "",
			"no tickmux server runs on NAME: start one there with `tickmux`"},
		{"hello-refused", map[string]string{"hello-error": "no tickmux server runs at /run/user/0/tickmux/default.sock"}, "",
			"no tickmux server runs on NAME: start one there with `tickmux`"},
		{"refused", map[string]string{"mode": "refused"}, "",
			"ssh: connect to host example port 22: Connection refused"},
		{"quiet", map[string]string{"mode": "quiet"}, "",
			"ssh to DEST ended with status 3, saying nothing"},
		{"silent", map[string]string{"mode": "silent"}, "",
			"no answer from DEST within 1s of starting ssh"},
		{"nofeature", map[string]string{"features": "teleport"}, "",
			`the tickmux on DEST shares nothing with this one (it speaks "teleport", this one "cards,ls,panes"): update the older of the two`},
		{"nossh", nil, "/nonexistent/ssh",
			`cannot run /nonexistent/ssh (fork/exec /nonexistent/ssh: no such file or directory): install OpenSSH's client`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, dir := fakeHost(t, tc.name, tc.files)
			var o observer
			opts := Options{SSH: tc.ssh, observe: o.add}
			opts.timing = quick
			opts.timing.helloTimeout = time.Second
			m := newManager(t, []config.Host{h}, opts)
			waitFor(t, "unreachable twice (it tries again)", 10*time.Second, func() bool { return o.count(Unreachable) >= 2 })
			want := strings.NewReplacer("DEST", dir, "NAME", tc.name).Replace(tc.want)
			if st := stateOf(m, tc.name); st.Reason != want {
				t.Errorf("reason\n%q, want\n%q", st.Reason, want)
			}
			err := m.Link(tc.name).Call(context.Background(), remotewire.MethodPing, nil, nil)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("a call: %v", err)
			}
		})
	}
}

// An answer is sent once: when the connection drops before the host's word comes back, Answer
// says the outcome is unknown, and nothing sends it again, not even once the host is back.
func TestAnswerIsNeverRetried(t *testing.T) {
	t.Parallel()
	card := remotewire.Card{ID: 3, Since: time.Now(), Action: "call", Instance: "hosted:2", Tool: "rm"}
	h, dir := fakeHost(t, "h", map[string]string{"cards.json": cardsJSON(t, card), "drop-on-answer": ""})
	var o observer
	m := newManager(t, []config.Host{h}, Options{observe: o.add})
	waitFor(t, "its card", 10*time.Second, func() bool { return len(m.Cards()) == 1 && m.Cards()[0].Reachable })
	read := m.Cards()[0].Card

	err := m.Answer(context.Background(), "h", read, remotewire.Once, "view 1 /dev/pts/3 on laptop")
	var lost *LostError
	if !errors.As(err, &lost) || !strings.Contains(err.Error(), "whether h took it is unknown") {
		t.Fatalf("Answer over a dropping connection: %v", err)
	}
	t.Logf("Answer: %v", err)
	ups := o.count(Up)
	waitFor(t, "back up", 10*time.Second, func() bool { return o.count(Up) > ups })
	time.Sleep(3 * quick.pingEvery) // pings, a card list: time for any retry to show
	answers := strings.Split(strings.TrimSpace(readFile(t, dir, "answers")), "\n")
	if len(answers) != 1 {
		t.Fatalf("the host got %d answers: %q", len(answers), answers)
	}
	var ap remotewire.AnswerParams
	if err := json.Unmarshal([]byte(answers[0]), &ap); err != nil {
		t.Fatal(err)
	}
	if ap != (remotewire.AnswerParams{Card: 3, Digest: read.Digest, Decision: "once", View: "view 1 /dev/pts/3 on laptop"}) || read.Digest != remotewire.CardDigest(card) {
		t.Errorf("the answer %+v", ap)
	}

	// While unreachable, nothing goes out at all.
	write(t, dir, "mode", "refused")
	p := pids(t, dir)
	unix.Kill(p[len(p)-2], unix.SIGKILL)
	waitFor(t, "unreachable", 5*time.Second, func() bool { return stateOf(m, "h").State != Up })
	if c := m.Cards(); len(c) != 1 || c[0].Reachable {
		t.Errorf("an unreachable host's cards: %+v", c)
	}
	err = m.Answer(context.Background(), "h", read, remotewire.Deny, "v")
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("Answer to an unreachable host: %v", err)
	}
	// A connection that holds: the answer is taken.
	os.Remove(filepath.Join(dir, "drop-on-answer"))
	write(t, dir, "mode", "ok")
	waitFor(t, "up", 10*time.Second, isUp(m, "h"))
	if err := m.Answer(context.Background(), "h", read, remotewire.Revision, "v"); err != nil {
		t.Errorf("Answer: %v", err)
	}
	if n := len(strings.Split(strings.TrimSpace(readFile(t, dir, "answers")), "\n")); n != 2 {
		t.Errorf("%d answers", n)
	}
	if err := m.Answer(context.Background(), "h", read, "always", "v"); err == nil {
		t.Error("a decision that is none")
	}
	if err := m.Answer(context.Background(), "nohost", read, remotewire.Once, "v"); err == nil {
		t.Error("a host that is none")
	}
}

// Changed may be slow: the links read on (cards stay the latest, pings answer, calls work), and
// the changes meanwhile make one more call, not one each.
func TestSlowChangedStallsNothing(t *testing.T) {
	t.Parallel()
	h, dir := fakeHost(t, "h", nil)
	release := make(chan struct{})
	var calls atomic.Int64
	m := newManager(t, []config.Host{h}, Options{Changed: func() {
		calls.Add(1)
		<-release
	}})
	waitFor(t, "up", 10*time.Second, isUp(m, "h"))
	waitFor(t, "Changed called (and stuck)", 5*time.Second, func() bool { return calls.Load() == 1 })
	for i := 1; i <= 20; i++ {
		write(t, dir, "cards.json", cardsJSON(t, remotewire.Card{ID: uint64(i), Since: time.Now()}))
		waitFor(t, "card "+strconv.Itoa(i), 5*time.Second, func() bool {
			c := m.Cards()
			return len(c) == 1 && c[0].Card.ID == uint64(i)
		})
	}
	time.Sleep(3 * quick.pingEvery)
	if st := stateOf(m, "h"); st.State != Up {
		t.Errorf("while Changed was stuck: %+v", st)
	}
	if got := m.Ls(context.Background()); len(got) != 1 {
		t.Errorf("ls while Changed was stuck: %v", got)
	}
	close(release)
	waitFor(t, "the coalesced call", 5*time.Second, func() bool { return calls.Load() == 2 })
	time.Sleep(100 * time.Millisecond)
	if n := calls.Load(); n != 2 {
		t.Errorf("Changed called %d times for 20 changes while it was stuck", n)
	}
}

// Close kills every ssh (and what it started in its group) whatever the link is doing, and every
// goroutine ends.
func TestCloseLeavesNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var hosts []config.Host
	var dirs []string
	for _, f := range []map[string]string{
		{},                             // up
		{"freeze": ""},                 // hung at its hello
		{"mode": "silent"},             // logged in, saying nothing
		{"mode": "refused"},            // waiting to try again
		{"cards.json": `{"cards":[]}`}, // up
	} {
		h, dir := fakeHost(t, "h"+strconv.Itoa(len(hosts)), f)
		hosts = append(hosts, h)
		dirs = append(dirs, dir)
	}
	opts := Options{SSH: fakeSSH, timing: quick, Logf: t.Logf}
	opts.timing.backoffMin = time.Hour
	m := NewManager(hosts, opts)
	m.Start()
	waitFor(t, "the links at their places", 10*time.Second, func() bool {
		s := m.States()
		return s[0].State == Up && s[4].State == Up && s[3].State == Unreachable && len(pids(t, dirs[1])) == 2 && len(pids(t, dirs[2])) == 1
	})
	var all []int
	for _, d := range dirs {
		all = append(all, pids(t, d)...)
	}
	if alive := slices.DeleteFunc(slices.Clone(all), func(p int) bool { return !alive(p) }); len(alive) != 7 { // 2 up, hung: ssh and its child each; silent
		t.Errorf("%d processes alive before Close: %v of %v", len(alive), alive, all)
	}
	start := time.Now()
	m.Close()
	t.Logf("Close took %v", time.Since(start))
	for _, p := range all {
		if alive(p) {
			t.Errorf("process %d outlived Close", p)
		}
	}
	if err := m.Link("h0").Call(context.Background(), remotewire.MethodPing, nil, nil); err == nil {
		t.Error("a call after Close")
	}
}

// The package draws nothing: no UI library, no views, no server (tcell comes in only through
// config's key and colour types).
func TestHeadless(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}|{{join .Deps " "}}`, "tickmux/remote").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports, deps, _ := strings.Cut(strings.TrimSpace(string(out)), "|")
	for _, p := range strings.Fields(imports) {
		if strings.Contains(p, "tcell") || strings.Contains(p, "tview") || strings.HasPrefix(p, "tickmux/views") || strings.HasPrefix(p, "tickmux/server") {
			t.Errorf("remote imports %s", p)
		}
	}
	for _, p := range strings.Fields(deps) {
		if strings.Contains(p, "tview") || strings.HasPrefix(p, "tickmux/views") || strings.HasPrefix(p, "tickmux/server") || strings.HasPrefix(p, "tickmux/agent") {
			t.Errorf("remote depends on %s", p)
		}
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"tickmux":               "tickmux",
		"~/bin/tickmux":         "~/bin/tickmux",
		"/opt/tick mux/t":       "'/opt/tick mux/t'",
		"it's":                  `'it'\''s'`,
		"$(reboot)":             "'$(reboot)'",
		"/run/user/1000/a.sock": "/run/user/1000/a.sock",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
