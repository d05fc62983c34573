package agent

import "sync"

// Bounds on the permission requests (MethodPermission) that wait at once: each holds a card, its
// hook's input (up to 8 MiB) and the file it edits (up to maxEditedFile) and its diff. One client
// process (the peer's pid) may have maxHookWaitsPerClient, all clients together maxHookWaits, the
// way calls.go bounds kept calls per client and in all. A request over a bound is refused at once
// (ReasonTooMany): the hook prints nothing and the agent asks on its own prompt.
const (
	maxHookWaitsPerClient = 16
	maxHookWaits          = 64
)

// hookWaits counts the permission requests waiting on each Server, in all and per client; an
// entry goes when its count is back to 0. It lives here rather than in Server so that the hook's
// bounds stay in the hook's files.
var hookWaits = struct {
	mu   sync.Mutex
	all  map[*Server]int
	mine map[hookClient]int
}{all: map[*Server]int{}, mine: map[hookClient]int{}}

type hookClient struct {
	s   *Server
	pid int
}

// enterHook counts one more permission request of pid's on s, or refuses it over a bound; leave
// ends the count and must be called once.
func (s *Server) enterHook(pid int) (leave func(), err error) {
	k := hookClient{s, pid}
	hookWaits.mu.Lock()
	defer hookWaits.mu.Unlock()
	switch {
	case hookWaits.mine[k] >= maxHookWaitsPerClient:
		return nil, failure(ReasonTooMany, "%d permission requests of this client (pid %d) already wait for the person in tickmux; "+
			"answer their cards first", maxHookWaitsPerClient, pid)
	case hookWaits.all[s] >= maxHookWaits:
		return nil, failure(ReasonTooMany, "%d permission requests, of all clients together, already wait for the person in tickmux; "+
			"answer their cards first", maxHookWaits)
	}
	hookWaits.mine[k]++
	hookWaits.all[s]++
	var once sync.Once
	return func() {
		once.Do(func() {
			hookWaits.mu.Lock()
			defer hookWaits.mu.Unlock()
			if hookWaits.mine[k]--; hookWaits.mine[k] == 0 {
				delete(hookWaits.mine, k)
			}
			if hookWaits.all[s]--; hookWaits.all[s] == 0 {
				delete(hookWaits.all, s)
			}
		})
	}, nil
}
