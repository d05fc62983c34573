package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Every method of the control protocol has a route, and each route checks its params before the
// method runs: an unknown field is a bad request that reaches no method (the nil server and
// connection would panic if it did).
func TestRoutesDecodeFirst(t *testing.T) {
	t.Parallel()
	methods := []string{MethodHello, MethodList, MethodDescribe, MethodRead, MethodCall, MethodWait, MethodWatch,
		MethodOpen, MethodClose, MethodSend, MethodCancelCall, MethodScreen, MethodJournal, MethodPermission, MethodAgentEvent}
	if len(routes) != len(methods) {
		t.Errorf("%d routes, want %d", len(routes), len(methods))
	}
	for _, m := range methods {
		r, ok := routes[m]
		if !ok {
			t.Errorf("no route for %q", m)
			continue
		}
		_, err := r(nil, inbound{ctx: context.Background()}, json.RawMessage(`{"no_such_field": 1}`))
		var e *Error
		if !errors.As(err, &e) || e.Reason != ReasonBadRequest || !strings.Contains(e.Message, "invalid params") {
			t.Errorf("%s with an unknown field: %v", m, err)
		}
	}
	var s Server
	_, err := s.dispatch(context.Background(), nil, Request{Method: "no_such_method"})
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonBadRequest || e.Message != `unknown method "no_such_method"` {
		t.Errorf("an unknown method: %v", err)
	}
}
